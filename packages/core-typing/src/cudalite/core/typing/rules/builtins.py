"""Typing of Python builtins in device code: casts (int, float, bool, complex),
abs, min, max, round, pow, divmod, len, and the number attributes ``.real``,
``.imag`` and ``.conjugate()``."""

from __future__ import annotations

import builtins as _b
from functools import reduce

from ..._compat import is_number, numeric_kind
from ...registry import registry
from ...types import (
    Array, Boolean, Complex, Float, Integer, Signature, Tuple, boolean, complex128, float64,
    int64,
)
from .arithmetic import binop_signature, int_result
from .casts import unify

__all__ = ["abs_signature", "minmax_signature", "builtin_minmax_signature", "round_signature"]


def _number_args(site, n=None):
    if n is not None and len(site.args) != n:
        raise site.error(f"takes {n} argument(s) but {len(site.args)} were given")
    if not all(is_number(a) for a in site.args):
        return False
    return True


@registry.call(int, params=("x",))
def _int(site):
    if not _number_args(site, 1) or numeric_kind(site.args[0]) == "c":
        return None
    return Signature(int64, site.args)


@registry.call(float, params=("x",))
def _float(site):
    if not _number_args(site, 1) or numeric_kind(site.args[0]) == "c":
        return None
    return Signature(float64, site.args)


@registry.call(bool, params=("x",))
def _bool(site):
    if len(site.args) != 1:
        raise site.error("takes exactly one argument")
    return Signature(boolean, site.args) if is_number(site.args[0]) else None


@registry.call(complex, params=("real", "imag"))
def _complex(site):
    if not 1 <= len(site.args) <= 2 or not _number_args(site):
        return None
    if len(site.args) == 2 and any(numeric_kind(a) == "c" for a in site.args):
        return None
    return Signature(complex128, site.args)


def abs_signature(a) -> Signature | None:
    """abs(int) keeps the integer type; abs(complex) is the underlying float."""
    if isinstance(a, Boolean):
        return Signature(int64, (int64,))
    if isinstance(a, (Integer, Float)):
        return Signature(a, (a,))
    if isinstance(a, Complex):
        return Signature(a.underlying, (a,))
    return None


@registry.call(abs, params=("x",))
def _abs(site):
    if len(site.args) != 1:
        raise site.error("takes exactly one argument")
    return abs_signature(site.args[0])


def minmax_signature(args) -> Signature | None:
    """min/max of numbers (unified type) or of one homogeneous tuple."""
    if len(args) == 1 and isinstance(args[0], Tuple) and args[0].types:
        t = reduce(unify, args[0].types)
        return Signature(t, args) if t is not None and is_number(t) else None
    if len(args) < 2 or not all(is_number(a) for a in args):
        return None
    if any(numeric_kind(a) == "c" for a in args):
        return None
    t = reduce(unify, args)
    return Signature(t, (t,) * len(args))


def builtin_minmax_signature(args) -> Signature | None:
    """Python's ``min``/``max`` as numba types them: the unified type of the numbers,
    the arguments kept as given (the lowering needs them: numba-cuda lowers exactly two
    float32/float64 arguments to NaN-ignoring ``fmin``/``fmax``, and every other call,
    mixed int/float, three or more arguments or a tuple, to Python's left-to-right
    comparison with the types unified pair by pair)."""
    sig = minmax_signature(args)
    if sig is None or (len(args) == 1 and isinstance(args[0], Tuple)):
        return sig
    return Signature(sig.return_type, tuple(args))


@registry.call(min)
def _min(site):
    return builtin_minmax_signature(site.args)


@registry.call(max)
def _max(site):
    return builtin_minmax_signature(site.args)


def round_signature(args) -> Signature | None:
    """round(x) -> int64 (Python 3); round(x, n) keeps a float's type."""
    if len(args) == 1 and isinstance(args[0], (Float, Integer, Boolean)):
        return Signature(int64, args)
    if len(args) == 2 and isinstance(args[1], (Integer, Boolean)):
        if isinstance(args[0], Float):
            return Signature(args[0], (args[0], int64))
        if isinstance(args[0], Integer):
            return Signature(args[0], (args[0], int64))
    return None


@registry.call(round, params=("number", "ndigits"))
def _round(site):
    return round_signature(site.args)


@registry.call(pow, params=("base", "exp"))
def _pow(site):
    if len(site.args) != 2:
        raise site.error("takes exactly two arguments (three-argument pow is not supported)")
    return binop_signature("**", *site.args)


@registry.call(divmod)
def _divmod(site):
    if len(site.args) != 2:
        raise site.error("takes exactly two arguments")
    sig = binop_signature("//", *site.args)
    if sig is None:
        return None
    r = sig.return_type
    return Signature(Tuple((r, r)), sig.args)


@registry.call(len, params=("obj",))
def _len(site):
    if len(site.args) != 1:
        raise site.error("takes exactly one argument")
    a = site.args[0]
    if isinstance(a, Array) and a.ndim == 0:
        raise site.error(f"len() of unsized object ({a}: a 0-d array has no length; use .size)")
    if isinstance(a, (Array, Tuple)):
        return Signature(int64, (a,))
    return None


@registry.call(_b.range)
def _range(site):
    raise site.error("range objects can only be used directly in a 'for' loop")


# -- number attributes ---------------------------------------------------------------
def _real_type(t):
    if isinstance(t, Complex):
        return t.underlying
    if isinstance(t, Boolean):
        return int_result(t)
    return t


for _cls in (Integer, Float, Complex, Boolean):
    registry.attr(_cls, "real")(_real_type)
    registry.attr(_cls, "imag")(_real_type)


@registry.method(Complex, "conjugate")
@registry.method(Float, "conjugate")
@registry.method(Integer, "conjugate")
def _conjugate(site):
    if site.args:
        return None
    return Signature(site.recv, ())
