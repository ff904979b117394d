"""Lowering of Python builtins in device code: the casts ``int``/``float``/
``bool``/``complex``, ``abs``, ``min``/``max`` (numba-cuda's: fmin/fmax for two floats,
else Python's comparison order),
``round`` (half to even), ``pow``, ``divmod`` and the number attributes
``.real``/``.imag``/``.conjugate()``."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.types import Boolean, Complex, Float, Integer, Tuple, complex128, float64
from cudalite.core.typing.rules.casts import unify

from . import _arith
from ._floats import fneg, half_instr, narrow, widen
from ._casts import cast, complex_parts, make_complex
from ._irtypes import value_type
from ._registry import lowerings

__all__ = ["abs_value", "min_max", "round_half_even"]


def _fname(stem, fty):
    return f"__nv_{stem}{'' if fty == ir.DoubleType() else 'f'}"


# -- casts ---------------------------------------------------------------------------------
@lowerings.call(int, float, bool)
def _scalar_cast(lc, node, args, info):
    return lc.cast(args[0], info.sig.args[0], info.sig.return_type)


@lowerings.call(complex)
def _complex(lc, node, args, info):
    b = lc.builder
    rt = info.sig.return_type if isinstance(info.sig.return_type, Complex) else complex128
    if len(args) == 1:
        return lc.cast(args[0], info.sig.args[0], rt)
    re = lc.cast(args[0], info.sig.args[0], rt.underlying)
    im = lc.cast(args[1], info.sig.args[1], rt.underlying)
    return make_complex(b, re, im, rt)


# -- abs -----------------------------------------------------------------------------------
def abs_value(lc, v, ty):
    """``abs(v)``: integers by select (unsigned unchanged), floats by fabs, complex by hypot."""
    b = lc.builder
    if isinstance(ty, Integer):
        if not ty.signed:
            return v
        zero = ir.Constant(v.type, 0)
        return b.select(b.icmp_signed("<", v, zero), b.sub(zero, v), v)
    if isinstance(ty, Float) and ty.bitwidth == 16:
        return half_instr(b, "abs.f16", v)
    if isinstance(ty, Float):
        x = widen(lc, v, ty)
        return narrow(lc, lc.call_libdevice(_fname("fabs", x.type), x.type, [x]), ty)
    if isinstance(ty, Complex):
        re, im = complex_parts(b, v)
        return lc.call_libdevice(_fname("hypot", re.type), re.type, [re, im])
    raise TypeError(f"abs() of {ty}")


@lowerings.call(abs)
def _abs(lc, node, args, info):
    return abs_value(lc, args[0], info.sig.args[0])


# -- min / max -----------------------------------------------------------------------------
def _fminmax(lc, op, vals, tys, rt):
    """numba-cuda's ``min``/``max`` of exactly two float32/float64 numbers: libdevice
    ``fmin``/``fmax`` (PTX ``min``/``max``: a NaN operand loses), in float32 when both are
    float32, else in float64."""
    fty = tys[0] if tys[0] == tys[1] else float64
    xs = [cast(lc.builder, v, t, fty) for v, t in zip(vals, tys)]
    stem = "fmin" if op == "<" else "fmax"
    r = lc.call_libdevice(_fname(stem, xs[0].type), xs[0].type, xs)
    return cast(lc.builder, r, fty, rt)


def min_max(lc, op, vals, tys, rt, iterable=False):
    """numba's ``min``/``max``: two float32/float64 arguments through fmin/fmax; anything
    else (integers, mixed int/float, three or more arguments, a tuple) Python's algorithm
    left to right: the running result is replaced only when ``item < result`` (min) or
    ``item > result`` (max), both converted to the type unifying the two (so NaN
    behaviour matches CPython)."""
    if not iterable and len(vals) == 2 and all(isinstance(t, Float) and t.bitwidth in (32, 64) for t in tys):
        return _fminmax(lc, op, vals, tys, rt)
    b = lc.builder
    acc, acc_t = vals[0], tys[0]
    for v, t in zip(vals[1:], tys[1:]):
        ty = unify(acc_t, t) or rt
        acc, v = cast(b, acc, acc_t, ty), cast(b, v, t, ty)
        acc = b.select(_arith.compare(lc, op, v, acc, ty), v, acc)
        acc_t = ty
    return cast(b, acc, acc_t, rt)


def _make_minmax(op):
    def lower(lc, node, args, info):
        rt = info.sig.return_type
        if len(args) == 1 and isinstance(info.sig.args[0], Tuple):
            tys = list(info.sig.args[0].types)
            vals = [lc.builder.extract_value(args[0], i) for i in range(len(tys))]
            return min_max(lc, op, vals, tys, rt, iterable=True)
        return min_max(lc, op, list(args), list(info.sig.args), rt)

    return lower


lowerings.call(min)(_make_minmax("<"))
lowerings.call(max)(_make_minmax(">"))


# -- round ---------------------------------------------------------------------------------
def round_half_even(lc, v, ty):
    """Round a float to the nearest integral value, ties to even (``__nv_rint``)."""
    x = widen(lc, v, ty)
    return narrow(lc, lc.call_libdevice(_fname("rint", x.type), x.type, [x]), ty)


def _round_float_digits(lc, x, ndigits, ty):
    """NumPy's ``round(x, n)``: scale by 10**|n|, rint, unscale (float64 inside)."""
    b = lc.builder
    d = ir.DoubleType()
    xd = cast(b, x, ty, float64)
    n32 = b.trunc(ndigits, ir.IntType(32))
    neg = b.icmp_signed("<", n32, ir.Constant(n32.type, 0))
    absn = b.select(neg, b.sub(ir.Constant(n32.type, 0), n32), n32)
    scale = lc.call_libdevice("__nv_powi", d, [ir.Constant(d, 10.0), absn])
    y = b.select(neg, b.fdiv(xd, scale), b.fmul(xd, scale))
    r = lc.call_libdevice("__nv_rint", d, [y])
    r = b.select(neg, b.fmul(r, scale), b.fdiv(r, scale))
    # scaling overflowed (huge x or n): the value has no digits to round away
    finite = b.fcmp_ordered("<", lc.call_libdevice("__nv_fabs", d, [y]), ir.Constant(d, float("inf")))
    r = b.select(finite, r, xd)
    return cast(b, r, float64, ty)


