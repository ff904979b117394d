"""Type keys: what a kernel is specialized on, and how keys meet declared signatures.

Each argument kind (:mod:`.kinds`) gives a hashable *type key* per argument:
``(np.dtype, ndim, layout)`` for every kind of array (so a DeviceNDArray, a CuPy
array and a torch tensor of the same type share one specialization), the Python or
NumPy scalar class for numbers, a dtype for records and datetimes, the member for a
plain Enum, ``("tuple", *keys)`` / ``("namedtuple", cls, *keys)`` for tuples (``-host``
when they hold host data).  :func:`key_to_type` gives the cudalite type compiled for a
key; :func:`compatible` and :func:`eager_rank` decide which eager signature a launch
takes (numba's conversion kinds).  Pure functions: no GPU.
"""

from __future__ import annotations

import enum

from cudalite.core.numpy_support import lazy_numpy as np  # NumPy loads on first use
from cudalite.core.types import (
    Array, Boolean, Complex, CPointer, Float, Integer, NamedTuple, Tuple, Type, type_from_dtype, typeof_constant,
)

__all__ = ["key_to_type", "compatible", "eager_rank", "SCALAR_CLASSES"]

#: Python number classes and the NumPy dtype they are passed as
SCALAR_CLASSES = {float: "float64", int: "int64", bool: "bool", complex: "complex128"}
_NAMED_KEYS = ("namedtuple", "namedtuple-host")


def key_to_type(key):
    """A type key -> the cudalite type compiled for it."""
    if isinstance(key, Type):  # an extension type: its own key (``.extension``)
        return key
    if isinstance(key, enum.Enum):
        return typeof_constant(key)
    if isinstance(key, tuple):
        if key and key[0] in _NAMED_KEYS:  # ("namedtuple", class, *item keys)
            return NamedTuple([key_to_type(k) for k in key[2:]], key[1])
        if key and isinstance(key[0], str):
            return Tuple([key_to_type(k) for k in key[1:]])
        dtype, ndim, layout = key
        et = type_from_dtype(dtype)
        if et is None:
            raise TypeError(f"arrays of dtype {dtype} cannot be passed to a kernel")
        return Array(et, ndim, layout)
    if key in SCALAR_CLASSES:
        return type_from_dtype(np.dtype(SCALAR_CLASSES[key]))
    t = type_from_dtype(key)
    if t is None:
        what = key.__name__ if isinstance(key, type) else f"record of dtype {key}"
        raise TypeError(f"a {what} cannot be passed to a kernel")
    return t


def _scalar_rank(t):
    return 0 if isinstance(t, Boolean) else 1 if isinstance(t, Integer) else 2 if isinstance(t, Float) else 3


def _same_size_numbers(a, b) -> bool:
    return (isinstance(a, (Integer, Float, Complex)) and isinstance(b, (Integer, Float, Complex))
            and not isinstance(a, Boolean) and not isinstance(b, Boolean) and a.bitwidth == b.bitwidth)


def compatible(key, param, reinterpret=False) -> int:
    """How well an argument of type ``key`` fits a declared parameter type:
    -1 (not at all), 0 (by conversion), 1 (exactly).  With ``reinterpret`` (a kernel
    with one eager signature, as numba's "specialized" dispatcher) an array whose
    element type differs from the declared one but has the same size also fits: its
    memory is read as the declared type."""
    actual = key_to_type(key)
    if actual == param:
        return 1
    if isinstance(param, Array) and isinstance(actual, Array):
        same = actual.dtype == param.dtype or (reinterpret and _same_size_numbers(actual.dtype, param.dtype))
        ok = same and actual.ndim == param.ndim and (param.layout == "A" or param.layout == actual.layout)
        return 0 if ok else -1
    if isinstance(param, Tuple) and isinstance(actual, Tuple) and len(param) == len(actual):
        if isinstance(param, NamedTuple) != isinstance(actual, NamedTuple) or (
                isinstance(param, NamedTuple) and param.cls is not actual.cls):
            return -1
        items = key[2:] if key[0] in _NAMED_KEYS else key[1:]
        scores = [compatible(k, p, reinterpret) for k, p in zip(items, param.types)]
        return -1 if min(scores, default=1) < 0 else min(scores, default=1)
    if isinstance(param, CPointer) and isinstance(actual, Integer) and not isinstance(actual, Boolean):
        return 0  # an int address (numba's: e.g. a device array's __cuda_array_interface__ data pointer)
    scalar = (Boolean, Integer, Float, Complex)
    if isinstance(param, scalar) and isinstance(actual, scalar):
        return 0 if _scalar_rank(actual) <= _scalar_rank(param) else -1
    return -1


def eager_rank(keys, params, reinterpret=False):
    """``(unsafe, safe, promote)`` conversion counts of argument type ``keys`` to an
    eager signature's ``params`` (lower is better: numba's kinds, see
    ``cudalite.core.typing.rules.conversion_rank``), or None when one does not fit."""
    # lazy: the typing rules load with the compiler, not with the launch path
    from cudalite.core.typing.rules.conversion_rank import PROMOTE, SAFE, UNSAFE, conversion_rank

    counts = {UNSAFE: 0, SAFE: 0, PROMOTE: 0}
    for key, param in zip(keys, params):
        fit = compatible(key, param, reinterpret)
        if fit < 0:
            return None
        if fit == 0:  # by conversion: numbers by numba's kinds; arrays (layout, reinterpreted) promote
            rank = conversion_rank(key_to_type(key), param)
            counts[PROMOTE if rank is None or rank not in counts else rank] += 1
    return counts[UNSAFE], counts[SAFE], counts[PROMOTE]
