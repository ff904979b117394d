"""Typing of the device-side intrinsics of :mod:`cudalite.core.device_api`:
thread indexing (``threadIdx.x`` ... as int32, ``grid``/``gridsize`` as int64),
barriers and fences, bit intrinsics (``popc``, ``brev``, ``clz``, ``ffs``),
``fma``, ``cbrt``, ``selp`` and the half-precision ``cuda.fp16`` functions.

Types follow numba.cuda: special registers are ``int32``, ``grid(1)`` is an
``int64`` and ``grid(2|3)`` a ``UniTuple(int64, n)``; ``syncthreads_count/and/or``
return ``int32``; ``ffs`` returns ``uint32``; the fp16 comparisons return bool.
"""

from __future__ import annotations

from functools import reduce

from ... import device_api as api
from ..._compat import numeric_kind
from ...registry import registry
from ...types import (
    Float, Integer, Signature, UniTuple, boolean, float16, float32, float64, int32, int64,
    uint32, void,
)
from .._records import Fp16Op, GridDims, Resolved
from .arithmetic import promote

__all__ = ["SREG_VALUES", "check_arity"]

SREG_VALUES = {}  # DeviceValue -> PTX special register name (read-only table)
for _ns, _reg in (("threadIdx", "tid"), ("blockIdx", "ctaid"), ("blockDim", "ntid"),
                  ("gridDim", "nctaid")):
    for _a in "xyz":
        SREG_VALUES[getattr(getattr(api, _ns), _a)] = f"{_reg}.{_a}"
SREG_VALUES[api.laneid] = "laneid"
SREG_VALUES[api.warpsize] = "warpsize"


def check_arity(site, lo, hi=None):
    hi = lo if hi is None else hi
    n = len(site.args)
    if not lo <= n <= hi:
        want = f"{lo}" if lo == hi else f"{lo} to {hi}"
        raise site.error(f"takes {want} argument(s) but {n} were given")


def _sreg_typer(site):
    return int32


for _v in SREG_VALUES:
    registry.value(_v)(_sreg_typer)


# -- grid / gridsize ---------------------------------------------------------------------------
def _grid_typer(site):
    check_arity(site, 1)
    ndim = site.const(0, "number of dimensions")
    if ndim not in (1, 2, 3) or isinstance(ndim, bool):
        raise site.error(f"the number of dimensions must be 1, 2 or 3, not {ndim!r}")
    return Resolved(Signature(int64 if ndim == 1 else UniTuple(int64, ndim), (site.args[0],)), GridDims(ndim))


registry.call(api.grid, params=("ndim",), name="cuda.grid")(_grid_typer)
registry.call(api.gridsize, params=("ndim",), name="cuda.gridsize")(_grid_typer)


# -- barriers and fences ------------------------------------------------------------------------
def _no_args(site):
    check_arity(site, 0)
    return Signature(void, ())


for _f in (api.syncthreads, api.threadfence, api.threadfence_block, api.threadfence_system):
    registry.call(_f, name=_f.__qualname__)(_no_args)


def _predicate(site):
    check_arity(site, 1)
    if numeric_kind(site.args[0]) not in ("b", "i"):
        raise site.error(f"the predicate must be a bool or an integer, not {site.args[0]}")
    return Signature(int32, (boolean,))


for _f in (api.syncthreads_count, api.syncthreads_and, api.syncthreads_or):
    registry.call(_f, params=("predicate",), name=_f.__qualname__)(_predicate)


@registry.call(api.syncwarp, params=("mask",), name="cuda.syncwarp")
def _syncwarp(site):
    check_arity(site, 0, 1)
    if site.args and not isinstance(site.args[0], Integer):
        raise site.error(f"the mask must be an integer, not {site.args[0]}")
    return Signature(void, (uint32,) * len(site.args))


