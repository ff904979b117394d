"""Typing of ``carray(ptr, shape, dtype=None)`` / ``farray(...)`` in device code: an
array view over the memory a ``CPointer`` points at.

``shape`` is an integer or a tuple of integers (run-time values allowed); the result
is a C- (``carray``) or F-layout (``farray``) array of the pointer's element type.
``dtype``, when given (a type, NumPy type or dtype string), must equal that element
type, as in numba; of a ``voidptr`` it is required and gives the element type.
"""

from __future__ import annotations

from ...pointer_arrays import carray, farray
from ...registry import registry
from ...types import Array, Boolean, CPointer, Integer, NoneType, Signature, Tuple
from ...types._containers import MAX_NDIM
from .intrinsics import check_arity
from .memory import const_dtype

__all__ = []


def _shape_ndim(site, t):
    """The number of dimensions a shape of type ``t`` gives, or a TypingError."""
    def is_int(x):
        return isinstance(x, Integer) and not isinstance(x, Boolean)

    if is_int(t):
        return 1
    if isinstance(t, Tuple) and t.types and all(is_int(x) for x in t.types):
        if len(t.types) > MAX_NDIM:
            raise site.error(f"arrays have at most {MAX_NDIM} dimensions")
        return len(t.types)
    raise site.error(f"the shape must be an integer or a tuple of integers, not {t}")


def _typer(layout):
    def typer(site):
        check_arity(site, 2, 3)
        ptr = site.args[0]
        if not isinstance(ptr, CPointer):
            raise site.error(f"the first argument must be a pointer (CPointer), not {ptr}")
        ndim = _shape_ndim(site, site.args[1])
        dtype = ptr.dtype
        given = len(site.args) > 2 and not (site.is_const(2) and site.consts[2] is None)
        if isinstance(dtype, NoneType):  # a voidptr: the dtype says what the memory holds
            if not given:
                raise site.error("a voidptr has no element type: pass the dtype, carray(ptr, shape, dtype)")
            dtype = const_dtype(site, 2)
        elif given:
            want = const_dtype(site, 2)
            if want != dtype:
                raise site.error(f"mismatching dtype '{want}' for pointer type '{ptr}'")
        return Signature(Array(dtype, ndim, layout), tuple(site.args))

    return typer


registry.call(carray, params=("ptr", "shape", "dtype"), name="carray")(_typer("C"))
registry.call(farray, params=("ptr", "shape", "dtype"), name="farray")(_typer("F"))
