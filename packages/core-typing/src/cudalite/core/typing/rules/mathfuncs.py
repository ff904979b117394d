"""Typing of the ``math`` and ``cmath`` modules.

``math`` functions take numbers and work in the float type of their argument
(integers and booleans compute in float64, float16 in float16 with float32
arithmetic under the hood); ``floor``/``ceil``/``trunc`` too return that float, as
in numba-cuda (not Python 3's int: ``math.floor(2.5) == 2.0``, ``math.ceil(-0.5) ==
-0.0``); predicates return bool.  ``cmath`` functions take complex numbers.
"""

from __future__ import annotations

import cmath
import math

from ..._compat import numeric_kind
from ...registry import registry
from ...types import (
    BFloat16, Complex, Float, Signature, Tuple, boolean, complex128, float64, int32,
)
from .arithmetic import int_result, promote
from .bf16arith import bf16_common

__all__ = ["MATH_UNARY", "MATH_BINARY", "MATH_PREDICATES", "CMATH_UNARY", "float_of"]

# The one list of the ``math`` functions of one float argument and of two (typed here;
# the nvvm lowering, cudalite.nvvm.lower._math, registers a lowering for each name)
MATH_UNARY = (
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin", "sinh", "tan",
    "tanh", "exp", "expm1", "exp2", "log10", "log1p", "log2", "sqrt", "cbrt", "erf", "erfc",
    "gamma", "lgamma", "fabs", "degrees", "radians", "floor", "ceil", "trunc",
)
MATH_BINARY = ("atan2", "copysign", "fmod", "hypot", "pow", "remainder", "nextafter")
MATH_PREDICATES = ("isnan", "isinf", "isfinite")
CMATH_UNARY = ("sqrt", "exp", "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh",
               "asin", "acos", "atan", "asinh", "acosh", "atanh")


def float_of(t):
    """The float type a math function computes in for argument type ``t``."""
    if isinstance(t, BFloat16):  # computed in float32, rounded to bfloat16 (numba.cuda.bf16's h* functions)
        return t
    k = numeric_kind(t)
    if k in ("b", "i"):
        return float64
    if k == "f":
        return t
    return None


def _reg(name, params):
    fn = getattr(math, name, None)
    if fn is None:
        return lambda typer: typer
    return registry.call(fn, params=params, name=f"math.{name}")


def _unary(site):
    if len(site.args) != 1:
        raise site.error(f"takes exactly one argument ({len(site.args)} given)")
    f = float_of(site.args[0])
    return None if f is None else Signature(f, (f,))


def _binary(site):
    if len(site.args) != 2:
        raise site.error(f"takes exactly two arguments ({len(site.args)} given)")
    fs = [float_of(a) for a in site.args]
    if None in fs:
        return None
    f = bf16_common(*fs) if any(isinstance(t, BFloat16) for t in fs) else promote(*fs)
    return Signature(f, (f, f))


for _n in MATH_UNARY:
    _reg(_n, ("x",))(_unary)
for _n in MATH_BINARY:
    _reg(_n, ("x", "y"))(_binary)


@_reg("log", ("x", "base"))
def _log(site):
    if len(site.args) == 1:
        return _unary(site)
    return _binary(site)


def _predicate(site):
    if len(site.args) != 1:
        raise site.error("takes exactly one argument")
    (a,) = site.args
    k = numeric_kind(a)
    if k in ("b", "i", "f") or isinstance(a, BFloat16):
        return Signature(boolean, (a,))
    return None


for _n in MATH_PREDICATES:
    _reg(_n, ("x",))(_predicate)


@_reg("ldexp", ("x", "i"))
def _ldexp(site):
    if len(site.args) != 2:
        raise site.error(f"takes exactly two arguments ({len(site.args)} given)")
    x, i = site.args
    f = float_of(x)
    if f is None or numeric_kind(i) not in ("b", "i"):
        return None
    return Signature(f, (f, int32))


@_reg("frexp", ("x",))
def _frexp(site):
    f = float_of(site.args[0]) if len(site.args) == 1 else None
    return None if f is None else Signature(Tuple((f, int32)), (f,))


@_reg("modf", ("x",))
def _modf(site):
    f = float_of(site.args[0]) if len(site.args) == 1 else None
    return None if f is None else Signature(Tuple((f, f)), (f,))


@_reg("gcd", None)
def _gcd(site):
    if not site.args or any(numeric_kind(a) not in ("b", "i") for a in site.args):
        return None
    r = int_result(*site.args[:2]) if len(site.args) >= 2 else int_result(site.args[0])
    return Signature(r, (r,) * len(site.args))


# -- cmath ----------------------------------------------------------------------------------
def _complex_of(t):
    k = numeric_kind(t)
    if k == "c":
        return t
    if k in ("b", "i", "f"):
        return Complex(64, t) if t == Float(32) else complex128
    return None


def _creg(name, params):
    return registry.call(getattr(cmath, name), params=params, name=f"cmath.{name}")


def _cunary(site):
    if len(site.args) != 1:
        raise site.error("takes exactly one argument")
    c = _complex_of(site.args[0])
    return None if c is None else Signature(c, (c,))


for _n in CMATH_UNARY:
    _creg(_n, ("z",))(_cunary)


@_creg("log", ("z", "base"))
def _clog(site):
    if len(site.args) == 2:
        cs = [_complex_of(a) for a in site.args]
        if None in cs:
            return None
        c = promote(*cs)
        return Signature(c, (c, c))
    return _cunary(site)


@_creg("phase", ("z",))
def _phase(site):
    c = _complex_of(site.args[0]) if len(site.args) == 1 else None
    return None if c is None else Signature(c.underlying, (c,))


@_creg("polar", ("z",))
def _polar(site):
    c = _complex_of(site.args[0]) if len(site.args) == 1 else None
    return None if c is None else Signature(Tuple((c.underlying, c.underlying)), (c,))


@_creg("rect", ("r", "phi"))
def _rect(site):
    if len(site.args) != 2:
        return None
    fs = [float_of(a) for a in site.args]
    if None in fs:
        return None
    f = promote(*fs)
    return Signature(_complex_of(f), (f, f))


def _cpred(site):
    c = _complex_of(site.args[0]) if len(site.args) == 1 else None
    return None if c is None else Signature(boolean, (c,))


for _n in ("isnan", "isinf", "isfinite"):
    _creg(_n, ("z",))(_cpred)