# -- bit intrinsics -----------------------------------------------------------------------------
def _int_arg(site):
    check_arity(site, 1)
    t = site.args[0]
    if numeric_kind(t) == "b":
        t = int32
    if not isinstance(t, Integer):
        raise site.error(f"expects an integer argument, not {t}")
    if t.bitwidth < 32:
        t = Integer(32, t.signed)
    return t


@registry.call(api.popc, params=("x",), name="cuda.popc")
def _popc(site):
    t = _int_arg(site)
    return Signature(t, (t,))


@registry.method(Integer, "bit_count")
def _bit_count(site):
    """``i.bit_count()``: numba's is ``cuda.popc(i)`` (the set bits of the value's
    two's-complement pattern, so a negative int differs from CPython's)."""
    if site.args:
        return None
    t = site.recv if site.recv.bitwidth >= 32 else Integer(32, site.recv.signed)
    return Signature(t, ())


@registry.call(api.brev, params=("x",), name="cuda.brev")
def _brev(site):
    t = _int_arg(site)
    return Signature(t, (t,))


@registry.call(api.clz, params=("x",), name="cuda.clz")
def _clz(site):
    t = _int_arg(site)
    return Signature(t, (t,))


@registry.call(api.ffs, params=("x",), name="cuda.ffs")
def _ffs(site):
    t = _int_arg(site)
    return Signature(uint32, (t,))


# -- floating-point intrinsics --------------------------------------------------------------------
def _float_args(site, n):
    check_arity(site, n)
    kinds = [numeric_kind(a) for a in site.args]
    if any(k not in "bif" or k == "" for k in kinds):
        raise site.error(f"expects real numbers, not ({', '.join(map(str, site.args))})")
    floats = [a for a in site.args if isinstance(a, Float)]
    t = reduce(promote, floats) if floats else float64
    if t == float16:
        t = float32
    return t


@registry.call(api.fma, params=("a", "b", "c"), name="cuda.fma")
def _fma(site):
    t = _float_args(site, 3)
    return Signature(t, (t, t, t))


@registry.call(api.cbrt, params=("a",), name="cuda.cbrt")
def _cbrt(site):
    t = _float_args(site, 1)
    return Signature(t, (t,))


@registry.call(api.selp, params=("a", "b", "c"), name="cuda.selp")
def _selp(site):
    check_arity(site, 3)
    pred, a, b = site.args
    if numeric_kind(pred) not in ("b", "i"):
        raise site.error(f"the predicate must be a bool or an integer, not {pred}")
    if not (numeric_kind(a) and numeric_kind(b)):
        raise site.error(f"the values must be numbers, not {a} and {b}")
    t = a if a == b else promote(a, b)
    return Signature(t, (boolean, t, t))


# -- half precision (cuda.fp16) ---------------------------------------------------------------------
_FP16_ARITY = {"hadd": 2, "hsub": 2, "hmul": 2, "hdiv": 2, "hneg": 1, "habs": 1, "hfma": 3,
               "hmax": 2, "hmin": 2, "heq": 2, "hne": 2, "hgt": 2, "hge": 2, "hlt": 2, "hle": 2}
_FP16_COMPARE = ("heq", "hne", "hgt", "hge", "hlt", "hle")


def _fp16_typer(name):
    def typer(site):
        n = _FP16_ARITY[name]
        check_arity(site, n)
        for a in site.args:
            if numeric_kind(a) not in ("b", "i", "f"):
                raise site.error(f"expects float16 arguments, not {a}")
        return Resolved(Signature(boolean if name in _FP16_COMPARE else float16, (float16,) * n), Fp16Op(name))

    return typer


_PARAMS = {1: ("a",), 2: ("a", "b"), 3: ("a", "b", "c")}
for _name in api.FP16_OPS:
    registry.call(getattr(api.fp16, _name), params=_PARAMS[_FP16_ARITY[_name]],
                  name=f"cuda.fp16.{_name}")(_fp16_typer(_name))
