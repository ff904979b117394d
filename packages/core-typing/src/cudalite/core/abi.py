"""The kernel ABI: how the arguments of an entry point become flat parameters.

This module is the one definition of the parameter layout of docs/abi.md.  For a
signature's argument types, :func:`kernel_abi` returns a :class:`KernelABI`: the
ordered :class:`ParamSlot` of every flattened parameter, each with its role, the
argument (and tuple-item path) it comes from, its LLVM type (as IR text: core stays
free of llvmlite) and its ``struct`` code.  Everything else derives from that value:

* the codegen's kernel and device-function wrappers (``cudalite.nvvm.lower._abi``)
  take their parameter types from the slots and rebuild each argument from them;
* the driver launcher's parameter format is :attr:`KernelABI.param_format`;
* the runtime's argument packing (the argument kinds of ``cudalite.cuda._launch``) walks :attr:`KernelABI.args`
  (one :class:`ArgABI` per argument, with one per tuple item inside it) and packs
  array values with :func:`array_values`;
* the kernel cache stores :meth:`KernelABI.to_payload` (plain JSON-able data) and
  rebuilds it with :meth:`KernelABI.from_payload`, which checks it strictly.

The rule (docs/abi.md): a number is one parameter (bool as ``i8``, complex as two
floats, real then imaginary); an array is its data pointer, then ``ndim`` int64
extents, then -- for layout 'A' only (:func:`passes_strides`) -- ``ndim`` int64 byte
strides (so a 0-d array is its data pointer alone); a tuple is its items flattened in
order; a CPointer or a record is one pointer.

It is pure type logic, so it lives here in core, next to the types, rather than in the
codegen: the codegen, the runtime and the cache all read the same value, and none of
them needs llvmlite to know a kernel's parameters.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from .errors import CompilerError
from .types import (
    Array, BFloat16, BFloat16Raw, Boolean, CharSeq, Complex, CPointer, EnumMember, Float, Fp8, Integer, Record,
    NoneType, SliceType, Tuple,
    UnicodeCharSeq, VectorType,
)

__all__ = [
    "ABI_VERSION", "Role", "ParamSlot", "ArgABI", "KernelABI", "kernel_abi", "passes_strides", "array_values",
    "llvm_value_text", "llvm_memory_text",
]

#: version of :meth:`KernelABI.to_payload`'s data (bump when the layout rule changes)
ABI_VERSION = 1


class Role(str, enum.Enum):
    """What one flattened parameter holds."""

    SCALAR = "scalar"  # an integer or a float, as is
    BOOL = "bool"  # a bool as one byte (0 or 1)
    REAL = "real"  # the real part of a complex number
    IMAG = "imag"  # its imaginary part
    DATA = "data"  # an array's data pointer (address of element [0, ..., 0])
    SHAPE = "shape"  # an array's extent along ``dim``
    STRIDE = "stride"  # an array's byte stride along ``dim`` (layout 'A' only)
    POINTER = "pointer"  # a CPointer, or a record (passed by reference)


@dataclass(frozen=True, slots=True)
class ParamSlot:
    """One flattened parameter: ``role``; the Python argument it comes from (``arg``)
    and the tuple-item indices inside that argument (``path``, ``()`` for the argument
    itself); the array dimension of a shape/stride slot (``dim``, else None); its LLVM
    type as IR text (``"float"``, ``"i64"``, ``"float*"``) and its ``struct`` code."""

    role: Role
    arg: int
    path: tuple
    dim: int | None
    llvm_type: str
    code: str


@dataclass(frozen=True, slots=True)
class ArgABI:
    """The slots of one argument (``path == ()``) or of one tuple item inside it:
    its cudalite ``type``, its ``slots`` (contiguous, in order) and, for tuples, one
    :class:`ArgABI` per item (``items``)."""

    type: object
    path: tuple
    slots: tuple
    items: tuple = ()

    @property
    def count(self) -> int:
        """How many flattened parameter values this argument (or item) has."""
        return len(self.slots)


# -- the rule ----------------------------------------------------------------------------------
_STRUCT_CODES = {
    "bool": "B", "int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i", "uint32": "I",
    "int64": "q", "uint64": "Q", "float16": "e", "float32": "f", "float64": "d",
    "bfloat16": "H",  # passed as its bits
    "fp8_e4m3": "B", "fp8_e5m2": "B", "fp8_e8m0": "B",  # passed as their byte
}
_POINTER_CODE, _EXTENT_CODE = "Q", "q"
_FLOAT_TEXT = {16: "half", 32: "float", 64: "double"}


def passes_strides(layout: str) -> bool:
    """Whether an array parameter of ``layout`` carries its byte strides: only layout
    'A'.  C- and F-contiguous arrays pass their extents; the kernel derives the strides."""
    return layout == "A"


def array_values(ptr, shape, strides, layout) -> tuple:
    """The parameter values of an array argument of parameter layout ``layout``, in
    slot order: ``(ptr, *shape)``, plus ``*strides`` (bytes) when :func:`passes_strides`."""
    if passes_strides(layout):
        return (ptr, *shape, *strides)
    return (ptr, *shape)


def llvm_value_text(t) -> str:
    """LLVM IR text of a value of type ``t`` in registers (what llvmlite prints)."""
    if isinstance(t, Boolean):
        return "i1"
    if isinstance(t, Integer):
        return f"i{t.bitwidth}"
    if isinstance(t, Float):
        return _FLOAT_TEXT[t.bitwidth]
    if isinstance(t, BFloat16):
        return "i16"  # libNVVM's IR has no ``bfloat``: its bits
    if isinstance(t, Fp8):
        return "i8"  # nor 8-bit floats
    if isinstance(t, BFloat16Raw):
        return "i16"
    if isinstance(t, Complex):
        f = _FLOAT_TEXT[t.underlying.bitwidth]
        return f"{{{f}, {f}}}"
    if isinstance(t, Tuple):
        return "{" + ", ".join(llvm_value_text(i) for i in t.types) + "}"
    if isinstance(t, Array):
        return f"{{{llvm_memory_text(t.dtype)}*, [{t.ndim} x i64], [{t.ndim} x i64]}}"
    if isinstance(t, CPointer):  # voidptr (a pointer to none/void) is i8*, as C's void*
        space = f" addrspace({t.addrspace})" if t.addrspace else ""
        pointee = "i8" if isinstance(t.dtype, NoneType) else llvm_memory_text(t.dtype)
        return f"{pointee}{space}*"
    if isinstance(t, Record):
        return "i8*"
    if isinstance(t, (CharSeq, UnicodeCharSeq)):
        return f"[{t.count} x i{t.bitwidth // t.count}]"
    if isinstance(t, SliceType):
        return "{i64, i64, i64}"
    if isinstance(t, VectorType):
        return "{" + ", ".join([llvm_value_text(t.base_type)] * t.count) + "}"
    members = _model_members(t)  # an extension type's struct model: its members' types
    if members is not None:
        return "{" + ", ".join(llvm_value_text(m) for m in members) + "}"
    return "{}"  # compile-time objects (None, functions, ...) have no runtime value


def llvm_memory_text(t) -> str:
    """LLVM IR text of ``t`` stored in memory (array elements, pointees)."""
    if isinstance(t, Boolean):
        return "i8"
    if isinstance(t, Record):
        return f"[{t.size} x i8]"
    members = _model_members(t)
    if members is not None:
        return "{" + ", ".join(llvm_memory_text(m) for m in members) + "}"
    return llvm_value_text(t)


def _flatten(t, arg, path, out) -> ArgABI:
    """Append the slots of a value of type ``t`` to ``out``; its :class:`ArgABI`."""
    start = len(out)
    items = ()
    if isinstance(t, Boolean):
        out.append(ParamSlot(Role.BOOL, arg, path, None, "i8", _STRUCT_CODES["bool"]))
    elif isinstance(t, Complex):
        f = t.underlying
        out.append(ParamSlot(Role.REAL, arg, path, None, llvm_value_text(f), _STRUCT_CODES[f.name]))
        out.append(ParamSlot(Role.IMAG, arg, path, None, llvm_value_text(f), _STRUCT_CODES[f.name]))
    elif isinstance(t, (Integer, Float, BFloat16, Fp8)):
        code = _STRUCT_CODES[f"{'int' if t.signed else 'uint'}{t.bitwidth}" if isinstance(t, Integer) else t.name]
        out.append(ParamSlot(Role.SCALAR, arg, path, None, llvm_value_text(t), code))
    elif isinstance(t, (CPointer, Record)):
        out.append(ParamSlot(Role.POINTER, arg, path, None, llvm_value_text(t), _POINTER_CODE))
    elif isinstance(t, Array):
        out.append(ParamSlot(Role.DATA, arg, path, None, llvm_memory_text(t.dtype) + "*", _POINTER_CODE))
        out.extend(ParamSlot(Role.SHAPE, arg, path, d, "i64", _EXTENT_CODE) for d in range(t.ndim))
        if passes_strides(t.layout):
            out.extend(ParamSlot(Role.STRIDE, arg, path, d, "i64", _EXTENT_CODE) for d in range(t.ndim))
    elif isinstance(t, Tuple):
        items = tuple(_flatten(item, arg, path + (j,), out) for j, item in enumerate(t.types))
    elif isinstance(t, EnumMember):
        pass  # a plain Enum member: the kernel is specialized on it (a constant), no slots
    elif isinstance(t, VectorType):
        raise CompilerError(f"a {t} cannot be an argument of a kernel or an exported function (nor can it in "
                            f"numba-cuda): pass its components, or an array, and build the vector inside with "
                            f"cuda.{t}(...)")
    else:
        members = _model_members(t)
        if members is None:
            raise CompilerError(f"a value of type {t} cannot be passed as an argument of an entry point")
        items = tuple(_flatten(item, arg, path + (j,), out) for j, item in enumerate(members))
    return ArgABI(t, path, tuple(out[start:]), items)


def _model_members(t):
    """The member types of extension type ``t`` whose data model is a struct (flattened
    like a tuple's items: the extension API's kernel arguments), else None."""
    from .datamodel import data_models

    if type(t).__module__.startswith("cudalite.core."):  # cudalite's own types have no model
        return None
    model = data_models.lookup(t)
    flat = getattr(model, "flat_members", None)
    return tuple(flat()) if flat is not None else None


def _layout(argtypes):
    out = []
    args = tuple(_flatten(t, i, (), out) for i, t in enumerate(argtypes))
    return args, tuple(out)


# -- the value ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class KernelABI:
    """The flattened parameters of an entry point with argument types ``argtypes``.

    ``slots``: every :class:`ParamSlot`, in parameter order.  ``args``: one
    :class:`ArgABI` per argument (derived; not part of equality).  Constructing a
    KernelABI checks that ``slots`` follow the rule for ``argtypes`` (ValueError)."""

    argtypes: tuple
    slots: tuple
    args: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        argtypes, slots = tuple(self.argtypes), tuple(self.slots)
        args, expected = _layout(argtypes)
        if slots != expected:
            raise ValueError(f"the parameter slots do not follow the kernel ABI for ({', '.join(map(str, argtypes))})")
        object.__setattr__(self, "argtypes", argtypes)
        object.__setattr__(self, "slots", slots)
        object.__setattr__(self, "args", args)

    @property
    def param_format(self) -> str:
        """The parameters as a ``struct`` format, one code per slot: what a launcher packs."""
        return "".join(s.code for s in self.slots)

    @property
    def llvm_types(self) -> tuple:
        """The parameters' LLVM types as IR text, one per slot."""
        return tuple(s.llvm_type for s in self.slots)

    def arg_slots(self, i: int) -> tuple:
        """The slots of argument ``i`` (contiguous, in order)."""
        return self.args[i].slots

    def n_values(self, i: int) -> int:
        """How many flattened values argument ``i`` has."""
        return self.args[i].count

    def slot_range(self, i: int) -> range:
        """The positions of argument ``i``'s slots among all parameters."""
        start = sum(a.count for a in self.args[:i])
        return range(start, start + self.args[i].count)

    # -- stored form -----------------------------------------------------------------------
    def to_payload(self) -> dict:
        """Plain JSON-able data: ``{"version": 1, "slots": [[role, arg, path, dim,
        llvm_type, code], ...]}`` (the argument types are stored by whoever stores this)."""
        return {
            "version": ABI_VERSION,
            "slots": [[s.role.value, s.arg, list(s.path), s.dim, s.llvm_type, s.code] for s in self.slots],
        }

    @classmethod
    def from_payload(cls, data, argtypes) -> "KernelABI":
        """The KernelABI stored by :meth:`to_payload` for ``argtypes``; ValueError when
        ``data`` is malformed, of another version, or not the ABI of ``argtypes``."""
        if not isinstance(data, dict) or set(data) != {"version", "slots"}:
            raise ValueError("a kernel ABI payload is a dict with exactly the keys 'version' and 'slots'")
        version = data["version"]
        if type(version) is not int or version != ABI_VERSION:
            raise ValueError(f"kernel ABI payload version {version!r} is not {ABI_VERSION}")
        rows = data["slots"]
        if not isinstance(rows, (list, tuple)):
            raise ValueError("kernel ABI payload 'slots' must be a list")
        return cls(tuple(argtypes), tuple(_slot_from_row(k, row) for k, row in enumerate(rows)))


