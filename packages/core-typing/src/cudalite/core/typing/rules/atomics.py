"""Typing of ``cuda.atomic.*``: ``op(ary, idx, val)`` returns the old value.

``idx`` is an integer (1-d arrays) or a tuple of ``ary.ndim`` integers; ``val``
is converted to the array's dtype.  Supported dtypes per operation follow
numba.cuda; ``cas(ary, idx, old, val)`` and ``compare_and_swap(ary, old, val)``
(on ``ary[0]`` of a 1-d array) compare and swap.
"""

from __future__ import annotations

from ... import device_api as api
from ..._compat import numeric_kind
from ...registry import registry
from ...types import Array, Signature, Tuple, float32, float64, int32, int64, uint32, uint64
from .._records import AtomicOp, Resolved
from .intrinsics import check_arity

__all__ = ["ATOMIC_DTYPES"]

_INTS = (int32, int64, uint32, uint64)
_NUMS = _INTS + (float32, float64)
ATOMIC_DTYPES = {
    "add": _NUMS, "sub": _NUMS, "and_": _INTS, "or_": _INTS, "xor": _INTS,
    "max": _NUMS, "min": _NUMS, "nanmax": _NUMS, "nanmin": _NUMS, "exch": _NUMS,
    "inc": (uint32, uint64), "dec": (uint32, uint64), "cas": _NUMS, "compare_and_swap": _NUMS,
}


def _check_array(site, op):
    ary = site.args[0]
    if not isinstance(ary, Array):
        raise site.error(f"the first argument must be an array, not {ary}")
    if ary.readonly:
        raise site.error(f"cannot update the read-only {ary} atomically")
    if ary.dtype not in ATOMIC_DTYPES[op]:
        names = ", ".join(map(str, ATOMIC_DTYPES[op]))
        raise site.error(f"is supported on arrays of {names}, not {ary.dtype}")
    return ary


def _check_index(site, ary, idx):
    items = idx.types if isinstance(idx, Tuple) else (idx,)
    if not all(numeric_kind(t) in ("b", "i") for t in items):
        raise site.error(f"the index must be an integer or a tuple of integers, not {idx}")
    if len(items) != ary.ndim:
        raise site.error(f"a {ary.ndim}-d array needs {ary.ndim} indices, not {len(items)}")
    return idx


def _check_value(site, i, ary):
    if numeric_kind(site.args[i]) not in ("b", "i", "f"):
        raise site.error(f"the value must be a real number, not {site.args[i]}")
    return ary.dtype


def _rmw_typer(op):
    def typer(site):
        check_arity(site, 3)
        ary = _check_array(site, op)
        idx = _check_index(site, ary, site.args[1])
        dt = _check_value(site, 2, ary)
        return Resolved(Signature(dt, (ary, idx, dt)), AtomicOp(op))

    return typer


for _op in ("add", "sub", "and_", "or_", "xor", "max", "min", "nanmax", "nanmin", "exch",
            "inc", "dec"):
    registry.call(getattr(api.atomic, _op), params=("ary", "idx", "val"),
                  name=f"cuda.atomic.{_op}")(_rmw_typer(_op))


@registry.call(api.atomic.cas, params=("ary", "idx", "old", "val"), name="cuda.atomic.cas")
def _cas(site):
    check_arity(site, 4)
    ary = _check_array(site, "cas")
    idx = _check_index(site, ary, site.args[1])
    dt = _check_value(site, 2, ary)
    _check_value(site, 3, ary)
    return Signature(dt, (ary, idx, dt, dt))


@registry.call(api.atomic.compare_and_swap, params=("ary", "old", "val"),
               name="cuda.atomic.compare_and_swap")
def _compare_and_swap(site):
    check_arity(site, 3)
    ary = _check_array(site, "compare_and_swap")
    if ary.ndim != 1:
        raise site.error(f"works on the first element of a 1-d array, not a {ary.ndim}-d array")
    dt = _check_value(site, 1, ary)
    _check_value(site, 2, ary)
    return Signature(dt, (ary, dt, dt))
