"""Lowering of NumPy's ufuncs in device code: on scalars (``np.sqrt``, ``np.floor``,
``np.maximum``, ``np.greater``, ``np.bitwise_and`` ...), sharing libdevice and the
math/builtin lowerings, and on arrays with an output array (``np.sin(x, out)``:
:mod:`._ufunc_loops`).  Registered lazily: the tables are keyed by NumPy's
functions, built when one is first used."""

from __future__ import annotations

import builtins
import cmath
import math

from llvmlite import ir

from cudalite.core.types import Boolean, Complex, Float, Integer
from cudalite.core.typing import UfuncLoop
from cudalite.core.typing.rules.arithmetic import promote
from cudalite.core.typing.rules.numpyfuncs import numpy_table

from ._arith import binop
from ._casts import cast, complex_parts, make_complex, truth
from ._irtypes import I1, I64
from ._math import is_nan, libm
from ._reductions import register_reduction_lowerings
from ._registry import lowerings
from ._ufunc_loops import lower_ufunc_loop

__all__ = []


def _unary(stem, table):
    if stem in ("radians", "degrees"):
        return table.lookup_call(getattr(math, stem))

    def lower(lc, node, args, info):
        t = info.sig.return_type
        if isinstance(t, Complex):  # NumPy's complex loops: cmath's lowering
            if stem == "log2":  # log(z) / ln 2, part by part
                re, im = complex_parts(lc.builder, table.lookup_call(cmath.log)(lc, node, args, info))
                k = ir.Constant(re.type, 1.0 / math.log(2.0))
                return make_complex(lc.builder, lc.builder.fmul(re, k), lc.builder.fmul(im, k), t)
            return table.lookup_call(getattr(cmath, stem))(lc, node, args, info)
        return libm(lc, stem, t, args[0])

    return lower


def _complex_order(b, op, x, y):
    """NumPy's lexicographic comparison of complex numbers ``x op y`` (its complex
    loops): ``<``: ``xr < yr`` with neither imaginary part NaN, or ``xr == yr`` and
    ``xi < yi`` (``<=``, ``>``, ``>=`` likewise); ``==`` both parts equal; ``!=`` either
    part unequal (NaN included)."""
    (xr, xi), (yr, yi) = complex_parts(b, x), complex_parts(b, y)
    if op == "==":
        return b.and_(b.fcmp_ordered("==", xr, yr), b.fcmp_ordered("==", xi, yi))
    if op == "!=":
        return b.or_(b.fcmp_unordered("!=", xr, yr), b.fcmp_unordered("!=", xi, yi))
    strict = op[0]  # "<" or ">"
    no_nan_im = b.not_(b.or_(is_nan(b, xi), is_nan(b, yi)))
    first = b.and_(b.fcmp_ordered(strict, xr, yr), no_nan_im)
    return b.or_(first, b.and_(b.fcmp_ordered("==", xr, yr), b.fcmp_ordered(op, xi, yi)))


def _complex_has_nan(b, z):
    re, im = complex_parts(b, z)
    return b.or_(is_nan(b, re), is_nan(b, im))


def _binary(stem):
    def lower(lc, node, args, info):
        return libm(lc, stem, info.sig.return_type, *args)

    return lower


def _nan_propagating(pick_first_when):
    """np.maximum/np.minimum: a NaN operand wins (unlike Python's max/min); otherwise the
    first operand when ``a >= c`` (``<=`` for minimum), as numba's np_real_maximum_impl:
    ``np.maximum(0.0, -0.0)`` is 0.0 and ``np.maximum(-0.0, 0.0)`` is -0.0."""

    def lower(lc, node, args, info):
        b = lc.builder
        a, c = args
        if isinstance(info.sig.return_type, Complex):  # NumPy: a NaN in either operand wins
            a, c = (cast(b, v, t, info.sig.return_type) for v, t in zip(args, info.sig.args))
            first = b.or_(_complex_has_nan(b, a), _complex_order(b, pick_first_when, a, c))
            return b.select(first, a, c)
        if not isinstance(a.type, (ir.FloatType, ir.DoubleType, ir.HalfType)):
            return lc.module.lowerings.lookup_call(builtins.max if pick_first_when == ">=" else builtins.min)(
                lc, node, args, info)
        first = b.or_(is_nan(b, a), b.fcmp_ordered(pick_first_when, a, c))
        return b.select(first, a, c)

    return lower


def _nan_ignoring(op):
    """np.fmax/np.fmin: a NaN operand loses (the other one is returned)."""

    def lower(lc, node, args, info):
        b = lc.builder
        a, c = args
        if isinstance(info.sig.return_type, Complex):  # NumPy: a NaN operand loses
            a, c = (cast(b, v, t, info.sig.return_type) for v, t in zip(args, info.sig.args))
            return b.select(b.or_(_complex_has_nan(b, c), _complex_order(b, op, a, c)), a, c)
        if not isinstance(info.sig.return_type, Float):
            return lc.module.lowerings.lookup_call(builtins.max if op == ">=" else builtins.min)(
                lc, node, args, info)
        return b.select(b.or_(is_nan(b, c), b.fcmp_ordered(op, a, c)), a, c)

    return lower


