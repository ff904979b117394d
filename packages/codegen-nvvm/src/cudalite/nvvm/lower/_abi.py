"""The ABIs of compiled entry points, and Itanium-style name mangling.

Parameter layout (documented in docs/abi.md), applied to kernels and to both
device-function ABIs: every argument is flattened into scalar parameters

* number -> one parameter (bool as ``i8``; complex as two floats)
* array  -> ``data`` pointer, then ``ndim`` int64 extents, then -- for layout 'A'
  only -- ``ndim`` int64 byte strides.  C/F-contiguous arrays carry no strides:
  they are derived from the extents, so launches pack fewer bytes.
* tuple  -> its items, flattened in order
* CPointer / record -> one pointer

Entry points:

* kernel: ``.entry`` with void return;
* Numba ABI device function: ``i32 @mangled(RET* retptr, args...)``; returns
  status 0, the value goes through ``retptr``;
* C ABI device function: ``RET @name(args...)``, the value returned directly.
"""

from __future__ import annotations

import hashlib
import re

from llvmlite import ir

from cudalite.core.errors import CompilerError
from cudalite.core.types import (
    Array, Boolean, Complex, CPointer, Float, Integer, NoneType, Record, Tuple, Void,
)

from ._casts import make_complex
from ._constants import array_struct
from ._irtypes import I8, I32, I64, memory_type, ptr, value_type

__all__ = ["mangle", "mangle_type", "flat_params", "param_format", "emit_kernel", "emit_numba_abi",
           "emit_c_abi", "check_c_name"]

_SCALAR_CODES = {
    "bool": "b", "int8": "a", "uint8": "h", "int16": "s", "uint16": "t", "int32": "i",
    "uint32": "j", "int64": "x", "uint64": "y", "float16": "DF16_", "float32": "f",
    "float64": "d", "complex64": "Cf", "complex128": "Cd",
}


def _escape(part: str) -> str:
    out = []
    for ch in part:
        if ch.isalnum() and ch.isascii() or ch == "_":
            out.append(ch)
        else:
            out.append(f"_{ord(ch):02x}")
    s = "".join(out)
    if s[:1].isdigit():
        s = "_" + s
    return s


def _source_name(part: str) -> str:
    s = _escape(part)
    return f"{len(s)}{s}"


def _tag(t) -> str:
    """A compact, injective spelling of a non-scalar type for mangled names."""
    if isinstance(t, Array):
        ro = "ro" if t.readonly else ""
        return f"Array{t.ndim}{t.layout}{ro}_{_tag(t.dtype)}"
    if isinstance(t, Tuple):
        return f"Tuple{len(t.types)}_" + "_".join(_tag(i) for i in t.types) + "_E"
    if isinstance(t, CPointer):
        return f"Ptr{t.addrspace}_{_tag(t.dtype)}"
    if isinstance(t, Record):
        return "Record" + hashlib.sha1(str(t).encode()).hexdigest()[:12]
    return str(t)


def mangle_type(t) -> str:
    code = _SCALAR_CODES.get(getattr(t, "name", ""))
    if code is not None and isinstance(t, (Boolean, Integer, Float, Complex)):
        return code
    return _source_name(_tag(t))


def mangle(module: str, qualname: str, argtypes) -> str:
    """``_ZN<module parts><qualname parts>E<argtypes>``: unique per signature."""
    parts = [p for p in (module or "__main__").split(".") if p]
    parts += [p for p in qualname.split(".") if p]
    args = "".join(mangle_type(t) for t in argtypes) or "v"
    return "_ZN" + "".join(_source_name(p) for p in parts) + "E" + args


_C_NAME = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


def check_c_name(name: str, loc=None) -> str:
    if not _C_NAME.match(name or ""):
        raise CompilerError(
            f"{name!r} is not a valid C symbol name for abi='c'; pass abi_info={{'abi_name': 'my_name'}}", loc
        )
    return name


# -- parameter flattening ----------------------------------------------------------------------
def flat_params(t) -> list:
    """LLVM parameter types of one argument of type ``t``."""
    if isinstance(t, Boolean):
        return [I8]
    if isinstance(t, Complex):
        f = value_type(t.underlying)
        return [f, f]
    if isinstance(t, (Integer, Float, CPointer)):
        return [value_type(t)]
    if isinstance(t, Array):
        n = t.ndim * (2 if t.layout == "A" else 1)
        return [ptr(memory_type(t.dtype))] + [I64] * n
    if isinstance(t, Tuple):
        return [p for item in t.types for p in flat_params(item)]
    if isinstance(t, Record):
        return [ptr(I8)]
    raise CompilerError(f"a value of type {t} cannot be passed as an argument of an entry point")


