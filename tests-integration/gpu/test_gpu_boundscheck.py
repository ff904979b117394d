"""GPU: ``@cuda.jit(boundscheck=True)``.  An out-of-bounds index raises ``IndexError``
on the host after the launch, naming the index, the axis, its size, the array's
shape, the kernel, the file:line of the indexing and the thread; the access itself
is skipped; the context stays usable (the next launch computes what NumPy
computes); in-bounds kernels give the same results checked or not."""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

from cudalite import cuda

pytestmark = pytest.mark.gpu
# the compiled kernels' exception record and message; the simulator raises NumPy's
# IndexError with its own location prefix (packages/jit/tests/test_simulator_boundscheck.py)
_COMPILED_MESSAGE = pytest.mark.nosim("the compiled bounds-check record and message (the simulator words its own)")

HERE = os.path.abspath(__file__)


@pytest.fixture(autouse=True)
def _no_env_override(monkeypatch):
    monkeypatch.delenv("CUDALITE_BOUNDSCHECK", raising=False)
    monkeypatch.delenv("NUMBA_BOUNDSCHECK", raising=False)


def _line(fn, text):
    fn = getattr(fn, "py_func", fn)
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(lines) if text in s)


def _where(fn, text):
    return f"at {HERE}:{_line(fn, text)}"


# -- kernels ----------------------------------------------------------------------------------------
def copy1(out, a, shift):
    i = cuda.grid(1)
    out[i] = a[i + shift] * 2  # COPY1


def store2(m, j):
    i = cuda.threadIdx.x
    m[i, j] = i + 100 * j  # STORE2


def shared_rev(out, a, extra):
    s = cuda.shared.array(32, np.float32)
    t = cuda.threadIdx.x
    s[t + extra] = a[t]  # SHARED
    cuda.syncthreads()
    out[t] = s[31 - t]


@cuda.jit(device=True)
def fetch(a, i):
    return a[i]  # FETCH


def via_device(out, a, shift):
    i = cuda.grid(1)
    out[i] = fetch(a, i + shift)


def _checked(fn):
    return cuda.jit(boundscheck=True)(fn)


# -- in bounds: identical results -----------------------------------------------------------------
def test_in_bounds_results_are_identical():
    a = np.arange(40, dtype=np.float32)
    for shift in (0, -40, 8):  # -40: a[i - 40] wraps around, as in NumPy
        outs = []
        for k in (cuda.jit(copy1), _checked(copy1)):
            out = np.zeros(32, np.float32)
            k[1, 32](out, a, shift)
            outs.append(out)
        ref = np.array([a[i + shift] * 2 for i in range(32)], np.float32)
        np.testing.assert_array_equal(outs[0], ref)
        np.testing.assert_array_equal(outs[1], ref)
    m = np.zeros((32, 3), np.int64)
    _checked(store2)[1, 32](m, 2)
    ref = np.zeros((32, 3), np.int64)
    ref[:, 2] = np.arange(32) + 200
    np.testing.assert_array_equal(m, ref)
    out = np.zeros(32, np.float32)
    _checked(shared_rev)[1, 32](out, a, 0)
    np.testing.assert_array_equal(out, a[:32][::-1])


# -- out of bounds ---------------------------------------------------------------------------------
@_COMPILED_MESSAGE
def test_oob_read_1d_names_everything_and_the_next_launch_works():
    k = _checked(copy1)
    a = np.arange(10, dtype=np.float32)
    out = np.zeros(11, np.float32)
    with pytest.raises(IndexError) as info:
        k[1, 11](out, a, 0)  # thread 10 reads a[10]
    assert str(info.value) == (f"index 10 is out of bounds for axis 0 with size 10 (array shape (10,)) in kernel "
                               f"'copy1' {_where(copy1, '# COPY1')}, tid=[10, 0, 0] ctaid=[0, 0, 0]")
    out = np.zeros(10, np.float32)
    k[1, 10](out, a, 0)
    np.testing.assert_array_equal(out, a * 2)


@_COMPILED_MESSAGE
def test_negative_index_after_wraparound():
    k = _checked(copy1)
    a = np.arange(10, dtype=np.float32)
    out = np.zeros(1, np.float32)
    with pytest.raises(IndexError, match=r"^index -11 is out of bounds for axis 0 with size 10 \(array shape \(10,\)\)"
                                         r" in kernel 'copy1'"):
        k[1, 1](out, a, -11)
    k[1, 1](out, a, -1)
    assert out[0] == 18.0


