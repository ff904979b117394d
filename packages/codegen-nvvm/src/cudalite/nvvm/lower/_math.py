"""Lowering of the ``math`` module through libdevice.

Each function calls ``__nv_<name>`` (float64) or ``__nv_<name>f`` (float32);
float16 computes through float32 and rounds back.  ``floor``/``ceil``/``trunc``
return a float as in numba-cuda (``math.ceil(-0.5) == -0.0``; an integer argument
computes in float64); predicates on integers are constants.
The float type to compute in is the call's result (or argument) type chosen by
:mod:`cudalite.core.typing.rules.mathfuncs`.
"""

from __future__ import annotations

import math

from llvmlite import ir

from cudalite.core.types import BFloat16, Float, Integer, float32
from cudalite.core.typing.rules.mathfuncs import MATH_BINARY, MATH_UNARY

from ._floats import libm, narrow, widen
from ._irtypes import I1, I32, value_type
from ._registry import lowerings

__all__ = ["libm", "libm_name", "is_nan", "is_inf", "is_finite", "fconst"]

# The function names are the typing rules' (one list: MATH_UNARY, MATH_BINARY); a name
# lowers to the libdevice function of the same stem except for these:
_LIBDEVICE_STEM = {"gamma": "tgamma"}
_SCALED = {"degrees": 180.0 / math.pi, "radians": math.pi / 180.0}  # a multiplication, no libdevice call


def libm_name(stem, ty):
    """libdevice name of ``stem`` for float type ``ty`` (float16 uses the float32 one)."""
    return f"__nv_{stem}{'' if ty.bitwidth == 64 else 'f'}"


def fconst(v, value):
    """A float constant of the same LLVM type as value ``v``."""
    return ir.Constant(v.type, value)


def is_nan(b, v):
    return b.fcmp_unordered("uno", v, v)


def is_inf(lc, v, ty):
    a = libm(lc, "fabs", ty, v)
    return lc.builder.fcmp_ordered("==", a, fconst(a, math.inf))


def is_finite(lc, v, ty):
    a = libm(lc, "fabs", ty, v)
    return lc.builder.fcmp_ordered("<", a, fconst(a, math.inf))


def _reg(name):
    fn = getattr(math, name, None)
    return lowerings.call(fn) if fn is not None else (lambda f: f)


def _make_unary(stem):
    def lower(lc, node, args, info):
        return libm(lc, stem, info.sig.return_type, args[0])

    return lower


def _make_binary(stem):
    def lower(lc, node, args, info):
        return libm(lc, stem, info.sig.return_type, *args)

    return lower


for _name in MATH_UNARY:
    if _name not in _SCALED:
        _reg(_name)(_make_unary(_LIBDEVICE_STEM.get(_name, _name)))
for _name in MATH_BINARY:
    _reg(_name)(_make_binary(_LIBDEVICE_STEM.get(_name, _name)))


def _scale(factor):
    def lower(lc, node, args, info):
        ty = info.sig.return_type
        x = widen(lc, args[0], ty)
        return narrow(lc, lc.builder.fmul(x, fconst(x, factor)), ty)

    return lower


for _name, _factor in _SCALED.items():
    _reg(_name)(_scale(_factor))


@_reg("log")
def _log(lc, node, args, info):
    ty = info.sig.return_type
    if len(args) == 1:
        return libm(lc, "log", ty, args[0])
    num = lc.call_libdevice(libm_name("log", ty), widen(lc, args[0], ty).type, [widen(lc, args[0], ty)])
    den = lc.call_libdevice(libm_name("log", ty), num.type, [widen(lc, args[1], ty)])
    return narrow(lc, lc.builder.fdiv(num, den), ty)


def _make_predicate(test, int_answer):
    def lower(lc, node, args, info):
        src = info.sig.args[0]
        if isinstance(src, BFloat16):
            return test(lc, widen(lc, args[0], src), float32)
        if not isinstance(src, Float):
            return ir.Constant(I1, int(int_answer))
        return test(lc, args[0], src)

    return lower


_reg("isnan")(_make_predicate(lambda lc, v, ty: is_nan(lc.builder, v), False))
_reg("isinf")(_make_predicate(is_inf, False))
_reg("isfinite")(_make_predicate(is_finite, True))


@_reg("ldexp")
def _ldexp(lc, node, args, info):
    ty = info.sig.return_type
    x = widen(lc, args[0], ty)
    r = lc.call_libdevice(libm_name("ldexp", ty), x.type, [x, args[1]])
    return narrow(lc, r, ty)


@_reg("frexp")
def _frexp(lc, node, args, info):
    ty = info.sig.args[0]
    b = lc.builder
    x = widen(lc, args[0], ty)
    slot = lc.alloca(I32, name="frexp.exp")
    m = narrow(lc, lc.call_libdevice(libm_name("frexp", ty), x.type, [x, slot]), ty)
    out = ir.Constant(value_type(info.sig.return_type), ir.Undefined)
    out = b.insert_value(out, m, 0)
    return b.insert_value(out, b.load(slot), 1)


@_reg("modf")
def _modf(lc, node, args, info):
    ty = info.sig.args[0]
    b = lc.builder
    x = widen(lc, args[0], ty)
    slot = lc.alloca(x.type, name="modf.int")
    frac = narrow(lc, lc.call_libdevice(libm_name("modf", ty), x.type, [x, slot]), ty)
    whole = narrow(lc, b.load(slot), ty)
    out = ir.Constant(value_type(info.sig.return_type), ir.Undefined)
    out = b.insert_value(out, frac, 0)
    return b.insert_value(out, whole, 1)


def _gcd_helper(lc, ty):
    """``gcd(a, b)`` of two integers of type ``ty`` (Euclid), emitted once per module."""
    m = lc.module.ir_module
    lty = value_type(ty)
    name = f"cudalite.gcd.{'i' if ty.signed else 'u'}{ty.bitwidth}"
    fn = m.globals.get(name)
    if fn is not None:
        return fn
    fn = ir.Function(m, ir.FunctionType(lty, [lty, lty]), name)
    fn.linkage = "internal"
    x, y = fn.args
    entry, loop, body, done = (fn.append_basic_block(s) for s in ("entry", "loop", "body", "done"))
    b = ir.IRBuilder(entry)
    zero = ir.Constant(lty, 0)
    if ty.signed:  # |INT_MIN| wraps to itself: read as unsigned it is the right magnitude
        x = b.select(b.icmp_signed("<", x, zero), b.sub(zero, x), x)
        y = b.select(b.icmp_signed("<", y, zero), b.sub(zero, y), y)
    b.branch(loop)
    b.position_at_end(loop)
    a_phi, b_phi = b.phi(lty), b.phi(lty)
    a_phi.add_incoming(x, entry)
    b_phi.add_incoming(y, entry)
    b.cbranch(b.icmp_unsigned("==", b_phi, zero), done, body)
    b.position_at_end(body)
    rem = b.urem(a_phi, b_phi)
    a_phi.add_incoming(b_phi, body)
    b_phi.add_incoming(rem, body)
    b.branch(loop)
    b.position_at_end(done)
    b.ret(a_phi)
    return fn


@_reg("gcd")
def _gcd(lc, node, args, info):
    ty = info.sig.return_type
    if not isinstance(ty, Integer):
        raise lc.error(f"math.gcd() of {ty}", node.loc)
    fn = _gcd_helper(lc, ty)
    acc = lc.builder.call(fn, [args[0], ir.Constant(args[0].type, 0)])
    for a in args[1:]:
        acc = lc.builder.call(fn, [acc, a])
    return acc
