"""Complex math: ``complex ** complex`` and the ``cmath`` module, built from real
libdevice functions in the complex's underlying float type.

The formulas follow CPython's ``cmathmodule.c`` (hypot-scaled ``sqrt``, ``log``
with a ``log1p`` path near the unit circle, overflow-safe branches for large
arguments) without its special-value tables; branches are computed both ways
and selected, so no control flow is emitted.
"""

from __future__ import annotations

import cmath
import math
import sys

from llvmlite import ir

from cudalite.core.typing.rules.mathfuncs import CMATH_UNARY

from ._floats import complex_div, fneg
from ._casts import complex_parts, make_complex
from ._irtypes import value_type
from ._registry import lowerings

__all__ = ["complex_pow", "CMath"]

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_FLOAT32_MAX = 3.4028234663852886e38


class CMath:
    """Real helpers in one float type, bound to a function lowerer."""

    def __init__(self, lc, cty):
        self.lc, self.b, self.cty = lc, lc.builder, cty
        self.fty = cty.underlying
        self.lty = ir.DoubleType() if self.fty.bitwidth == 64 else ir.FloatType()
        fmax = sys.float_info.max if self.fty.bitwidth == 64 else _FLOAT32_MAX
        self.large = fmax / 4.0
        self.sqrt_large = math.sqrt(self.large)
        self.log_large = math.log(self.large)

    # constants and real functions
    def c(self, value):
        return ir.Constant(self.lty, value)

    def f(self, stem, *args):
        name = f"__nv_{stem}{'' if self.fty.bitwidth == 64 else 'f'}"
        return self.lc.call_libdevice(name, self.lty, list(args))

    def add(self, x, y):
        return self.b.fadd(x, y)

    def sub(self, x, y):
        return self.b.fsub(x, y)

    def mul(self, x, y):
        return self.b.fmul(x, y)

    def div(self, x, y):
        return self.b.fdiv(x, y)

    def neg(self, x):
        return fneg(self.b, x)

    def lt(self, x, y):
        return self.b.fcmp_ordered("<", x, y)

    def eq(self, x, y):
        return self.b.fcmp_ordered("==", x, y)

    def sel(self, cond, x, y):
        return self.b.select(cond, x, y)

    def isinf(self, x):
        return self.eq(self.f("fabs", x), self.c(math.inf))

    def isnan(self, x):
        return self.b.fcmp_unordered("uno", x, x)

    def isfinite(self, x):
        return self.lt(self.f("fabs", x), self.c(math.inf))

    def either(self, x, y):
        return self.b.or_(x, y)

    # complex values
    def parts(self, z):
        return complex_parts(self.b, z)

    def make(self, re, im):
        return make_complex(self.b, re, im, self.cty)

    def hypot_scaled_log(self, x, y):
        """``log(hypot(x, y))`` safe from overflow for huge arguments (+2 ln 2 form)."""
        h = self.f("hypot", self.mul(x, self.c(0.5)), self.mul(y, self.c(0.5)))
        return self.add(self.f("log", h), self.c(_LN2))

    # -- the functions (each takes/returns (re, im) pairs of LLVM floats) ------------------
    def sqrt(self, x, y):
        ax, ay = self.f("fabs", x), self.f("fabs", y)
        eighth = self.c(0.125)
        s = self.mul(self.c(2.0), self.f("sqrt", self.add(self.mul(ax, eighth),
                                                          self.f("hypot", self.mul(ax, eighth),
                                                                 self.mul(ay, eighth)))))
        d = self.div(ay, self.mul(s, self.c(2.0)))
        pos = self.b.fcmp_unordered(">=", x, self.c(0.0))
        re = self.sel(pos, s, d)
        im = self.f("copysign", self.sel(pos, d, s), y)
        zero = self.b.and_(self.eq(x, self.c(0.0)), self.eq(y, self.c(0.0)))
        re = self.sel(zero, self.c(0.0), re)
        im = self.sel(zero, y, im)
        inf_im = self.isinf(y)  # sqrt(x +- inf j) = inf +- inf j, even for nan x
        return self.sel(inf_im, self.c(math.inf), re), self.sel(inf_im, y, im)

    def exp(self, x, y):
        big = self.b.fcmp_ordered(">", x, self.c(self.log_large))
        l_small = self.f("exp", x)
        l_big = self.f("exp", self.sub(x, self.c(1.0)))
        cy, sy = self.f("cos", y), self.f("sin", y)
        e = self.c(math.e)
        re = self.sel(big, self.mul(self.mul(l_big, cy), e), self.mul(l_small, cy))
        im = self.sel(big, self.mul(self.mul(l_big, sy), e), self.mul(l_small, sy))
        real_arg = self.eq(y, self.c(0.0))  # exp(x + 0j) keeps an exact zero imaginary part
        re, im = self.sel(real_arg, l_small, re), self.sel(real_arg, y, im)
        # CPython's special values for a non-finite y: exp(-inf + y j) = 0 + 0j,
        # exp(+inf + y j) = inf + nan j (an infinite or NaN y has no cos/sin)
        y_bad = self.b.not_(self.isfinite(y))
        to_zero = self.b.and_(y_bad, self.eq(x, self.c(-math.inf)))
        to_inf = self.b.and_(y_bad, self.eq(x, self.c(math.inf)))
        re = self.sel(to_zero, self.c(0.0), self.sel(to_inf, x, re))
        im = self.sel(to_zero, self.c(0.0), self.sel(to_inf, self.c(math.nan), im))
        return re, im

    def log(self, x, y):
        ax, ay = self.f("fabs", x), self.f("fabs", y)
        h = self.f("hypot", ax, ay)
        am = self.f("fmax", ax, ay)
        an = self.f("fmin", ax, ay)
        near_one = self.b.and_(self.b.fcmp_ordered(">=", h, self.c(0.71)),
                               self.b.fcmp_ordered("<=", h, self.c(1.73)))
        one = self.c(1.0)
        near = self.mul(self.f("log1p", self.add(self.mul(self.sub(am, one), self.add(am, one)),
                                                 self.mul(an, an))), self.c(0.5))
        huge = self.b.fcmp_ordered(">", am, self.c(self.large))
        re = self.sel(huge, self.hypot_scaled_log(ax, ay),
                      self.sel(near_one, near, self.f("log", h)))
        return re, self.f("atan2", y, x)

    def sinh(self, x, y):
        re = self.mul(self.f("sinh", x), self.f("cos", y))
        im = self.mul(self.f("cosh", x), self.f("sin", y))
        return re, self.sel(self.eq(y, self.c(0.0)), y, im)

    def cosh(self, x, y):
        re = self.mul(self.f("cosh", x), self.f("cos", y))
        im = self.mul(self.f("sinh", x), self.f("sin", y))
        return re, self.sel(self.eq(y, self.c(0.0)), self.mul(y, self.f("copysign", self.c(1.0), x)), im)

    def tanh(self, x, y):
        one = self.c(1.0)
        tx, ty = self.f("tanh", x), self.f("tan", y)
        cx = self.div(one, self.f("cosh", x))
        txty = self.mul(tx, ty)
        denom = self.add(one, self.mul(txty, txty))
        re = self.div(self.mul(tx, self.add(one, self.mul(ty, ty))), denom)
        im = self.mul(self.mul(self.div(ty, denom), cx), cx)
        big = self.b.fcmp_ordered(">", self.f("fabs", x), self.c(self.log_large))
        big_im = self.mul(self.mul(self.mul(self.c(4.0), self.f("sin", y)), self.f("cos", y)),
                          self.f("exp", self.mul(self.c(-2.0), self.f("fabs", x))))
        # tanh(+-inf + y j) = +-1 + 0j for an infinite or NaN y, and tanh(x +- 0j) keeps the
        # exact zero (NaN x included), as CPython's special values
        big_im = self.sel(self.isfinite(y), big_im, self.c(0.0))
        re, im = self.sel(big, self.f("copysign", one, x), re), self.sel(big, big_im, im)
        return re, self.sel(self.eq(y, self.c(0.0)), y, im)

    def asinh(self, x, y):
        one = self.c(1.0)
        s1r, s1i = self.sqrt(self.add(one, y), self.neg(x))
        s2r, s2i = self.sqrt(self.sub(one, y), x)
        re = self.f("asinh", self.sub(self.mul(s1r, s2i), self.mul(s2r, s1i)))
        im = self.f("atan2", y, self.sub(self.mul(s1r, s2r), self.mul(s1i, s2i)))
        lg = self.hypot_scaled_log(x, y)
        lg = self.add(lg, self.c(_LN2))  # log(2|z|) = log(|z|/2) + 2 ln 2
        big_re = self.sel(self.b.fcmp_ordered(">=", y, self.c(0.0)), self.f("copysign", lg, x),
                          self.neg(self.f("copysign", lg, self.neg(x))))
        big_im = self.f("atan2", y, self.f("fabs", x))
        big = self._big(x, y)
        return self.sel(big, big_re, re), self.sel(big, big_im, im)

    def asin(self, x, y):
        r, i = self.asinh(self.neg(y), x)
        return i, self.neg(r)

    def acos(self, x, y):
        one, two = self.c(1.0), self.c(2.0)
        s1r, s1i = self.sqrt(self.sub(one, x), self.neg(y))
        s2r, s2i = self.sqrt(self.add(one, x), y)
        re = self.mul(two, self.f("atan2", s1r, s2r))
        im = self.f("asinh", self.sub(self.mul(s2r, s1i), self.mul(s2i, s1r)))
        lg = self.add(self.hypot_scaled_log(x, y), self.c(_LN2))
        big_re = self.f("atan2", self.f("fabs", y), x)
        big_im = self.sel(self.lt(x, self.c(0.0)), self.neg(self.f("copysign", lg, y)),
                          self.f("copysign", lg, self.neg(y)))
        big = self._big(x, y)
        return self.sel(big, big_re, re), self.sel(big, big_im, im)

    def acosh(self, x, y):
        one, two = self.c(1.0), self.c(2.0)
        s1r, s1i = self.sqrt(self.sub(x, one), y)
        s2r, s2i = self.sqrt(self.add(x, one), y)
        re = self.f("asinh", self.add(self.mul(s1r, s2r), self.mul(s1i, s2i)))
        im = self.mul(two, self.f("atan2", s1i, s2r))
        big_re = self.add(self.hypot_scaled_log(x, y), self.c(_LN2))
        big_im = self.f("atan2", y, x)
        big = self._big(x, y)
        return self.sel(big, big_re, re), self.sel(big, big_im, im)

    def atanh(self, x, y):
        # reduce to x >= 0: atanh(-z) = -atanh(z)
        negx = self.b.fcmp_ordered("<", x, self.c(0.0))
        sx, sy = self.sel(negx, self.neg(x), x), self.sel(negx, self.neg(y), y)
        one = self.c(1.0)
        ay = self.f("fabs", sy)
        om = self.sub(one, sx)
        re = self.mul(self.f("log1p", self.div(self.mul(self.c(4.0), sx),
                                               self.add(self.mul(om, om), self.mul(ay, ay)))),
                      self.c(0.25))
        im = self.neg(self.mul(self.f("atan2", self.mul(self.c(-2.0), sy),
                                      self.sub(self.mul(om, self.add(one, sx)), self.mul(ay, ay))),
                               self.c(0.5)))
        h = self.f("hypot", self.mul(sx, self.c(0.5)), self.mul(sy, self.c(0.5)))
        big_re = self.div(self.div(self.mul(sx, self.c(0.25)), h), h)
        big_im = self.neg(self.f("copysign", self.c(math.pi / 2), self.neg(sy)))
        big = self._big(sx, sy)
        re, im = self.sel(big, big_re, re), self.sel(big, big_im, im)
        # CPython's special values: an infinite part gives +-0 +- pi/2 j (NaN imaginary part
        # for a NaN y); atanh(+-0 + nan j) = +-0 + nan j
        inf = self.either(self.isinf(sx), self.isinf(sy))
        zero = self.f("copysign", self.c(0.0), sx)
        re = self.sel(inf, zero, re)
        im = self.sel(inf, self.sel(self.isnan(sy), sy, self.f("copysign", self.c(math.pi / 2), sy)), im)
        zero_nan = self.b.and_(self.eq(sx, self.c(0.0)), self.isnan(sy))
        re, im = self.sel(zero_nan, sx, re), self.sel(zero_nan, sy, im)
        return self.sel(negx, self.neg(re), re), self.sel(negx, self.neg(im), im)

    def atan(self, x, y):
        r, i = self.atanh(self.neg(y), x)
        return i, self.neg(r)

    def sin(self, x, y):
        r, i = self.sinh(self.neg(y), x)
        return i, self.neg(r)

    def cos(self, x, y):
        return self.cosh(self.neg(y), x)

    def tan(self, x, y):
        r, i = self.tanh(self.neg(y), x)
        return i, self.neg(r)

    def log10(self, x, y):
        r, i = self.log(x, y)
        k = self.c(1.0 / _LN10)
        return self.mul(r, k), self.mul(i, k)

    def _big(self, x, y):
        lim = self.c(self.sqrt_large)
        return self.either(self.b.fcmp_ordered(">", self.f("fabs", x), lim),
                           self.b.fcmp_ordered(">", self.f("fabs", y), lim))


