"""Float helpers shared by the operators and the math lowerings: ``-x`` for
floats (LLVM 7 has no ``fneg``), float16 and bfloat16 computed through float32
(``widen`` / ``narrow``), libdevice calls in one float type (``libm``) and Smith's complex
division."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.types import BFloat16

from ._bf16conv import bf16_to_f32, f32_to_bf16
from ._casts import make_complex
from ._fastmath import fast_libm

__all__ = ["fneg", "widen", "narrow", "libm", "complex_div"]


def fneg(b, v):
    """``-v`` for floats (LLVM 7 has no ``fneg`` instruction); a half is one ``neg.f16``."""
    if isinstance(v.type, ir.HalfType):
        return half_instr(b, "neg.f16", v)
    return b.fsub(ir.Constant(v.type, -0.0), v)


def half_instr(b, instr, v):
    """One native half instruction on ``v`` (``neg.f16``, ``abs.f16``), as numba-cuda
    emits for ``-x`` and ``abs(x)`` of a float16; libNVVM's inline asm takes no 'half'
    operands, so the bits pass as i16."""
    i16 = ir.IntType(16)
    fnty = ir.FunctionType(i16, [i16])
    r = b.asm(fnty, f"{instr} $0, $1;", "=h,h", [b.bitcast(v, i16)], False)
    return b.bitcast(r, ir.HalfType())


def widen(lc, v, ty):
    """float16 and bfloat16 math goes through float32 libdevice functions."""
    if isinstance(ty, BFloat16):
        return bf16_to_f32(lc.builder, v)
    return lc.builder.fpext(v, ir.FloatType()) if ty.bitwidth == 16 else v


def narrow(lc, v, ty):
    if isinstance(ty, BFloat16):
        return f32_to_bf16(lc.builder, v)
    return lc.builder.fptrunc(v, ir.HalfType()) if ty.bitwidth == 16 else v


def libm(lc, name, ty, *args):
    """Call libdevice ``__nv_<name>[f]`` in the float type ``ty``; under ``fastmath``
    a float32 function with an approximate flavour calls that one instead
    (:mod:`._fastmath`)."""
    if ty.bitwidth == 32 and lc.module.options.fastmath:
        fast = fast_libm(lc, name, args)
        if fast is not None:
            return fast
    args = [widen(lc, a, ty) for a in args]
    fname = f"__nv_{name}{'' if ty.bitwidth == 64 else 'f'}"
    return narrow(lc, lc.call_libdevice(fname, args[0].type, args), ty)


def complex_div(lc, ar, ai, br, bi, ty):
    """Smith's algorithm (as CPython's ``_Py_c_quot``) for well-scaled results."""
    b = lc.builder
    fty = ar.type
    fabs = "__nv_fabs" + ("" if ty.underlying.bitwidth == 64 else "f")
    abr = lc.call_libdevice(fabs, fty, [br])
    abi = lc.call_libdevice(fabs, fty, [bi])
    use_real = b.fcmp_ordered(">=", abr, abi)
    # branch-free: compute both forms and select
    ratio1 = b.fdiv(bi, br)
    denom1 = b.fadd(br, b.fmul(bi, ratio1))
    re1 = b.fdiv(b.fadd(ar, b.fmul(ai, ratio1)), denom1)
    im1 = b.fdiv(b.fsub(ai, b.fmul(ar, ratio1)), denom1)
    ratio2 = b.fdiv(br, bi)
    denom2 = b.fadd(b.fmul(br, ratio2), bi)
    re2 = b.fdiv(b.fadd(b.fmul(ar, ratio2), ai), denom2)
    im2 = b.fdiv(b.fsub(b.fmul(ai, ratio2), ar), denom2)
    return make_complex(b, b.select(use_real, re1, re2), b.select(use_real, im1, im2), ty)
