"""NumPy dtypes from what users pass as ``dtype=``: NumPy dtypes and scalar types,
strings, and cudalite (numba-style) types such as ``types.float32``."""

from __future__ import annotations

import numpy as np

from cudalite import types

__all__ = ["to_dtype", "normalize_shape"]


def to_dtype(dtype) -> np.dtype:
    """The NumPy dtype of ``dtype`` (a cudalite type, a NumPy dtype/type or a string)."""
    if dtype is None:
        return np.dtype(np.float64)
    if isinstance(dtype, np.dtype):
        return dtype
    if isinstance(dtype, types.Type):
        return types.as_dtype(dtype)
    return np.dtype(dtype)


def normalize_shape(shape) -> tuple:
    """``shape`` as a tuple of ints (an int is a 1-d shape)."""
    if isinstance(shape, (tuple, list)):
        return tuple(int(s) for s in shape)
    return (int(shape),)
