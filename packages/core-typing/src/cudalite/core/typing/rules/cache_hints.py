"""Typing of the loads and stores with a cache operator: ``cuda.ldca/ldcg/ldcs/
ldlu/ldcv(array, i)`` return ``array[i]``; ``cuda.stcg/stcs/stwb/stwt(array, i,
value)`` store ``value`` (converted to the element type) into ``array[i]``.

As numba.cuda: the array's element type is an integer or float of 8, 16, 32 or
64 bits; ``i`` is an integer for a 1-d array or a tuple of ``ndim`` integers;
negative indices wrap; there is no bounds check.  A ``CPointer`` to such a type
works as a 1-d array (``cuda.ldcg(ptr, i)`` is ``ptr[i]``, no wraparound).
"""

from __future__ import annotations

from ... import device_api as api
from ..._compat import numeric_kind
from ...registry import registry
from ...types import Array, CPointer, Float, Integer, Signature, Tuple, void
from .intrinsics import check_arity

__all__ = []


def _check(site):
    arr, idx = site.args[0], site.args[1]
    if isinstance(arr, CPointer):
        if not isinstance(arr.dtype, (Integer, Float)) or arr.dtype.bitwidth not in (8, 16, 32, 64):
            op = site.name.rpartition(".")[2]
            raise site.error(f"{op} requires a pointer to an integer or float type (of 8, 16, 32 or 64 bits), "
                             f"not {arr}")
        if not isinstance(idx, Integer):
            raise site.error(f"Expected 1 index (an integer) for a pointer, got {idx}")
        return arr, idx
    if not isinstance(arr, Array):
        raise site.error(f"operates on arrays and pointers, not {arr}")
    if not isinstance(arr.dtype, (Integer, Float)) or arr.dtype.bitwidth not in (8, 16, 32, 64):
        op = site.name.rpartition(".")[2]
        raise site.error(f"{op} requires array of integer or float type (of 8, 16, 32 or 64 bits), not {arr}")
    if isinstance(idx, Integer):
        if arr.ndim != 1:
            raise site.error(f"Expected {arr.ndim} indices, got a scalar (the array is {arr.ndim}-d)")
    elif isinstance(idx, Tuple) and idx.types and all(isinstance(t, Integer) for t in idx.types):
        if len(idx.types) != arr.ndim:
            raise site.error(f"Expected {arr.ndim} indices, got {len(idx.types)}")
    else:
        raise site.error(f"{idx} is not a valid index (an integer, or a tuple of integers)")
    return arr, idx


def _load(site):
    check_arity(site, 2)
    arr, idx = _check(site)
    return Signature(arr.dtype, (arr, idx))


def _store(site):
    check_arity(site, 3)
    arr, idx = _check(site)
    if numeric_kind(site.args[2]) not in ("b", "i", "f"):
        raise site.error(f"the value must be a real number, not {site.args[2]}")
    return Signature(void, (arr, idx, arr.dtype))


for _n in api.CACHE_LOADS:
    registry.call(getattr(api, _n), params=("array", "i"), name=f"cuda.{_n}")(_load)
for _n in api.CACHE_STORES:
    registry.call(getattr(api, _n), params=("array", "i", "value"), name=f"cuda.{_n}")(_store)
