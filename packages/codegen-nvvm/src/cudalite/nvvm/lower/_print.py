"""``print()`` in device code through CUDA's ``vprintf``.

The format string is built at compile time (string constants are inlined with
``%`` escaped); numbers are passed in a local argument buffer with C varargs
promotions: integers as 64-bit, floats as double, booleans as ``True``/``False``
text chosen at run time.  Tuples print as Python prints them (``(1,)``, nested), the
``cuda.threadIdx``-like namespaces as a 3-tuple; over 32 values, the raw format string
is printed (CUDA's vprintf limit, as numba-cuda)."""

from __future__ import annotations

import builtins

from llvmlite import ir

from cudalite.core.types import BFloat16, Boolean, Complex, Float, Fp8, Integer, Opaque, StringLiteral, Tuple
from cudalite.core.typing.rules.intrinsics import SREG_VALUES
from cudalite.core.typing.rules.printing import MAX_PRINT_VALUES

from ._bf16conv import bf16_to_f32
from ._fp8conv import decode_f64
from ._intrinsics import read_sreg
from ._irtypes import ADDRSPACE_CONST, I8, I32, ptr
from ._registry import lowerings

__all__ = ["emit_printf", "global_string"]

_DOUBLE = ir.DoubleType()
_I64 = ir.IntType(64)


def global_string(mb, text: str):
    """A generic ``i8*`` to a NUL-terminated constant string (deduplicated per module)."""
    key = ("str", text)
    hit = mb.const_arrays.get(key)
    if hit is not None:
        return hit[0]
    data = bytearray(text.encode()) + b"\0"
    ty = ir.ArrayType(I8, len(data))
    gv = ir.GlobalVariable(mb.ir_module, ty, mb.unique("cudalite.str"), addrspace=ADDRSPACE_CONST)
    gv.global_constant = True
    gv.linkage = "internal"
    gv.initializer = ir.Constant(ty, data)
    zero = ir.Constant(I32, 0)
    p = gv.gep([zero, zero])  # i8 addrspace(4)*; callers cast to generic
    mb.const_arrays[key] = (p, None)
    return p


def emit_printf(lc, fmt: str, values):
    """Call ``vprintf(fmt, &args)`` with already-promoted values (i64 / double / i8*)."""
    b = lc.builder
    mb = lc.module
    vprintf = mb.declare("vprintf", ir.FunctionType(I32, [ptr(I8), ptr(I8)]))
    fmt_ptr = _generic(b, global_string(mb, fmt))
    if values:
        buf_ty = ir.LiteralStructType([v.type for v in values])
        buf = lc.alloca(buf_ty)
        for i, v in enumerate(values):
            b.store(v, b.gep(buf, [ir.Constant(I32, 0), ir.Constant(I32, i)]))
        argp = b.bitcast(buf, ptr(I8))
    else:
        argp = ir.Constant(ptr(I8), None)
    b.call(vprintf, [fmt_ptr, argp])


def _generic(b, p):
    if p.type.addrspace != 0:
        return b.addrspacecast(p, ptr(I8))
    return p


def _format(lc, v, t, parts, values):
    """Append the format of one printed value (``parts``) and its vprintf values."""
    b = lc.builder
    if isinstance(t, StringLiteral):
        parts.append(t.value.replace("%", "%%"))
    elif isinstance(t, Boolean):
        parts.append("%s")
        values.append(b.select(v, _generic(b, global_string(lc.module, "True")),
                               _generic(b, global_string(lc.module, "False"))))
    elif isinstance(t, Integer):
        parts.append("%lld" if t.signed else "%llu")
        values.append(lc.cast(v, t, Integer(64, t.signed)))
    elif isinstance(t, Float):
        parts.append("%f")
        values.append(b.fpext(v, _DOUBLE) if t.bitwidth < 64 else v)
    elif isinstance(t, BFloat16):  # as numba-cuda: its float32 value, printed as a double
        parts.append("%f")
        values.append(b.fpext(bf16_to_f32(b, v), _DOUBLE))
    elif isinstance(t, Fp8):  # its value, as a double
        parts.append("%f")
        values.append(decode_f64(b, v, t.fmt))
    elif isinstance(t, Complex):
        parts.append("(%f+%fj)")
        for k in range(2):
            part = b.extract_value(v, k)
            values.append(b.fpext(part, _DOUBLE) if t.underlying.bitwidth < 64 else part)
    elif isinstance(t, Tuple):  # (a, b), (a,) and nested tuples, as Python prints them
        inner = []
        for k, et in enumerate(t.types):
            sub = []
            _format(lc, b.extract_value(v, k), et, sub, values)
            inner.append(" ".join(sub))
        parts.append("(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")")
    elif isinstance(t, Opaque):  # cuda.threadIdx & co: a dim3, printed as a 3-tuple of ints
        ns = t.obj
        regs = [SREG_VALUES[getattr(ns, a)] for a in "xyz"]
        parts.append("(%lld, %lld, %lld)")
        values.extend(b.zext(read_sreg(lc, r), _I64) for r in regs)


@lowerings.call(builtins.print)
def _print(lc, node, args, info):
    parts, values = [], []
    for v, t in zip(args, info.sig.args):
        _format(lc, v, t, parts, values)
    fmt = " ".join(parts) + "\n"
    if len(values) > MAX_PRINT_VALUES:  # vprintf's limit: the raw format string (typing warned)
        emit_printf(lc, fmt.replace("%", "%%"), [])
    else:
        emit_printf(lc, fmt, values)
    return ir.Constant(ir.LiteralStructType([]), None)
