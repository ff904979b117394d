"""Lowering of the ``cuda.fp16`` math functions (``hsin`` ... ``htanh``): each
computes in float32 through libdevice and rounds the result to float16 once
(``hrcp`` is a float32 division, ``hrsqrt`` libdevice's ``rsqrtf``)."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api
from cudalite.core.types import float16

from ._floats import libm
from ._registry import lowerings

__all__ = []

# fp16 function -> libdevice stem (float32 flavour, ``__nv_<stem>f``)
_STEMS = {
    "hsin": "sin", "hcos": "cos", "hlog": "log", "hlog10": "log10", "hlog2": "log2",
    "hexp": "exp", "hexp10": "exp10", "hexp2": "exp2", "hsqrt": "sqrt", "hrsqrt": "rsqrt",
    "hceil": "ceil", "hfloor": "floor", "hrint": "rint", "htrunc": "trunc",
    "htanh": "tanh", "htanh_approx": "tanh",
}


@lowerings.call(*(getattr(api.fp16, n) for n in api.FP16_MATH_OPS))
def _fp16_math(lc, node, args, info):
    (x,) = args
    op = info.payload.op
    if op == "hrcp":
        b = lc.builder
        q = b.fdiv(ir.Constant(ir.FloatType(), 1.0), b.fpext(x, ir.FloatType()))
        return b.fptrunc(q, ir.HalfType())
    return libm(lc, _STEMS[op], float16, x)
