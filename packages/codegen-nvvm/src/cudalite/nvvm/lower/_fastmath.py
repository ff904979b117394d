"""``fastmath=True``: the approximate float32 flavours numba-cuda substitutes.

With fastmath, float32 ``cos``/``sin``/``tan``/``exp``/``log``/``log2``/``log10``
call libdevice's ``__nv_fast_<name>f`` (``cos.approx.ftz.f32``, ``lg2.approx``...),
``pow`` ``__nv_fast_powf``, ``tanh`` the ``tanh.approx.f32`` instruction (sm_75 and
later) and float32 division ``__nv_fast_fdividef`` (``div.approx.ftz.f32``, no
ZeroDivisionError check).  float64 and float16 math is unchanged, as in numba-cuda.
"""

from __future__ import annotations

from llvmlite import ir

__all__ = ["fast_libm", "fast_fdiv", "FAST_STEMS"]

#: libdevice stems with a ``__nv_fast_<stem>f`` flavour numba-cuda uses under fastmath
FAST_STEMS = frozenset({"cos", "sin", "tan", "exp", "log", "log2", "log10", "pow"})

_TANH_APPROX_CC = (7, 5)


def fast_libm(lc, name, args):
    """The fastmath flavour of float32 ``name`` applied to ``args``, or None
    when ``name`` has none (the precise libdevice function is then used)."""
    f32 = ir.FloatType()
    if name in FAST_STEMS:
        return lc.call_libdevice(f"__nv_fast_{name}f", f32, list(args))
    if name == "tanh" and tuple(lc.module.options.cc) >= _TANH_APPROX_CC:
        asm = ir.InlineAsm(ir.FunctionType(f32, [f32]), "tanh.approx.f32 $0, $1;", "=f,f")
        return lc.builder.call(asm, list(args))
    return None


def fast_fdiv(lc, a, b):
    """float32 ``a / b`` under fastmath: libdevice's ``__nv_fast_fdividef``."""
    return lc.call_libdevice("__nv_fast_fdividef", ir.FloatType(), [a, b])
