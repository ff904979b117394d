"""Typing of array views that reinterpret the element type: ``arr.real`` /
``arr.imag`` (a complex array's components, as float views sharing its memory)
and ``arr.view(dtype)`` (numba-cuda's rules: the same memory read as another
scalar type)."""

from __future__ import annotations

from ...registry import registry
from ...types import Array, Complex, Signature
from .memory import const_dtype

__all__ = []


def _component_view(t):
    return t.copy(dtype=t.dtype.underlying, layout="A")


@registry.attr(Array, "real")
def _real(t):
    """A float view of a complex array's real parts (layout 'A': the stride skips
    the other component); a real array's ``.real`` is the array itself."""
    return _component_view(t) if isinstance(t.dtype, Complex) else t


@registry.attr(Array, "imag")
def _imag(t):
    """The imaginary parts of a complex array, as a view; refused for a real array
    (NumPy makes a fresh array of zeros, which needs an allocation)."""
    return _component_view(t) if isinstance(t.dtype, Complex) else None


@registry.method(Array, "view", params=("dtype",))
def _view(site):
    arr = site.recv
    if len(site.args) != 1:
        raise site.error(f"array.view() takes one argument (a dtype), got {len(site.args)}")
    dtype = const_dtype(site, 0)
    if not dtype.is_scalar:
        raise site.error(f"array.view() needs a scalar dtype, not {dtype}")
    if arr.ndim == 0:
        raise site.error("array.view() of a 0-d array is not supported in device code")
    if arr.layout == "F" and arr.ndim > 1:
        raise site.error("array.view() of an F-ordered array is not supported in device code")
    arg = site.args[0]
    return Signature(arr.copy(dtype=dtype), (arg,))


@registry.method(Array, "copy")
def _copy(site):
    raise site.error("array.copy() allocates a new array, which cudalite's device code cannot do "
                     "(numba-cuda needs its NRT device heap for it); copy into a cuda.local.array "
                     "or an output array instead")