def complex_pow(lc, a, bv, ty):
    """``a ** b`` for complex ``a`` and ``b`` (CPython's ``_Py_c_pow``, polar form)."""
    m = CMath(lc, ty)
    ar, ai = m.parts(a)
    br, bi = m.parts(bv)
    zero, one = m.c(0.0), m.c(1.0)
    vabs = m.f("hypot", ar, ai)
    at = m.f("atan2", ai, ar)
    length = m.div(m.f("pow", vabs, br), m.f("exp", m.mul(at, bi)))
    phase = m.add(m.mul(at, br), m.mul(bi, m.f("log", vabs)))
    re, im = m.mul(length, m.f("cos", phase)), m.mul(length, m.f("sin", phase))
    b_zero = m.b.and_(m.eq(br, zero), m.eq(bi, zero))
    a_zero = m.b.and_(m.eq(ar, zero), m.eq(ai, zero))
    re = m.sel(b_zero, one, m.sel(a_zero, zero, re))
    im = m.sel(b_zero, zero, m.sel(a_zero, zero, im))
    return m.make(re, im)


def _unary(name):
    def lower(lc, node, args, info):
        cty = info.sig.return_type
        m = CMath(lc, cty)
        return m.make(*getattr(m, name)(*m.parts(args[0])))

    return lower


