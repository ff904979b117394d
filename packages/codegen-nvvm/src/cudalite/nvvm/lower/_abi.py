"""The ABIs of compiled entry points, and Itanium-style name mangling.

Parameter layout (documented in docs/abi.md), applied to kernels and to both
device-function ABIs: every argument is flattened into scalar parameters as
:func:`cudalite.core.abi.kernel_abi` says (the one definition): the wrappers take
their parameter types from its slots (LLVM IR text read back with
:func:`._irtypes.type_from_text`) and rebuild each argument from the slots of its
:class:`~cudalite.core.abi.ArgABI`.  C/F-contiguous arrays carry no strides: they are
derived here from the extents (:func:`contiguous_strides`).

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

from cudalite.core.typing.rules.memory import itemsize  # one definition: core's (extension types too)
from cudalite.core.abi import Role, kernel_abi
from cudalite.core.errors import CompilerError
from cudalite.core.types import (
    Array, Boolean, Complex, CPointer, Float, Integer, NoneType, Record, Tuple, Void,
)

from ._casts import make_complex
from ._constants import array_struct
from ._irtypes import I8, I32, I64, ptr, type_from_text, value_type

__all__ = ["mangle", "mangle_type", "flat_params", "param_format", "emit_kernel", "emit_numba_abi",
           "emit_c_abi", "check_c_name", "is_symbol_name"]

_SCALAR_CODES = {
    "bool": "b", "int8": "a", "uint8": "h", "int16": "s", "uint16": "t", "int32": "i",
    "uint32": "j", "int64": "x", "uint64": "y", "float16": "DF16_", "float32": "f",
    "float64": "d", "complex64": "Cf", "complex128": "Cd", "bfloat16": "DF16b",
    "fp8_e4m3": "13__nv_fp8_e4m3", "fp8_e5m2": "13__nv_fp8_e5m2", "fp8_e8m0": "13__nv_fp8_e8m0",
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


# A PTX identifier (PTX ISA "Identifiers"): a letter then letters, digits, '_' or '$';
# or '_'/'$' then at least one more of those ('%' names are for registers, and libNVVM
# refuses them).  WARP_SZ is a predefined PTX constant.
_SYMBOL = re.compile(r"[A-Za-z][A-Za-z0-9_$]*|[_$][A-Za-z0-9_$]+")
_PTX_RESERVED = frozenset({"WARP_SZ"})


def is_symbol_name(name) -> bool:
    """Whether ``name`` can name a function in PTX (both ABIs' entry points)."""
    return isinstance(name, str) and _SYMBOL.fullmatch(name) is not None and name not in _PTX_RESERVED


def check_c_name(name: str, loc=None) -> str:
    if not is_symbol_name(name):
        raise CompilerError(
            f"{name!r} is not a valid C symbol name for abi='c'; pass abi_info={{'abi_name': 'my_name'}}", loc
        )
    return name


# -- parameter flattening: derived from the one kernel ABI (cudalite.core.abi) ----------------
def flat_params(t) -> list:
    """LLVM parameter types of one argument of type ``t`` (the slots' types)."""
    return [type_from_text(s.llvm_type) for s in kernel_abi((t,)).slots]


def param_format(argtypes) -> str:
    """The kernel's flattened parameters as a ``struct`` format (one code per
    parameter, in order): what a launcher packs.  ``kernel_abi(argtypes).param_format``."""
    return kernel_abi(argtypes).param_format


def _rebuild(b, params, arg):
    """Rebuild the value of one argument (or tuple item) from its slots' parameters:
    ``params`` maps each of ``arg.slots`` (an :class:`~cudalite.core.abi.ArgABI`) to
    its IR value."""
    t = arg.type
    if isinstance(t, Tuple) or arg.items:  # a tuple, or an extension type's struct model: its items
        v = ir.Constant(value_type(t), ir.Undefined)
        for i, item in enumerate(arg.items):
            v = b.insert_value(v, _rebuild(b, params, item), i)
        return v
    by_role = {}
    for s in arg.slots:
        by_role.setdefault(s.role, []).append(params[s])
    if isinstance(t, Boolean):
        return b.icmp_unsigned("!=", by_role[Role.BOOL][0], ir.Constant(I8, 0))
    if isinstance(t, Complex):
        return make_complex(b, by_role[Role.REAL][0], by_role[Role.IMAG][0], t)
    if isinstance(t, Array):
        shape = by_role.get(Role.SHAPE, [])  # none for a 0-d array
        strides = by_role.get(Role.STRIDE) or contiguous_strides(b, t, shape)
        return array_struct(b, t, by_role[Role.DATA][0], shape, strides)
    if not arg.slots:  # a compile-time constant argument (a plain Enum member): no parameter
        return ir.Constant(value_type(t), None)
    (slot,) = arg.slots  # a number or a pointer: one parameter, passed as is
    return params[slot]


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
    fn, b, args, _ = _wrapper_parts(mb, tf, name, ret, extra_first)
    return fn, b, args


def _wrapper_parts(mb, tf, name, ret, extra_first=()):
    """The entry point's function, a builder in its entry block, the arguments
    rebuilt from the flattened parameters and the debug subprogram (or None)."""
    abi = kernel_abi(tf.argtypes)
    params = list(extra_first) + [type_from_text(s.llvm_type) for s in abi.slots]
    fn = ir.Function(mb.ir_module, ir.FunctionType(ret, params), name)
    _name_params(fn.args[len(extra_first):], abi, tf.fir.params)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    sp = None
    if mb.debug is not None:  # callers need debug info too, or inlined line info is dropped
        sp = mb.debug.subprogram(fn, tf.fir, tf.argtypes)
        b.debug_metadata = mb.debug.location(tf.fir.loc, sp)
    values = dict(zip(abi.slots, fn.args[len(extra_first):]))
    args = [_rebuild(b, values, arg) for arg in abi.args]
    return fn, b, args, sp


def _name_params(values, abi, names):
    """Parameters named after the Python arguments they carry: ``x`` for an argument
    of one value, ``x.0``, ``x.1``... for the values of a flattened one (an array's
    data, extents and strides), as a debugger or a reader of the IR sees them."""
    values = iter(values)
    for name, arg in zip(names, abi.args):
        n = len(arg.slots)
        for k in range(n):
            next(values).name = name if n == 1 else f"{name}.{k}"


def _is_void(t):
    return isinstance(t, (Void, NoneType))


def emit_kernel(mb, tf, name, launch_bounds=None, cluster_dims=None):
    """The kernel's entry point, its body lowered straight into it (as numba-cuda
    does: no call to an implementation function remains in the kernel's IR)."""
    fn, b, args, sp = _wrapper_parts(mb, tf, name, ir.VoidType())
    mb.lower_into(fn, tf, b, args, sp)
    mb.mark_kernel(fn, launch_bounds, cluster_dims)
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
