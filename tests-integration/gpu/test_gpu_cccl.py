"""cuda.compute (the cuda-cccl package) running operators compiled by cudalite
(``cudalite.cuda.cccl.op``): reductions, scans, transforms and selections over CuPy
arrays, compared with NumPy; the second use of an operator compiles nothing."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("cuda.compute runs its own kernels on a GPU")]

compute = pytest.importorskip("cuda.compute")
cp = pytest.importorskip("cupy")

from cudalite import cuda  # noqa: E402
from cudalite.cuda import cccl  # noqa: E402


@cuda.jit(device=True)
def square(x):
    return x * x


def add(a, b):
    return a + b


def bigger(a, b):
    return a if a > b else b


def is_even(x):
    return x % 2 == 0


def add_squares(a, b):
    return square(a) + b


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint64, np.float16, np.float32,
                                   np.float64, np.complex64, np.complex128])
def test_reduce_into_with_a_python_operator(dtype):
    h = (np.arange(100) % 5).astype(dtype)  # a sum every type holds exactly (int8 and uint8 wrap alike)
    d_in, d_out = cp.asarray(h), cp.empty(1, dtype=dtype)
    compute.reduce_into(d_in=d_in, d_out=d_out, op=cccl.op(add), num_items=h.size, h_init=np.zeros(1, dtype))
    assert d_out.get()[0] == h.sum(dtype=dtype)


def test_inclusive_scan_with_max():
    h = np.random.default_rng(1).integers(-1000, 1000, 4096).astype(np.int32)
    d_out = cp.empty_like(cp.asarray(h))
    compute.inclusive_scan(d_in=cp.asarray(h), d_out=d_out, op=cccl.op(bigger), init_value=None,
                           num_items=h.size)
    np.testing.assert_array_equal(d_out.get(), np.maximum.accumulate(h))


def test_transforms_call_device_functions():
    x = np.linspace(-3, 3, 777)
    y = np.cos(x)
    out = cp.empty(x.size)
    compute.unary_transform(d_in=cp.asarray(x), d_out=out, op=cccl.op(square), num_items=x.size)
    np.testing.assert_allclose(out.get(), x * x, rtol=1e-15)
    compute.binary_transform(d_in1=cp.asarray(x), d_in2=cp.asarray(y), d_out=out, op=cccl.op(add_squares),
                             num_items=x.size)
    np.testing.assert_allclose(out.get(), x * x + y, rtol=1e-15)


def test_select_with_a_predicate():
    h = np.arange(100, dtype=np.int64)
    d_out, d_n = cp.empty_like(cp.asarray(h)), cp.zeros(1, dtype=np.uint64)
    compute.select(d_in=cp.asarray(h), d_out=d_out, d_num_selected_out=d_n, cond=cccl.op(is_even),
                   num_items=h.size)
    n = int(d_n.get()[0])
    np.testing.assert_array_equal(d_out.get()[:n], h[h % 2 == 0])


def test_a_second_use_compiles_nothing():
    h = np.ones(64, np.float32)
    before = cccl._compiled_key.cache_info()
    for _ in range(2):
        d_out = cp.empty(1, np.float32)
        compute.reduce_into(d_in=cp.asarray(h), d_out=d_out, op=cccl.op(add), num_items=h.size,
                            h_init=np.zeros(1, np.float32))
        assert d_out.get()[0] == 64
    after = cccl._compiled_key.cache_info()
    assert after.misses - before.misses <= 1


_TABLE = None  # a module global a stateful operator reads (rebound by the test)


def _from_table(i):
    return _TABLE[i % 4] + 0.5


def test_stateful_operator_reads_captured_arrays_through_the_state():
    x = np.arange(64, dtype=np.int64)
    table = cp.asarray(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))

    def scaled(i):  # a closure over a 2-d device array and a constant
        return table[i % 2, 2] * 10 + i

    out = cp.empty(x.size)
    compute.unary_transform(d_in=cp.asarray(x), d_out=out, op=cccl.op(scaled), num_items=x.size)
    np.testing.assert_array_equal(out.get(), np.where(x % 2 == 0, 3.0, 6.0) * 10 + x)


def test_a_rebound_global_array_reaches_the_next_call_without_a_recompile():
    global _TABLE
    x = np.arange(32, dtype=np.int64)
    op = cccl.op(_from_table)
    for k in (1.0, 7.0):
        _TABLE = cp.asarray(np.arange(4, dtype=np.float64) * k)
        before = cccl._compiled_key.cache_info().misses
        out = cp.empty(x.size)
        compute.unary_transform(d_in=cp.asarray(x), d_out=out, op=op, num_items=x.size)
        np.testing.assert_array_equal(out.get(), (x % 4) * k + 0.5)
    assert cccl._compiled_key.cache_info().misses == before  # the second array: same code, new state


def _offset_by(arr):
    def add_offset(x):
        return x + arr[0]
    return add_offset


def test_closures_over_different_arrays_share_one_compile_and_keep_their_own_state():
    """cuda.compute's thread-safety suite makes one closure per thread over its own array:
    one compiled operator (keyed by content), each call reading its own closure's array."""
    x = np.arange(16, dtype=np.int32)
    offsets = [cp.asarray(np.array([k], dtype=np.int32)) for k in (10, 20, 30)]
    before = cccl._compiled_key.cache_info().misses
    for k, arr in zip((10, 20, 30), offsets):
        out = cp.empty(x.size, np.int32)
        compute.unary_transform(d_in=cp.asarray(x), d_out=out, op=cccl.op(_offset_by(arr)), num_items=x.size)
        np.testing.assert_array_equal(out.get(), x + k)
    assert cccl._compiled_key.cache_info().misses - before <= 1


