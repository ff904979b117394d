"""Typing of the warp-level primitives: ``shfl_*_sync``, the votes
(``all_sync``, ``any_sync``, ``eq_sync``, ``ballot_sync``), ``match_any_sync``,
``match_all_sync``, ``activemask`` and ``lanemask_lt``.

As in numba.cuda: masks are ``uint32`` arguments; shuffles return the value's
type (int32/int64/uint32/uint64/float32/float64; other ints widen to 32 bits);
``all/any/eq_sync`` return bool, ``ballot_sync`` and ``match_any_sync``
``uint32``, ``match_all_sync`` ``Tuple(uint32, bool)``; ``activemask`` and
``lanemask_lt`` ``uint32``.
"""

from __future__ import annotations

from ... import device_api as api
from ..._compat import numeric_kind
from ...registry import registry
from ...types import Float, Integer, Signature, Tuple, boolean, float16, float32, int32, uint32
from .intrinsics import check_arity

__all__ = ["shuffle_value_type"]


def _mask(site, i=0):
    if not isinstance(site.args[i], Integer):  # numba-cuda's words, a bool refused as well
        raise site.error(f"Mask type must be an integer, not {site.args[i]}")
    return uint32


def shuffle_value_type(t):
    """The type a value of type ``t`` is shuffled as, or None."""
    k = numeric_kind(t)
    if k == "b":
        return int32
    if isinstance(t, Integer):
        return t if t.bitwidth >= 32 else Integer(32, t.signed)
    if isinstance(t, Float):
        return float32 if t == float16 else t
    return None


def _shfl_typer(site):
    check_arity(site, 3)
    mask = _mask(site)
    vt = shuffle_value_type(site.args[1])
    if vt is None:
        raise site.error(f"cannot shuffle a value of type {site.args[1]}")
    if numeric_kind(site.args[2]) not in ("b", "i"):
        raise site.error(f"the lane argument must be an integer, not {site.args[2]}")
    return Signature(vt, (mask, vt, uint32))


registry.call(api.shfl_sync, params=("mask", "value", "src_lane"), name="cuda.shfl_sync")(_shfl_typer)
registry.call(api.shfl_up_sync, params=("mask", "value", "delta"), name="cuda.shfl_up_sync")(_shfl_typer)
registry.call(api.shfl_down_sync, params=("mask", "value", "delta"),
              name="cuda.shfl_down_sync")(_shfl_typer)
registry.call(api.shfl_xor_sync, params=("mask", "value", "lane_mask"),
              name="cuda.shfl_xor_sync")(_shfl_typer)


def _vote_typer(result):
    def typer(site):
        check_arity(site, 2)
        mask = _mask(site)
        if numeric_kind(site.args[1]) not in ("b", "i"):  # numba-cuda refuses floats
            raise site.error(f"Predicate must be an integer or boolean, not {site.args[1]}")
        return Signature(result, (mask, boolean))

    return typer


for _f in (api.all_sync, api.any_sync, api.eq_sync):
    registry.call(_f, params=("mask", "predicate"), name=_f.__qualname__)(_vote_typer(boolean))
registry.call(api.ballot_sync, params=("mask", "predicate"), name="cuda.ballot_sync")(_vote_typer(uint32))


def _match_value(site):
    t = site.args[1]
    if isinstance(t, Float) and t.bitwidth >= 32:
        return t
    vt = shuffle_value_type(t)
    if vt is None or isinstance(vt, Float):
        raise site.error(f"cannot match a value of type {t}")
    return vt


@registry.call(api.match_any_sync, params=("mask", "value"), name="cuda.match_any_sync")
def _match_any(site):
    check_arity(site, 2)
    return Signature(uint32, (_mask(site), _match_value(site)))


@registry.call(api.match_all_sync, params=("mask", "value"), name="cuda.match_all_sync")
def _match_all(site):
    check_arity(site, 2)
    return Signature(Tuple((uint32, boolean)), (_mask(site), _match_value(site)))


def _no_args_uint32(site):
    check_arity(site, 0)
    return Signature(uint32, ())


registry.call(api.activemask, name="cuda.activemask")(_no_args_uint32)
registry.call(api.lanemask_lt, name="cuda.lanemask_lt")(_no_args_uint32)
