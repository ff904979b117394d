"""Out-of-bounds indexing in the CPU simulator: NumPy's ``IndexError`` (always: the
simulator's arrays are NumPy arrays, ``boundscheck`` or not), re-raised with the
kernel's name, the user's file and line and the thread; the next launch works."""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

from cudalite.cuda import simulator as cuda

HERE = os.path.abspath(__file__)


def _line(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(lines) if text in s)


def _fill(a, offset):
    i = cuda.grid(1)
    a[i + offset] = i  # FILL


@pytest.mark.parametrize("boundscheck", [True, False])
def test_oob_write_raises_index_error_then_the_next_launch_works(boundscheck):
    k = cuda.jit(boundscheck=boundscheck)(_fill)
    a = np.zeros(10)
    with pytest.raises(IndexError) as info:
        k[1, 16](a, 0)
    line = _line(_fill, "# FILL")
    assert str(info.value) == (f"In kernel '_fill', file {HERE}, line {line}, tid=[10, 0, 0] ctaid=[0, 0, 0]: "
                               "index 10 is out of bounds for axis 0 with size 10")
    a[:] = 0
    k[1, 10](a, 0)
    np.testing.assert_array_equal(a, np.arange(10.0))


def test_negative_index_wraps_and_too_negative_raises():
    k = cuda.jit(boundscheck=True)(_fill)
    a = np.zeros(10)
    k[1, 10](a, -10)  # a[i - 10]: wraps around, as in Python
    np.testing.assert_array_equal(a, np.arange(10.0))
    with pytest.raises(IndexError, match=r"tid=\[0, 0, 0\].*index -11 is out of bounds for axis 0 with size 10"):
        k[1, 10](a, -11)


def test_2d_shared_and_device_function():
    @cuda.jit(device=True)
    def get(m, i, j):
        return m[i, j]  # GET

    @cuda.jit(boundscheck=True)
    def k(out, m, j):
        s = cuda.shared.array((4, 3), np.float64)
        t = cuda.threadIdx.x
        s[t, 0] = get(m, t, j)
        out[t] = s[t, 0]

    m = np.arange(12.0).reshape(4, 3)
    out = np.zeros(4)
    with pytest.raises(IndexError) as info:
        k[1, 4](out, m, 3)
    assert f"file {HERE}, line {_line(get.py_func, '# GET')}," in str(info.value)
    assert str(info.value).endswith("index 3 is out of bounds for axis 1 with size 3")
    k[1, 4](out, m, 2)
    np.testing.assert_array_equal(out, m[:, 2])

    @cuda.jit(boundscheck=True)
    def shared_oob(out):
        s = cuda.shared.array((4, 3), np.float64)
        s[cuda.threadIdx.x, 0] = 1.0  # SHARED

    with pytest.raises(IndexError, match=r"tid=\[4, 0, 0\].*index 4 is out of bounds for axis 0 with size 4"):
        shared_oob[1, 5](out)