# -- structs, iterators, segmented reductions -----------------------------------------------------
@compute.gpu_struct
class MinMax:
    lo: np.float64
    hi: np.float64


@compute.gpu_struct
class Point:
    x: np.int32
    y: np.int32


@compute.gpu_struct
class Particle:
    id: np.int64
    position: Point


def test_struct_reduction_builds_the_struct_in_the_operator():
    def minmax(a, b):
        return MinMax(min(a.lo, b.lo), max(a.hi, b.hi))

    x = np.random.default_rng(7).normal(size=5000)
    h = np.zeros(x.size, MinMax.dtype)
    h["lo"], h["hi"] = x, x
    d_in, d_out = cp.asarray(h), cp.empty(1, MinMax.dtype)
    compute.reduce_into(d_in=d_in, d_out=d_out, op=cccl.op(minmax), num_items=x.size,
                        h_init=MinMax(np.inf, -np.inf))
    got = d_out.get()[0]
    assert (got["lo"], got["hi"]) == (x.min(), x.max())


def test_nested_struct_reduction_by_class_and_by_tuple():
    def by_class(p, q):
        return Particle(p.id + q.id, Point(p.position.x + q.position.x, p.position.y + q.position.y))

    def by_tuple(p, q):
        return Particle(id=p.id + q.id, position=(p.position[0] + q.position[0], p.position.y + q.position.y))

    h = np.zeros(300, Particle.dtype)
    h["id"] = np.arange(300) * 10
    h["position"]["x"] = np.arange(300)
    h["position"]["y"] = -2 * np.arange(300)
    for fn in (by_class, by_tuple):
        d_out = cp.empty(1, Particle.dtype)
        compute.reduce_into(d_in=cp.asarray(h), d_out=d_out, op=cccl.op(fn), num_items=h.size,
                            h_init=Particle(0, Point(0, 0)))
        got = d_out.get()[0]
        assert (got["id"], got["position"]["x"], got["position"]["y"]) == (
            h["id"].sum(), h["position"]["x"].sum(), h["position"]["y"].sum()), fn.__name__


def test_zip_iterator_values_are_structs():
    @compute.gpu_struct
    class Pair:
        first: np.int32
        second: np.float32

    def sum_pairs(p, q):
        return Pair(p[0] + q[0], p[1] + q[1])

    a = np.arange(1, 1001, dtype=np.int32)
    b = (np.arange(1000) % 7).astype(np.float32)
    d_out = cp.empty(1, Pair.dtype)
    compute.reduce_into(d_in=compute.ZipIterator(cp.asarray(a), cp.asarray(b)), d_out=d_out, op=cccl.op(sum_pairs),
                        num_items=a.size, h_init=Pair(0, 0.0))
    got = d_out.get()[0]
    assert (got["first"], got["second"]) == (a.sum(), b.sum())


def test_transform_iterators_with_python_operators():
    d = cp.arange(1000, dtype=np.int64)
    d_out = cp.empty(1, np.int64)
    squares = compute.TransformIterator(d, cccl.op(lambda v: v * v - 3))
    compute.reduce_into(d_in=squares, d_out=d_out, op=compute.OpKind.PLUS, num_items=1000,
                        h_init=np.zeros(1, np.int64))
    n = np.arange(1000, dtype=np.int64)
    assert d_out.get()[0] == (n * n - 3).sum()

    def root(x: np.float64) -> np.float64:
        return x ** 0.5

    x = np.linspace(0, 2, 500)
    d_root = cp.empty(1, np.float64)
    compute.reduce_into(d_in=cp.asarray(x), d_out=compute.TransformOutputIterator(d_root, cccl.op(root)),
                        op=cccl.op(add), num_items=x.size, h_init=np.zeros(1, np.float64))
    np.testing.assert_allclose(d_root.get()[0], np.sqrt(x.sum()), rtol=1e-12)


def test_segmented_reduce_with_a_stateful_operator():
    rng = np.random.default_rng(3)
    keys = rng.normal(size=1000)
    d_keys = cp.asarray(keys)

    def argmin_by_key(i, j):  # indices compared by a captured device array: the operator's state
        if i < 0 or j < 0:  # -1: the initial value, which loses to any index
            return max(i, j)
        return i if d_keys[i] < d_keys[j] or (d_keys[i] == d_keys[j] and i < j) else j

    offsets = np.array([0, 7, 100, 101, 640, 1000], dtype=np.int64)
    d_out = cp.empty(offsets.size - 1, np.int64)
    compute.segmented_reduce(d_in=cp.arange(1000, dtype=np.int64), d_out=d_out, num_segments=offsets.size - 1,
                             start_offsets_in=cp.asarray(offsets[:-1]), end_offsets_in=cp.asarray(offsets[1:]),
                             op=cccl.op(argmin_by_key), h_init=np.asarray(-1, np.int64))
    expect = [lo + int(np.argmin(keys[lo:hi])) for lo, hi in zip(offsets[:-1], offsets[1:])]
    np.testing.assert_array_equal(d_out.get(), expect)


@cccl.op
def decorated_max(a, b):
    return a if a > b else b


def test_the_decorator_form_keeps_the_function_callable_on_the_host():
    assert decorated_max(3, 9) == 9 and cccl.op(decorated_max) == decorated_max
    h = np.random.default_rng(5).integers(-50, 50, 999).astype(np.int16)
    d_out = cp.empty(1, np.int16)
    compute.reduce_into(d_in=cp.asarray(h), d_out=d_out, op=decorated_max, num_items=h.size,
                        h_init=np.full(1, -32768, np.int16))
    assert d_out.get()[0] == h.max()
