"""Arithmetic, bitwise, unary and comparison operators on numbers, with Python
semantics: floor division and modulo round toward negative infinity (for
integers and floats, CPython's ``float_divmod``), integer division by zero
gives 0 (NumPy's behaviour on GPUs: no trap), ``**`` on integers is exact."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.types import BFloat16, Boolean, Complex, Float, Integer, NPDatetime, NPTimedelta, float32

from ._bf16conv import bf16_to_f32, f32_to_bf16
from ._casts import complex_parts, make_complex
from ._complexmath import complex_pow
from ._exceptions import raise_if
from ._fastmath import fast_fdiv
from ._floats import complex_div, fneg, libm, narrow, widen
from ._irtypes import value_type
from ._ranges import RangeHint

__all__ = ["binop", "checked_binop", "unaryop", "compare", "float_divmod"]

_FCMP = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "=="}


def _fast_div(lc, op, ty):
    """float32 ``/`` under fastmath: approximate, and no ZeroDivisionError (numba-cuda)."""
    return op == "/" and isinstance(ty, Float) and ty.bitwidth == 32 and lc.module.options.fastmath


def checked_binop(lc, op, a, bv, ty, loc):
    """``a op bv`` as :func:`binop`; with ``debug=True`` (numba's error model
    'python') ``/``, ``//`` and ``%`` of integers and floats by zero raise
    ZeroDivisionError first, as in numba-cuda (float32 ``/`` under fastmath does not)."""
    if (lc.module.options.debug and op in ("/", "//", "%") and isinstance(ty, (Integer, Float))
            and not _fast_div(lc, op, ty)):
        b = lc.builder
        zero = ir.Constant(bv.type, 0)
        is_zero = b.icmp_unsigned("==", bv, zero) if isinstance(ty, Integer) else b.fcmp_ordered("==", bv, zero)
        what = "modulo by zero" if op == "%" else "division by zero"
        raise_if(lc, is_zero, ZeroDivisionError, (what,), loc)
    return binop(lc, op, a, bv, ty)


def binop(lc, op, a, bv, ty):
    """``a op bv`` where both operands already have type ``ty``."""
    b = lc.builder
    if isinstance(ty, BFloat16):  # in float32, rounded once
        r = _float_binop(lc, op, bf16_to_f32(b, a), bf16_to_f32(b, bv), float32)
        return f32_to_bf16(b, r)
    if isinstance(ty, Boolean):
        return {"&": b.and_, "|": b.or_, "^": b.xor}[op](a, bv)
    if isinstance(ty, (NPDatetime, NPTimedelta)):  # NaT in, NaT out
        return b.select(_either_nat(b, a, bv), ir.Constant(a.type, NAT), _int_binop(lc, op, a, bv, ty))
    if isinstance(ty, Integer):
        return _int_binop(lc, op, a, bv, ty)
    if isinstance(ty, Float):
        return _float_binop(lc, op, a, bv, ty)
    if isinstance(ty, Complex):
        return _complex_binop(lc, op, a, bv, ty)
    raise TypeError(f"no operator {op} for {ty}")


def _int_binop(lc, op, a, bv, ty):
    b = lc.builder
    if op in ("+", "-", "*"):
        # Two's complement wrapping: no nsw/nuw here.  (numba-cuda emits nsw, so its
        # overflow is poison; docs/compat.md "Known differences".)  ``_ranges`` adds
        # the flags afterwards where it proves the result cannot wrap.
        return {"+": b.add, "-": b.sub, "*": b.mul}[op](a, bv)
    simple = {"&": b.and_, "|": b.or_, "^": b.xor, "<<": b.shl, ">>": b.ashr if ty.signed else b.lshr}
    if op in simple:
        return simple[op](a, bv)
    zero = ir.Constant(a.type, 0)
    if op in ("//", "%"):
        is_zero = b.icmp_unsigned("==", bv, zero)
        safe = b.select(is_zero, ir.Constant(a.type, 1), bv)
        if ty.signed:
            q, r = b.sdiv(a, safe), b.srem(a, safe)
            # Python rounds toward -inf: adjust when the remainder's sign differs from the divisor's
            adjust = b.and_(b.icmp_signed("!=", r, zero),
                            b.icmp_signed("<", b.xor(r, safe), zero))
            if op == "//":
                res = b.select(adjust, b.sub(q, ir.Constant(a.type, 1)), q)
            else:
                res = b.select(adjust, b.add(r, safe), r)
        else:
            res = b.udiv(a, safe) if op == "//" else b.urem(a, safe)
        out = b.select(is_zero, zero, res)
        lc.range_hints[out] = RangeHint("floordiv" if op == "//" else "mod", (a, bv), signed=ty.signed)
        return out
    if op == "**":
        return _ipow(lc, a, bv, ty)
    raise TypeError(f"no integer operator {op}")


def _ipow(lc, base, exp, ty):
    """Exponentiation by squaring, emitted once per module as a helper function."""
    m = lc.module
    lty = value_type(ty)
    name = f"cudalite.ipow.{'i' if ty.signed else 'u'}{ty.bitwidth}"
    fn = m.ir_module.globals.get(name)
    if fn is None:
        fn = ir.Function(m.ir_module, ir.FunctionType(lty, [lty, lty]), name)
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")
        x, n = fn.args
        entry, loop, body, done = (fn.append_basic_block(s) for s in ("entry", "loop", "body", "done"))
        b = ir.IRBuilder(entry)
        one, zero = ir.Constant(lty, 1), ir.Constant(lty, 0)
        if ty.signed:
            # negative exponent: exact only for |x| == 1 (1 or (-1)**n); else 0
            is_one = b.icmp_signed("==", x, one)
            is_mone = b.icmp_signed("==", x, ir.Constant(lty, -1))
            mone_val = b.select(b.trunc(n, ir.IntType(1)), ir.Constant(lty, -1), one)
            neg_res = b.select(is_one, one, b.select(is_mone, mone_val, zero))
            b.cbranch(b.icmp_signed("<", n, zero), done, loop)
        else:
            b.branch(loop)
        b.position_at_end(loop)
        acc = b.phi(lty)
        cur = b.phi(lty)
        k = b.phi(lty)
        acc.add_incoming(one, entry)
        cur.add_incoming(x, entry)
        k.add_incoming(n, entry)
        b.cbranch(b.icmp_unsigned("==", k, zero), done, body)
        b.position_at_end(body)
        odd = b.trunc(k, ir.IntType(1))
        acc2 = b.select(odd, b.mul(acc, cur), acc)
        cur2 = b.mul(cur, cur)
        k2 = b.lshr(k, one)
        acc.add_incoming(acc2, body)
        cur.add_incoming(cur2, body)
        k.add_incoming(k2, body)
        b.branch(loop)
        b.position_at_end(done)
        res = b.phi(lty)
        res.add_incoming(acc, loop)
        if ty.signed:
            res.add_incoming(neg_res, entry)
        b.ret(res)
    return lc.builder.call(fn, [base, exp])


def _float_binop(lc, op, a, bv, ty):
    b = lc.builder
    if _fast_div(lc, op, ty):
        return fast_fdiv(lc, a, bv)
    simple = {"+": b.fadd, "-": b.fsub, "*": b.fmul, "/": b.fdiv}
    if op in simple:
        return simple[op](a, bv)
    if op == "**":
        if isinstance(bv.type, ir.IntType):
            n = b.trunc(bv, ir.IntType(32)) if bv.type.width > 32 else bv
            return libm(lc, "powi", ty, a, n) if ty.bitwidth == 64 else \
                narrow(lc, lc.call_libdevice("__nv_powif", ir.FloatType(), [widen(lc, a, ty), n]), ty)
        return libm(lc, "pow", ty, a, bv)
    if op in ("//", "%"):
        return float_divmod(lc, a, bv, ty)[0 if op == "//" else 1]
    raise TypeError(f"no float operator {op}")


def float_divmod(lc, a, bv, ty):
    """CPython's float_divmod: returns (floordiv, mod)."""
    b = lc.builder
    a32, b32 = widen(lc, a, ty), widen(lc, bv, ty)
    fty = a32.type
    zero, half, one = (ir.Constant(fty, c) for c in (0.0, 0.5, 1.0))
    mod = b.frem(a32, b32)
    div = b.fdiv(b.fsub(a32, mod), b32)
    mod_nz = b.fcmp_unordered("!=", mod, zero)  # C's `if (mod)`: NaN counts as non-zero
    signs_differ = b.xor(b.fcmp_ordered("<", b32, zero), b.fcmp_ordered("<", mod, zero))
    fix = b.and_(mod_nz, signs_differ)
    mod = b.select(fix, b.fadd(mod, b32), mod)
    div = b.select(fix, b.fsub(div, one), div)
    csign = "__nv_copysign" + ("" if fty == ir.DoubleType() else "f")
    mod = b.select(mod_nz, mod, lc.call_libdevice(csign, fty, [zero, b32]))
    floor = lc.call_libdevice("__nv_floor" + ("" if fty == ir.DoubleType() else "f"), fty, [div])
    floor = b.select(b.fcmp_ordered(">", b.fsub(div, floor), half), b.fadd(floor, one), floor)
    div_nz = b.fcmp_unordered("!=", div, zero)
    floordiv = b.select(div_nz, floor, lc.call_libdevice(csign, fty, [zero, b.fdiv(a32, b32)]))
    return narrow(lc, floordiv, ty), narrow(lc, mod, ty)


