"""Typing of the scheduling and loop hints: ``cuda.nanosleep(ns)`` (an unsigned
32-bit duration, returns nothing) and ``cuda.literal_unroll(tuple)``.

``literal_unroll`` returns its tuple unchanged; a ``for`` loop over it iterates
the items as any tuple loop does (unrolled by the optimizer, since the count is
a constant).  Numba compiles the body once per distinct item type; here the
loop variable has one type, the items' common type, so items whose types do
not unify (an array and a number) are refused with a located error instead.
"""

from __future__ import annotations

from ... import device_api as api
from ..._compat import numeric_kind
from ...registry import registry
from ...types import Array, Signature, Tuple, uint32, void
from .intrinsics import check_arity

__all__ = []


@registry.call(api.nanosleep, params=("ns",), name="cuda.nanosleep")
def _nanosleep(site):
    check_arity(site, 1)
    if numeric_kind(site.args[0]) not in ("b", "i"):
        raise site.error(f"the duration must be an integer number of nanoseconds, not {site.args[0]}")
    return Signature(void, (uint32,))


@registry.call(api.literal_unroll, params=("container",), name="cuda.literal_unroll")
def _literal_unroll(site):
    check_arity(site, 1)
    t = site.args[0]
    if not isinstance(t, (Tuple, Array)):
        raise site.error(f"expects a tuple (or an array), not {t}")
    return Signature(t, (t,))
