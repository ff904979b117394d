"""Typing of Python builtins in device code: casts (int, float, bool, complex),
abs, min, max, round, pow, divmod, len, and the number attributes ``.real``,
``.imag`` and ``.conjugate()``.

The result types are numba-cuda's (``numba/cuda/typing/builtins.py``: the ``Int``,
``Float``, ``Complex``, ``Bool``, ``Abs``, ``Round`` and ``DivMod`` templates, whose
``ConcreteTemplate`` cases are chosen by the fewest unsafe, then safe, then promoting
conversions, the first listed case winning a tie):

* ``int(x)`` keeps an integer's own type (``int(uint32) -> uint32``); a float or a
  bool gives int64;
* ``float(x)`` keeps a float's width (float16/float32/float64); an integer or a bool
  gives float64;
* ``complex(x)`` is complex64 for a float32 ``x`` and complex128 for anything else
  (complex64 included); ``complex(re, im)`` is complex64 when both are float32;
* ``bool(x)`` is a boolean;
* ``abs(bool)`` is int8 (the first integer case a bool converts to safely);
* ``round(x)`` is int64; ``round(x, n)`` keeps a float32/float64, gives float32 for
  a float16, and for an integer ``x`` the float its value converts to safely:
  float32 for bool, int8, uint8 and int16, float64 for the rest;
* ``divmod`` of two integers is ``//``'s type, except an uint64 with a signed
  integer: no integer case takes both safely, so both become float64.
"""

from __future__ import annotations

import builtins as _b
from functools import reduce

from ..._compat import is_number, numeric_kind
from ...registry import registry
from ...types import (
    Array, Boolean, Complex, Float, Integer, NPDatetime, NPTimedelta, Signature, Tuple, boolean, complex64,
    complex128, float32, float64, int8, int64,
)
from .arithmetic import binop_signature, int_result
from .casts import unify

__all__ = [
    "abs_signature", "minmax_signature", "builtin_minmax_signature", "round_signature", "builtin_cast_result",
    "divmod_signature",
]


def _number_args(site, n=None):
    if n is not None and len(site.args) != n:
        raise site.error(f"takes {n} argument(s) but {len(site.args)} were given")
    if not all(is_number(a) for a in site.args):
        return False
    return True


def _int_of(a):
    """numba's ``int(a)``: an integer keeps its type, a float or a bool is int64."""
    if isinstance(a, (NPDatetime, NPTimedelta)):
        return int64
    if isinstance(a, Integer):
        return a
    return int64


def _float_of(a):
    """numba's ``float(a)``: a float keeps its width, an integer or a bool is float64."""
    return a if isinstance(a, Float) else float64


def _complex_of(*parts):
    """numba's ``complex(re[, im])``: complex64 when every part is float32."""
    return complex64 if all(p == float32 for p in parts) else complex128


def builtin_cast_result(callee, arg, default):
    """The result type of ``callee(arg)`` when ``callee`` is the Python builtin ``int``,
    ``float``, ``complex`` or ``bool`` (numba's rules, see the module docstring); else
    ``default`` (the target of a ``types.int32(x)`` or ``np.float32(x)`` cast, which is
    always the named type)."""
    if callee is int:
        return _int_of(arg)
    if callee is float:
        return _float_of(arg)
    if callee is complex:
        return _complex_of(arg)
    if callee is bool:
        return boolean
    return default


@registry.call(int, params=("x",))
def _int(site):
    if not _number_args(site, 1) or numeric_kind(site.args[0]) == "c":
        return None
    return Signature(_int_of(site.args[0]), site.args)


@registry.call(float, params=("x",))
def _float(site):
    if not _number_args(site, 1) or numeric_kind(site.args[0]) == "c":
        return None
    return Signature(_float_of(site.args[0]), site.args)


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
    return Signature(_complex_of(*site.args), site.args)


def abs_signature(a) -> Signature | None:
    """abs(int) keeps the integer type; abs(complex) is the underlying float; abs(bool)
    is int8 (numba's first integer case, ``abs(True) -> int8``)."""
    if isinstance(a, Boolean):
        return Signature(int8, (int8,))
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


def _round_float(t):
    """The float ``round(t, n)`` computes in (numba's cases ``(float32, intp)`` then
    ``(float64, intp)``): float32/float64 kept, float16 promoted to float32, an integer
    or bool to float32 when that conversion is safe (at most int16/uint8), else float64."""
    if isinstance(t, Float):
        return float32 if t.bitwidth <= 32 else float64
    if isinstance(t, Boolean):
        return float32
    if isinstance(t, Integer) and not isinstance(t, (NPDatetime, NPTimedelta)):
        return float32 if t.bitwidth <= (16 if t.signed else 8) else float64
    return None


def round_signature(args) -> Signature | None:
    """round(x) -> int64 (Python 3); round(x, n) is a float (:func:`_round_float`)."""
    if len(args) == 1 and isinstance(args[0], (Float, Integer, Boolean)):
        return Signature(int64, args)
    if len(args) == 2 and isinstance(args[1], (Integer, Boolean)):
        f = _round_float(args[0])
        if f is not None:
            return Signature(f, (f, int64))
    return None


@registry.call(round, params=("number", "ndigits"))
def _round(site):
    return round_signature(site.args)


@registry.call(pow, params=("base", "exp"))
def _pow(site):
    if len(site.args) != 2:
        raise site.error("takes exactly two arguments (three-argument pow is not supported)")
    return binop_signature("**", *site.args)


def divmod_signature(a, b) -> Signature | None:
    """``divmod(a, b)``: ``(q, r)`` of ``//``'s type, except that a uint64 with a signed
    integer gives two float64 (numba's cases are one type for both operands, and
    only float64 takes both without an unsafe conversion)."""
    ints = [t for t in (a, b) if numeric_kind(t) == "i"]
    if (len(ints) == 2 and any(t.signed for t in ints)
            and any(not t.signed and t.bitwidth == 64 for t in ints)):
        return Signature(Tuple((float64, float64)), (float64, float64))
    sig = binop_signature("//", a, b)
    if sig is None:
        return None
    r = sig.return_type
    return Signature(Tuple((r, r)), sig.args)


@registry.call(divmod)
def _divmod(site):
    if len(site.args) != 2:
        raise site.error("takes exactly two arguments")
    return divmod_signature(*site.args)


@registry.call(tuple, params=("iterable",))
def _tuple(site):
    """``tuple()`` is the empty tuple; ``tuple(t)`` of a tuple is ``t`` (numba's rule:
    other iterables have no length known at compile time)."""
    if not site.args:
        return Signature(Tuple(()), ())
    if len(site.args) == 1 and isinstance(site.args[0], Tuple):
        return Signature(site.args[0], site.args)
    if len(site.args) == 1:
        raise site.error(f"tuple() of {site.args[0]} is not supported in device code (only of a tuple: a "
                         "tuple's length must be known at compile time)")
    raise site.error(f"takes at most 1 argument ({len(site.args)} given)")


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