def _complex_binop(lc, op, a, bv, ty):
    b = lc.builder
    ar, ai = complex_parts(b, a)
    br, bi = complex_parts(b, bv)
    if op == "+":
        return make_complex(b, b.fadd(ar, br), b.fadd(ai, bi), ty)
    if op == "-":
        return make_complex(b, b.fsub(ar, br), b.fsub(ai, bi), ty)
    if op == "*":
        re = b.fsub(b.fmul(ar, br), b.fmul(ai, bi))
        im = b.fadd(b.fmul(ar, bi), b.fmul(ai, br))
        return make_complex(b, re, im, ty)
    if op == "/":
        return complex_div(lc, ar, ai, br, bi, ty)
    if op == "**":
        return complex_pow(lc, a, bv, ty)
    raise TypeError(f"no complex operator {op}")


def unaryop(lc, op, v, ty):
    b = lc.builder
    if op == "+":
        return v
    if op == "-":
        if isinstance(ty, BFloat16):  # flip the sign bit
            return b.xor(v, ir.Constant(v.type, 0x8000))
        if isinstance(ty, Integer):
            return b.sub(ir.Constant(v.type, 0), v)
        if isinstance(ty, Float):
            return fneg(b, v)
        if isinstance(ty, Complex):
            re, im = complex_parts(b, v)
            return make_complex(b, fneg(b, re), fneg(b, im), ty)
    if op == "~":
        return b.xor(v, ir.Constant(v.type, -1))
    raise TypeError(f"no unary operator {op} for {ty}")


