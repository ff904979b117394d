"""Typing of ``arr.ctypes`` and ``arr.ctypes.data`` in device code: the address of
an array's data as an integer (uint64), as NumPy's ``ndarray.ctypes.data`` gives on
the host (e.g. to check the alignment of a local or shared array)."""

from __future__ import annotations

from ...registry import registry
from ...types import Array, ArrayCTypes, uint64

__all__ = []


@registry.attr(Array, "ctypes")
def _ctypes(t):
    return ArrayCTypes(t)


@registry.attr(ArrayCTypes, "data")
def _data(t):
    return uint64