def _square(lc, node, args, info):
    return binop(lc, "*", args[0], args[0], info.sig.return_type)


def _is_signed(t):
    return isinstance(t, Integer) and t.signed


def _compare(op):
    """np.greater ... np.not_equal on two numbers; int64 against uint64 exactly."""

    def lower(lc, node, args, info):
        b = lc.builder
        (a, c), (at, ct) = args, info.sig.args
        if isinstance(at, Complex) or isinstance(ct, Complex):
            ct_ = promote(at, ct)
            return _complex_order(b, op, cast(b, a, at, ct_), cast(b, c, ct, ct_))
        if isinstance(at, Float) or isinstance(ct, Float):
            ft = promote(at, ct)
            a, c = cast(b, a, at, ft), cast(b, c, ct, ft)
            return (b.fcmp_unordered if op == "!=" else b.fcmp_ordered)(op, a, c)
        a, c = (_widen(b, v, t) for v, t in ((a, at), (c, ct)))
        if _is_signed(at) and _is_signed(ct):
            return b.icmp_signed(op, a, c)
        res = b.icmp_unsigned(op, a, c)
        if _is_signed(at) != _is_signed(ct):  # a negative signed operand is the smaller one
            neg = b.icmp_signed("<", a if _is_signed(at) else c, ir.Constant(I64, 0))
            smaller_true = op in ("<", "<=", "!=") if _is_signed(at) else op in (">", ">=", "!=")
            res = b.select(neg, ir.Constant(I1, int(smaller_true)), res)
        return res

    return lower


def _widen(b, v, t):
    if isinstance(t, Boolean) or (isinstance(t, Integer) and not t.signed):
        return b.zext(v, I64) if v.type.width < 64 else v
    return b.sext(v, I64) if v.type.width < 64 else v


def _logical(name):
    def lower(lc, node, args, info):
        b = lc.builder
        vals = [truth(b, v, t) for v, t in zip(args, info.sig.args)]
        if name == "logical_not":
            return b.not_(vals[0])
        return {"logical_and": b.and_, "logical_or": b.or_, "logical_xor": b.xor}[name](*vals)

    return lower


def _bitwise(name):
    def lower(lc, node, args, info):
        b = lc.builder
        t = info.sig.return_type
        if name == "invert":
            return b.not_(args[0])
        if name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
            return {"bitwise_and": b.and_, "bitwise_or": b.or_, "bitwise_xor": b.xor}[name](*args)
        x, n = args  # NumPy: a shift by the width or more gives 0 (-1 for a negative x >> n)
        width = ir.Constant(x.type, t.bitwidth)
        in_range = b.icmp_unsigned("<", n, width)
        safe = b.select(in_range, n, ir.Constant(x.type, 0))
        zero = ir.Constant(x.type, 0)
        if name == "left_shift":
            return b.select(in_range, b.shl(x, safe), zero)
        if t.signed:
            fill = b.select(b.icmp_signed("<", x, zero), ir.Constant(x.type, -1), zero)
            return b.select(in_range, b.ashr(x, safe), fill)
        return b.select(in_range, b.lshr(x, safe), zero)

    return lower


def _arith(op):
    def lower(lc, node, args, info):
        t = info.sig.return_type
        if op == "neg":
            zero = cast(lc.builder, ir.Constant(I64, 0), Integer(64, True), t)
            return binop(lc, "-", zero, args[0], t)
        return binop(lc, op, *args, t)

    return lower


def _with_loop(scalar):
    """The lowering of a ufunc: ``scalar`` on numbers, an elementwise loop with an
    output array (:class:`~cudalite.core.typing.UfuncLoop`)."""

    def lower(lc, node, args, info):
        if isinstance(info.payload, UfuncLoop):
            return lower_ufunc_loop(lc, node, args, info, scalar)
        return scalar(lc, node, args, info)

    return lower


def _scalar_lowering(kind, stem, table):
    if kind == "unary":
        return _unary(stem, table)
    if kind == "binary":
        return _binary(stem)
    if kind == "predicate":
        return table.lookup_call(getattr(math, stem))
    if kind == "abs":
        return table.lookup_call(builtins.abs)
    if kind in ("maximum", "minimum"):
        return _nan_propagating(">=" if kind == "maximum" else "<=")
    if kind in ("fmax", "fmin"):
        return _nan_ignoring(">=" if kind == "fmax" else "<=")
    if kind == "square":
        return _square
    if kind == "compare":
        return _compare(stem)
    if kind == "logical":
        return _logical(stem)
    if kind == "arith":
        return _arith(stem)
    return _bitwise(stem)


def _register(table=lowerings):
    """Register NumPy's lowerings in ``table`` (some are the math/builtin ones it holds)."""
    import numpy as np  # already imported: one of its functions is being compiled

    for fn, (kind, stem) in numpy_table(np).items():
        table.call(fn)(_with_loop(_scalar_lowering(kind, stem, table)))
    register_reduction_lowerings(np, table)  # np.sum, np.mean ... (one lazy registration per module)


lowerings.lazy("numpy", _register)