def _round_int_digits(lc, x, ndigits, ty):
    """``round(int, n)``: unchanged for n >= 0, else to a multiple of 10**-n, ties to even."""
    b = lc.builder
    lty = x.type
    zero, one = ir.Constant(lty, 0), ir.Constant(lty, 1)
    n = cast(b, ndigits, Integer(64, True), ty)
    neg = b.icmp_signed("<", n, zero)
    p = _arith.binop(lc, "**", ir.Constant(lty, 10), b.sub(zero, n), ty)
    limit = len(str(2 ** (ty.bitwidth - ty.signed)))  # 10**limit overflows ty: result 0
    overflow = b.icmp_signed(">=", b.sub(zero, n), ir.Constant(lty, limit))
    p = b.select(b.or_(b.not_(neg), overflow), one, p)
    q = _arith.binop(lc, "//", x, p, ty)
    r = b.sub(x, b.mul(q, p))  # 0 <= r < p
    twice = b.shl(r, one)
    up = b.or_(b.icmp_unsigned(">", twice, p),
               b.and_(b.icmp_unsigned("==", twice, p), b.trunc(q, ir.IntType(1))))
    q = b.select(up, b.add(q, one), q)
    res = b.mul(q, p)
    res = b.select(overflow, zero, res)
    return b.select(neg, res, x)


@lowerings.call(round)
def _round(lc, node, args, info):
    src = info.sig.args[0]
    rt = info.sig.return_type
    if len(args) == 1:
        if isinstance(src, Float):
            return lc.builder.fptosi(round_half_even(lc, args[0], src), value_type(rt))
        return lc.cast(args[0], src, rt)
    if isinstance(src, Float):
        return _round_float_digits(lc, args[0], args[1], src)
    return _round_int_digits(lc, args[0], args[1], src)


# -- pow / divmod ----------------------------------------------------------------------------
@lowerings.call(pow)
def _pow(lc, node, args, info):
    return _arith.binop(lc, "**", args[0], args[1], info.sig.args[0])


@lowerings.call(divmod)
def _divmod(lc, node, args, info):
    b = lc.builder
    ty = info.sig.args[0]
    if isinstance(ty, Float):
        q, r = _arith.float_divmod(lc, args[0], args[1], ty)
    else:
        q = _arith.binop(lc, "//", args[0], args[1], ty)
        r = _arith.binop(lc, "%", args[0], args[1], ty)
    out = ir.Constant(value_type(info.sig.return_type), ir.Undefined)
    out = b.insert_value(out, q, 0)
    return b.insert_value(out, r, 1)


# -- .real / .imag / .conjugate() -------------------------------------------------------------
def _real(lc, value, info):
    src, rt = info.sig.args[0], info.sig.return_type
    if isinstance(src, Complex):
        return lc.builder.extract_value(value, 0)
    return lc.cast(value, src, rt)


def _imag(lc, value, info):
    src, rt = info.sig.args[0], info.sig.return_type
    if isinstance(src, Complex):
        return lc.builder.extract_value(value, 1)
    return ir.Constant(value_type(rt), None)


for _cls in (Integer, Float, Complex, Boolean):
    lowerings.attr(_cls, "real")(_real)
    lowerings.attr(_cls, "imag")(_imag)


@lowerings.method(Complex, "conjugate")
@lowerings.method(Float, "conjugate")
@lowerings.method(Integer, "conjugate")
def _conjugate(lc, node, args, info):
    recv = info.recv
    if isinstance(recv, Complex):
        b = lc.builder
        re, im = complex_parts(b, args[0])
        return make_complex(b, re, fneg(b, im), recv)
    return args[0]


# -- isinstance ---------------------------------------------------------------------------------
@lowerings.call(isinstance)
def _isinstance(lc, node, args, info):  # typing decided it (a compile-time constant)
    return ir.Constant(ir.IntType(1), int(info.payload))
