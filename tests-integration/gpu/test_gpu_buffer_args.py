"""Buffer-protocol objects as kernel arguments on the GPU (``array.array``, ``bytearray``,
``bytes``, ``memoryview``, ctypes arrays): the kernel sees the buffer's contents, a
writable buffer gets the kernel's writes back, a read-only one is left as it was;
results checked against NumPy."""

from __future__ import annotations

import array
import ctypes
import warnings

import numpy as np
import pytest

from cudalite import cuda

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("buffer-protocol arguments are a cudalite launch-path kind")]


@cuda.jit
def twice_plus(a, x):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * 2 + x


@cuda.jit
def total(src, out):
    i = cuda.grid(1)
    if i < src.size:
        cuda.atomic.add(out, 0, src[i])


def _launch(kernel, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumbaPerformanceWarning: host data is copied
        kernel[1, 64](*args)


@pytest.mark.parametrize("make", [
    lambda v: array.array("f", v), lambda v: array.array("d", v), lambda v: (ctypes.c_float * len(v))(*v),
    lambda v: memoryview(np.array(v, np.float32)),
])
def test_writable_buffer_gets_the_kernels_writes(gpu, make):
    values = [1.0, 2.5, -3.0, 4.0]
    buf = make(values)
    _launch(twice_plus, buf, 1.0)
    got = np.asarray(memoryview(buf), dtype=np.float64)
    np.testing.assert_array_equal(got, np.array(values) * 2 + 1)


def test_bytes_are_read_and_left_unchanged(gpu):
    data = bytes(range(10, 20))
    out = np.zeros(1, np.uint32)
    d_out = cuda.to_device(out)
    _launch(total, data, d_out)
    assert int(d_out.copy_to_host()[0]) == sum(range(10, 20)) and data == bytes(range(10, 20))


def test_bytearray_is_written_back(gpu):
    data = bytearray(b"\x01\x02\x03")

    @cuda.jit
    def inc(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    _launch(inc, data)
    assert data == bytearray(b"\x02\x03\x04")
