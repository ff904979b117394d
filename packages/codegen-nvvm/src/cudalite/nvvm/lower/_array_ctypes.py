"""Lowering of ``arr.ctypes`` (typing: ``rules/array_ctypes.py``): its value is the
array's data address as an i64; ``.data`` is that integer."""

from __future__ import annotations

from cudalite.core.types import Array, ArrayCTypes

from ._irtypes import I64
from ._registry import lowerings

__all__ = []


@lowerings.attr(Array, "ctypes")
def _ctypes(lc, arr, info):
    return lc.builder.ptrtoint(lc.builder.extract_value(arr, 0), I64)


@lowerings.attr(ArrayCTypes, "data")
def _data(lc, address, info):
    return address
