"""Array layout arithmetic shared by the compiler and the runtime: C/F strides and
NumPy's relaxed contiguity (extents of 1 ignore their stride; an empty array is both
C- and F-contiguous).  :func:`layout_of` is the one classifier of every array a
kernel receives or captures (tested against NumPy's own flags).  Strides are in
bytes; plain tuples of ints in and out."""

from __future__ import annotations

__all__ = ["c_strides", "f_strides", "is_c_contiguous", "is_f_contiguous", "layout_of"]


def c_strides(shape, itemsize):
    strides, acc = [], itemsize
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def f_strides(shape, itemsize):
    strides, acc = [], itemsize
    for n in shape:
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(strides)


def _contiguous(shape, strides, itemsize, dims):
    if 0 in shape:
        return True
    acc = itemsize
    for i in dims:
        if shape[i] != 1:
            if strides[i] != acc:
                return False
            acc *= shape[i]
    return True


def is_c_contiguous(shape, strides, itemsize):
    return _contiguous(shape, strides, itemsize, range(len(shape) - 1, -1, -1))


def is_f_contiguous(shape, strides, itemsize):
    return _contiguous(shape, strides, itemsize, range(len(shape)))


def layout_of(shape, strides, itemsize):
    """'C' if C-contiguous (1-d contiguous included), else 'F' if F-contiguous, else 'A'.

    The one layout classifier of every array a kernel receives (DeviceNDArray, mapped
    and managed arrays, CAI and DLPack objects, NumPy, CuPy and torch arrays): it picks
    the compiled specialization, so two sources of the same memory layout share one."""
    if is_c_contiguous(shape, strides, itemsize):
        return "C"
    if is_f_contiguous(shape, strides, itemsize):
        return "F"
    return "A"