@_COMPILED_MESSAGE
def test_oob_write_2d_is_skipped():
    k = _checked(store2)
    base = cuda.to_device(np.full((4, 4), -1, np.int64))
    view = base[:, :3]  # writing m[i, 3] through the view would reach base[i, 3]
    with pytest.raises(IndexError) as info:
        k[1, 1](view, 3)
    assert str(info.value) == (f"index 3 is out of bounds for axis 1 with size 3 (array shape (4, 3)) in kernel "
                               f"'store2' {_where(store2, '# STORE2')}, tid=[0, 0, 0] ctaid=[0, 0, 0]")
    assert (base.copy_to_host() == -1).all()  # the access did not happen
    k[1, 4](view, 1)
    ref = np.full((4, 4), -1, np.int64)
    ref[:, 1] = np.arange(4) + 100
    np.testing.assert_array_equal(base.copy_to_host(), ref)


@_COMPILED_MESSAGE
def test_oob_shared_array():
    k = _checked(shared_rev)
    a = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    with pytest.raises(IndexError, match=r"^index 32 is out of bounds for axis 0 with size 32 \(array shape \(32,\)\) "
                                         rf"in kernel 'shared_rev' at {HERE}:{_line(shared_rev, '# SHARED')}, "
                                         r"tid=\[31, 0, 0\]"):
        k[1, 32](out, a, 1)  # only thread 31 is out of bounds
    k[1, 32](out, a, 0)
    np.testing.assert_array_equal(out, a[::-1])


@_COMPILED_MESSAGE
def test_device_function_inherits_the_kernel_setting():
    k = _checked(via_device)
    a = np.arange(10, dtype=np.float32)
    out = np.zeros(11, np.float32)
    with pytest.raises(IndexError) as info:
        k[1, 11](out, a, 0)
    assert str(info.value) == (
        f"index 10 is out of bounds for axis 0 with size 10 (array shape (10,)) in kernel 'via_device' "
        f"{_where(fetch, '# FETCH')} (in device function 'fetch'), tid=[10, 0, 0] ctaid=[0, 0, 0]")
    out = np.zeros(10, np.float32)
    k[1, 10](out, a, 0)
    np.testing.assert_array_equal(out, a)


@_COMPILED_MESSAGE
def test_first_error_wins_and_every_launch_reports_again():
    k = _checked(copy1)
    a = cuda.to_device(np.arange(64, dtype=np.float32))
    out = cuda.device_array(128, np.float32)
    for _ in range(3):  # the first launch builds the fast path; later ones use it
        with pytest.raises(IndexError,
                           match=r"^index \d+ is out of bounds for axis 0 with size 64 .* ctaid=\[\d, 0, 0\]"):
            k[4, 32](out, a, 0)
    k[2, 32](out, a, 0)
    np.testing.assert_array_equal(out.copy_to_host()[:64], np.arange(64, dtype=np.float32) * 2)


@_COMPILED_MESSAGE
def test_atomics_and_slice_shapes_are_checked():
    @cuda.jit(boundscheck=True)
    def hist(h, v):
        i = cuda.grid(1)
        cuda.atomic.add(h, v[i], 1)

    h = np.zeros(4, np.int32)
    with pytest.raises(IndexError, match=r"^index 4 is out of bounds for axis 0 with size 4 .*in kernel 'hist'"):
        hist[1, 3](h, np.array([0, 4, 1], np.int64))
    h[:] = 0
    hist[1, 5](h, np.array([0, 3, 1, 3, -1], np.int64))
    np.testing.assert_array_equal(h, np.bincount([0, 3, 1, 3, 3], minlength=4))

    @cuda.jit(boundscheck=True)
    def copy_into(dst, src):
        dst[1:] = src

    with pytest.raises(ValueError, match=r"^could not broadcast input array from shape \(3,\) into shape \(4,\) "
                                         r"in kernel 'copy_into'"):
        copy_into[1, 1](np.zeros(5), np.ones(3))
    d = np.zeros(5)
    copy_into[1, 1](d, np.arange(4.0))
    np.testing.assert_array_equal(d, [0, 0, 1, 2, 3])


def test_environment_variable_turns_it_on(monkeypatch):
    monkeypatch.setenv("CUDALITE_BOUNDSCHECK", "1")
    k = cuda.jit(copy1)
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 10"):
        k[1, 11](np.zeros(11, np.float32), np.arange(10, dtype=np.float32), 0)