_STRUCT_CODES = {
    "bool": "B", "int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i", "uint32": "I",
    "int64": "q", "uint64": "Q", "float16": "e", "float32": "f", "float64": "d",
}


def param_format(argtypes) -> str:
    """The kernel's flattened parameters as a ``struct`` format (one code per
    parameter, in order): what a launcher packs.  Mirrors :func:`flat_params`."""
    out = []

    def one(t):
        if isinstance(t, Complex):
            out.append(_STRUCT_CODES[t.underlying.name] * 2)
        elif isinstance(t, (Boolean, Integer, Float)):
            out.append(_STRUCT_CODES[t.name])
        elif isinstance(t, (CPointer, Record)):
            out.append("Q")
        elif isinstance(t, Array):
            out.append("Q" + "q" * (t.ndim * (2 if t.layout == "A" else 1)))
        elif isinstance(t, Tuple):
            for item in t.types:
                one(item)
        else:
            raise CompilerError(f"a value of type {t} cannot be passed to a kernel")

    for t in argtypes:
        one(t)
    return "".join(out)


def _rebuild(b, params, t):
    """Consume parameters from the iterator ``params`` and rebuild a value of type ``t``."""
    if isinstance(t, Boolean):
        return b.icmp_unsigned("!=", next(params), ir.Constant(I8, 0))
    if isinstance(t, Complex):
        re_, im = next(params), next(params)
        return make_complex(b, re_, im, t)
    if isinstance(t, (Integer, Float, CPointer, Record)):
        return next(params)
    if isinstance(t, Array):
        data = next(params)
        shape = [next(params) for _ in range(t.ndim)]
        if t.layout == "A":
            strides = [next(params) for _ in range(t.ndim)]
        else:
            strides = contiguous_strides(b, t, shape)
        return array_struct(b, t, data, shape, strides)
    if isinstance(t, Tuple):
        v = ir.Constant(value_type(t), ir.Undefined)
        for i, item in enumerate(t.types):
            v = b.insert_value(v, _rebuild(b, params, item), i)
        return v
    raise CompilerError(f"cannot rebuild an argument of type {t}")


def itemsize(t) -> int:
    if isinstance(t, Record):
        return t.size
    if isinstance(t, Boolean):
        return 1
    if isinstance(t, Complex):
        return t.bitwidth // 8
    return t.bitwidth // 8


def contiguous_strides(b, t: Array, shape):
    """Byte strides of a C- or F-contiguous array from its extents."""
    n = t.ndim
    strides = [None] * n
    acc = ir.Constant(I64, itemsize(t.dtype))
    order = range(n - 1, -1, -1) if t.layout == "C" else range(n)
    for k in order:
        strides[k] = acc
        acc = b.mul(acc, shape[k])
    return strides


def _wrapper(mb, tf, name, ret, extra_first=()):
    argtypes = tf.argtypes
    params = list(extra_first) + [p for t in argtypes for p in flat_params(t)]
    fn = ir.Function(mb.ir_module, ir.FunctionType(ret, params), name)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    if mb.debug is not None:  # callers need debug info too, or inlined line info is dropped
        sp = mb.debug.subprogram(fn, tf.fir)
        b.debug_metadata = mb.debug.location(tf.fir.loc, sp)
    it = iter(fn.args[len(extra_first):])
    args = [_rebuild(b, it, t) for t in argtypes]
    return fn, b, args


def _is_void(t):
    return isinstance(t, (Void, NoneType))


def emit_kernel(mb, tf, name, launch_bounds=None):
    impl = mb.function_for(tf)
    fn, b, args = _wrapper(mb, tf, name, ir.VoidType())
    b.call(impl, args)
    b.ret_void()
    mb.mark_kernel(fn, launch_bounds)
    return fn


def emit_numba_abi(mb, tf, name):
    impl = mb.function_for(tf)
    rt = tf.return_type
    ret_slot = ptr(I8) if _is_void(rt) else ptr(value_type(rt))
    fn, b, args = _wrapper(mb, tf, name, I32, extra_first=(ret_slot,))
    res = b.call(impl, args)
    if not _is_void(rt):
        b.store(res, fn.args[0])
    b.ret(ir.Constant(I32, 0))
    return fn


def emit_c_abi(mb, tf, name):
    impl = mb.function_for(tf)
    rt = tf.return_type
    ret = ir.VoidType() if _is_void(rt) else value_type(rt)
    if isinstance(rt, Boolean):
        ret = I8
    fn, b, args = _wrapper(mb, tf, name, ret)
    res = b.call(impl, args)
    if _is_void(rt):
        b.ret_void()
    elif isinstance(rt, Boolean):
        b.ret(b.zext(res, I8))
    else:
        b.ret(res)
    return fn
