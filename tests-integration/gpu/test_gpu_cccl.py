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
    before = cccl._compiled.cache_info()
    for _ in range(2):
        d_out = cp.empty(1, np.float32)
        compute.reduce_into(d_in=cp.asarray(h), d_out=d_out, op=cccl.op(add), num_items=h.size,
                            h_init=np.zeros(1, np.float32))
        assert d_out.get()[0] == 64
    after = cccl._compiled.cache_info()
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
        before = cccl._compiled.cache_info().misses
        out = cp.empty(x.size)
        compute.unary_transform(d_in=cp.asarray(x), d_out=out, op=op, num_items=x.size)
        np.testing.assert_array_equal(out.get(), (x % 4) * k + 0.5)
    assert cccl._compiled.cache_info().misses == before  # the second array: same code, new state