for _name in CMATH_UNARY:  # the one list of cmath's one-argument functions (core's typing rules)
    lowerings.call(getattr(cmath, _name))(_unary(_name))


@lowerings.call(cmath.log)
def _log(lc, node, args, info):
    cty = info.sig.return_type
    m = CMath(lc, cty)
    lr, li = m.log(*m.parts(args[0]))
    if len(args) == 1:
        return m.make(lr, li)
    br, bi = m.log(*m.parts(args[1]))
    return complex_div(lc, lr, li, br, bi, cty)


@lowerings.call(cmath.phase)
def _phase(lc, node, args, info):
    m = CMath(lc, info.sig.args[0])
    x, y = m.parts(args[0])
    return m.f("atan2", y, x)


@lowerings.call(cmath.polar)
def _polar(lc, node, args, info):
    m = CMath(lc, info.sig.args[0])
    x, y = m.parts(args[0])
    out = ir.Constant(value_type(info.sig.return_type), ir.Undefined)
    out = m.b.insert_value(out, m.f("hypot", x, y), 0)
    return m.b.insert_value(out, m.f("atan2", y, x), 1)


@lowerings.call(cmath.rect)
def _rect(lc, node, args, info):
    m = CMath(lc, info.sig.return_type)
    r, phi = args
    re = m.mul(r, m.f("cos", phi))
    im = m.mul(r, m.f("sin", phi))
    # rect(+-inf or nan, +-0) = r +- 0j, the zero's sign times r's (CPython)
    keep = m.b.and_(m.b.not_(m.isfinite(r)), m.eq(phi, m.c(0.0)))
    re, im = m.sel(keep, r, re), m.sel(keep, m.mul(phi, m.f("copysign", m.c(1.0), r)), im)
    # CPython's special values for an infinite or NaN phi: rect(0, phi) = 0 + 0j,
    # rect(+-inf, phi) = inf + nan j
    phi_bad = m.b.not_(m.isfinite(phi))
    zero = m.b.and_(phi_bad, m.eq(r, m.c(0.0)))
    inf = m.b.and_(phi_bad, m.isinf(r))
    re = m.sel(zero, m.c(0.0), m.sel(inf, m.c(math.inf), re))
    im = m.sel(zero, m.c(0.0), m.sel(inf, m.c(math.nan), im))
    return m.make(re, im)


def _predicate(combine, test):
    def lower(lc, node, args, info):
        m = CMath(lc, info.sig.args[0])
        x, y = m.parts(args[0])
        return combine(m.b, getattr(m, test)(x), getattr(m, test)(y))

    return lower


lowerings.call(cmath.isnan)(_predicate(lambda b, p, q: b.or_(p, q), "isnan"))
lowerings.call(cmath.isinf)(_predicate(lambda b, p, q: b.or_(p, q), "isinf"))
lowerings.call(cmath.isfinite)(_predicate(lambda b, p, q: b.and_(p, q), "isfinite"))

