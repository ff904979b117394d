"""Typing of ``arr.reshape(shape)`` in device code (numba's rules): a view with a new
shape over a C-contiguous array's memory.

``shape`` is an integer, a tuple of integers or several integer arguments (run-time
values allowed; one extent may be ``-1``: inferred from the size).  The result is a
C-contiguous array.  F-ordered and non-contiguous arrays are refused at compile time
(numba would need a copy for most of them); a shape whose size differs from the
array's is numba's ValueError at run time (``debug=True``), else the function returns.
"""

from __future__ import annotations

from ...registry import registry
from ...types import Array, Boolean, Integer, Signature, Tuple
from ...types._containers import MAX_NDIM

__all__ = []


def _is_int(t):
    return isinstance(t, Integer) and not isinstance(t, Boolean)


@registry.method(Array, "reshape")
def _reshape(site):
    arr, args = site.recv, tuple(site.args)
    if len(args) == 1 and isinstance(args[0], Tuple):
        items = args[0].types
    else:
        items = args
    if not all(_is_int(t) for t in items):
        raise site.error(f"the shape must be integers or a tuple of integers, not {', '.join(map(str, args))}")
    if not 1 <= len(items) <= MAX_NDIM:
        raise site.error(f"the new shape must have 1 to {MAX_NDIM} dimensions")
    if arr.layout != "C":
        raise site.error(f"only C-contiguous arrays can be reshaped in device code, not {arr}")
    return Signature(Array(arr.dtype, len(items), "C", readonly=arr.readonly), args)