def _is_index(v) -> bool:
    return type(v) is int and v >= 0


def _slot_from_row(k, row) -> ParamSlot:
    if not isinstance(row, (list, tuple)) or len(row) != 6:
        raise ValueError(f"kernel ABI payload slot {k}: expected [role, arg, path, dim, llvm_type, code], got {row!r}")
    role, arg, path, dim, llvm_type, code = row
    try:
        role = Role(role) if isinstance(role, str) else None
    except ValueError:
        role = None
    if role is None:
        raise ValueError(f"kernel ABI payload slot {k}: unknown role {row[0]!r}")
    if not _is_index(arg):
        raise ValueError(f"kernel ABI payload slot {k}: argument index {arg!r} is not a non-negative int")
    if not isinstance(path, (list, tuple)) or not all(_is_index(p) for p in path):
        raise ValueError(f"kernel ABI payload slot {k}: path {path!r} is not a list of non-negative ints")
    if dim is not None and not _is_index(dim):
        raise ValueError(f"kernel ABI payload slot {k}: dim {dim!r} is neither None nor a non-negative int")
    if not isinstance(llvm_type, str) or not isinstance(code, str):
        raise ValueError(f"kernel ABI payload slot {k}: llvm_type and code must be strings")
    return ParamSlot(role, arg, tuple(path), dim, llvm_type, code)


def kernel_abi(argtypes) -> KernelABI:
    """The :class:`KernelABI` of an entry point taking ``argtypes``; CompilerError for
    a type that cannot be passed (e.g. a function or a slice)."""
    argtypes = tuple(argtypes)
    _args, slots = _layout(argtypes)
    return KernelABI(argtypes, slots)