NAT = -(1 << 63)  # NumPy's NaT: the smallest int64


def _either_nat(b, a, bv):
    nat = ir.Constant(a.type, NAT)
    return b.or_(b.icmp_signed("==", a, nat), b.icmp_signed("==", bv, nat))


def compare(lc, op, a, bv, ty):
    b = lc.builder
    if isinstance(ty, (NPDatetime, NPTimedelta)):  # NaT is unequal to everything, unordered
        r = b.icmp_signed(op, a, bv)
        return b.select(_either_nat(b, a, bv), ir.Constant(r.type, int(op == "!=")), r)
    if isinstance(ty, BFloat16):
        a, bv, ty = bf16_to_f32(b, a), bf16_to_f32(b, bv), float32
    if isinstance(ty, Boolean) or (isinstance(ty, Integer) and not ty.signed):
        return b.icmp_unsigned(op, a, bv)
    if isinstance(ty, Integer):
        return b.icmp_signed(op, a, bv)
    if isinstance(ty, Float):
        if op == "!=":
            return b.fcmp_unordered("!=", a, bv)
        return b.fcmp_ordered(_FCMP[op], a, bv)
    if isinstance(ty, Complex):
        ar, ai = complex_parts(b, a)
        br, bi = complex_parts(b, bv)
        if op == "==":
            return b.and_(b.fcmp_ordered("==", ar, br), b.fcmp_ordered("==", ai, bi))
        return b.or_(b.fcmp_unordered("!=", ar, br), b.fcmp_unordered("!=", ai, bi))
    raise TypeError(f"cannot compare values of type {ty}")
