"""Typing of the memory-space array constructors: ``cuda.shared.array``,
``cuda.local.array`` and ``cuda.const.array_like``.

``shape`` must be a compile-time int or tuple of ints; ``dtype`` a cudalite
type, a NumPy scalar type/dtype or a dtype string.  The result is a C-layout
array.  ``cuda.shared.array(0, dtype)`` is the dynamic shared-memory array (1-d,
its length set at launch).  ``cuda.const.array_like(a)`` copies the global NumPy
array ``a`` into constant memory (a read-only array; an empty one too).
``alignment=`` (local and shared arrays) asks for the data's address to be a
multiple of that many bytes: a constant power of two, else numba-cuda's errors
(a TypingError for a non-constant or non-integer, a ValueError -- AlignmentError
-- for a non-positive or non-power-of-two integer).

Sizes are checked here, at the user's call, against the target's limits
(:func:`memory_limits`): a static shared array may take at most 48 KiB (what ptxas
allows a block's static shared data; more is dynamic shared memory, sized at
launch), a local array at most 512 KiB (the per-thread local memory of every
compute capability; ptxas does not check it, the launch would fail).

A call whose arguments do not type (a runtime or non-integer shape, a bad dtype or
alignment) gets cudalite's located message plus numba's wording of the same failure
(:func:`numba_signature_note`: "No implementation of function Function(<function
shared.array>) found for signature: >>> array(shape=float32, dtype=class(float32))"),
and a dtype string NumPy does not know is numba's "Invalid NumPy dtype specified".
"""

from __future__ import annotations

from dataclasses import dataclass

from ...numpy_support import is_ndarray, is_numpy_integer, numpy

from ... import device_api as api
from ...errors import AlignmentError, TypingError
from ...registry import registry
from ...datamodel import data_models
from ...types import Array, Boolean, Complex, CPointer, NumberClass, Record, Signature, Type, type_from_dtype
from ...types._containers import MAX_NDIM
from ...value_text import value_text
from .._records import ArraySpec, ConstArray, Resolved
from .intrinsics import check_arity

__all__ = ["const_shape", "const_dtype", "MemoryLimits", "memory_limits", "itemsize", "numba_signature_note"]


@dataclass(frozen=True)
class MemoryLimits:
    """Bytes an array of one memory space may take on a target."""

    shared_static: int  # all static shared arrays of a block together
    local: int  # local memory of one thread


def memory_limits(cc=None) -> MemoryLimits:
    """The limits of compute capability ``cc`` (``(9, 0)``; None: the target is not
    known yet).  The same on every target CUDA 12 and 13 compile for (sm_75 to
    sm_120; checked with nvJitLink: "uses too much shared data (0xc004 bytes,
    0xc000 max)"); a target with other limits gets its row here."""
    return MemoryLimits(shared_static=48 * 1024, local=512 * 1024)


def itemsize(t) -> int:
    """Bytes of one element of type ``t`` in memory (an extension type with a struct
    model: its members laid out with natural alignment, as LLVM lays out the struct)."""
    if isinstance(t, Record):
        return t.size
    if isinstance(t, Boolean):
        return 1
    if isinstance(t, CPointer):  # a pointer element (an array of pointers: carray(p, n, voidptr))
        return 8
    members = _struct_members(t)
    if members is not None:
        size, align = 0, 1
        for m in members:
            n = itemsize(m)
            a = _alignment(m)
            size = (size + a - 1) // a * a + n
            align = max(align, a)
        return (size + align - 1) // align * align
    return t.bitwidth // 8


def _alignment(t) -> int:
    members = _struct_members(t)
    if members is not None:
        return max((_alignment(m) for m in members), default=1)
    if isinstance(t, Complex):
        return t.bitwidth // 16
    return itemsize(t)


def _struct_members(t):
    model = data_models.lookup(t) if not type(t).__module__.startswith("cudalite.core.") else None
    flat = getattr(model, "flat_members", None)
    return tuple(flat()) if flat is not None else None


def _extension_dtype(value) -> bool:
    """Whether ``value`` is an extension type whose struct model can be an array element."""
    return isinstance(value, Type) and _struct_members(value) is not None


def const_shape(site, allow_zero=False):
    """The constant shape as a tuple of ints (``shape=0`` -> ``()`` when allowed)."""
    if not site.is_const(0):
        raise site.error(f"the shape must be a compile-time constant int or tuple of ints, "
                         f"not a runtime {site.args[0]}")
    shape = site.consts[0]
    items = shape if isinstance(shape, tuple) else (shape,)
    if not items or not all((isinstance(n, int) or is_numpy_integer(n)) and not isinstance(n, bool) for n in items):
        raise site.error(f"the shape must be an int or a tuple of ints, not {value_text(shape)}")
    items = tuple(int(n) for n in items)
    if allow_zero and items == (0,):
        return ()
    if any(n <= 0 for n in items):
        raise site.error(f"the shape must have positive extents, not {value_text(shape)}")
    if len(items) > MAX_NDIM:
        raise site.error(f"arrays have at most {MAX_NDIM} dimensions")
    return items


def const_dtype(site, i=1):
    """The constant element type of argument ``i`` (a value, or a parameter whose type
    is a number class: a dtype passed down to a device function)."""
    if not site.is_const(i) and isinstance(site.args[i], NumberClass):
        t = site.args[i].instance_type
        if t.is_scalar or isinstance(t, Record):
            return t
    if site.is_const(i) and _extension_dtype(site.consts[i]):  # an extension's struct-model type
        return site.consts[i]
    if not site.is_const(i):
        raise site.error(f"the dtype must be a compile-time constant, not a runtime {site.args[i]}")
    value = site.consts[i]
    if value is None:  # NumPy reads dtype None as float64: never what is meant here
        raise site.error("the dtype must be given (a type such as float32), not None")
    t = None
    try:
        t = type_from_dtype(value)
    except Exception:  # noqa: BLE001 - NumPy raises several kinds for junk
        t = None
    if t is None and isinstance(value, str) and not _numpy_dtype_name(value):
        raise site.error(f"Invalid NumPy dtype specified: {value!r} (NumPy has no dtype of that name)")
    if t is None or not (t.is_scalar or isinstance(t, Record)):
        raise site.error(f"{value_text(value)} is not a supported array dtype")
    return t


def _numpy_dtype_name(name: str) -> bool:
    """Whether NumPy reads ``name`` as a dtype (``'int32'``, ``'f8'``, ``'U5'``...)."""
    try:
        numpy().dtype(name)
    except (TypeError, ValueError):
        return False
    return True


def _literal_str(site, i) -> str:
    """Argument ``i``'s type as numba shows it in a signature: a constant int, bool or
    string is its literal type (``Literal[int](10)``), anything else its type."""
    if site.is_const(i):
        value = site.consts[i]
        for kind in (bool, int, str):
            if isinstance(value, kind):
                return f"Literal[{kind.__name__}]({value})"
    return str(site.args[i])


def numba_signature_note(site, params) -> str:
    """numba's report of a call to a device-API function that no typing matched:
    the function (its name inside the module that exports it, ``shared.array``) and
    the argument types, each named by its parameter (``params``)."""
    callee = site.callee
    qualname = getattr(callee, "__qualname__", None) or site.name
    module = getattr(callee, "__module__", None) or ""
    prefix = module.rpartition(".")[2] + "."
    if qualname.startswith(prefix):  # cudalite's stubs are named cuda.shared.array in module cudalite.cuda
        qualname = qualname[len(prefix):]
    shown = ", ".join(f"{p}={_literal_str(site, i)}" for i, p in zip(range(len(site.args)), params))
    return (f"No implementation of function Function(<function {qualname}>) found for signature:\n \n"
            f" >>> {qualname.rpartition('.')[2]}({shown})")


def _size_limit(space, limits):
    if space == "shared":
        return limits.shared_static, "static shared memory a block may have"
    return limits.local, "local memory a thread may have"


def check_size(site, space, shape, dtype):
    """Refuse an array larger than its memory space allows on the target (the
    target's compute capability is the typing context's, when it has options)."""
    cc = getattr(getattr(site.context, "options", None), "cc", None)
    limit, what = _size_limit(space, memory_limits(cc))
    count = 1
    for n in shape:
        count *= n
    nbytes = count * itemsize(dtype)
    if nbytes > limit:
        target = f"sm_{cc[0]}{cc[1]}" if cc else "any target"
        dims = " x ".join(map(str, shape))
        hint = (" (for more, use dynamic shared memory: cuda.shared.array(0, dtype) and the "
                "launch's sharedmem size)" if space == "shared" else "")
        raise site.error(f"this {space} array of {dims} {dtype} takes {nbytes} bytes, more than the "
                         f"{limit} bytes ({limit // 1024} KiB) of {what} on {target}{hint}")


def const_alignment(site, i=2):
    """The ``alignment=`` argument (numba-cuda's rules and words): None or a
    constant positive power of two."""
    if i >= len(site.args):
        return None
    value = site.consts[i] if site.is_const(i) else None
    if site.is_const(i) and value is None:
        return None
    if not site.is_const(i) or isinstance(value, bool) or not (isinstance(value, int) or is_numpy_integer(value)):
        shown = value_text(value) if site.is_const(i) else f"a runtime {site.args[i]}"
        raise site.error(f"RequireLiteralValue: alignment must be a constant integer, not {shown}")
    value = int(value)
    if value <= 0 or value & (value - 1):
        raise AlignmentError(f"{site.name}(): Alignment must be a power of 2 greater than 0, not {value}",
                             site.loc)
    return value


_ARRAY_PARAMS = ("shape", "dtype", "alignment")


def _array_typer(space):
    def typer(site):
        try:
            check_arity(site, 2, 3)
            shape = const_shape(site, allow_zero=space == "shared")
            dtype = const_dtype(site)
            alignment = const_alignment(site)
        except TypingError as e:  # the arguments do not type: numba's words too
            raise e.add_note_loc(numba_signature_note(site, _ARRAY_PARAMS)) from None
        check_size(site, space, shape, dtype)
        return Resolved(Signature(Array(dtype, max(len(shape), 1), "C"), tuple(site.args)),
                        ArraySpec(shape, dtype, alignment))

    return typer


registry.call(api.shared.array, params=_ARRAY_PARAMS, name="cuda.shared.array")(_array_typer("shared"))
registry.call(api.local.array, params=_ARRAY_PARAMS, name="cuda.local.array")(_array_typer("local"))


@registry.call(api.const.array_like, params=("ndarray",), name="cuda.const.array_like")
def _array_like(site):
    check_arity(site, 1)
    value = site.consts[0] if site.is_const(0) else None
    if not is_ndarray(value):
        raise site.error("the argument must be a global NumPy array (a compile-time constant), "
                         f"not {site.args[0]}")
    dtype = type_from_dtype(value.dtype)
    if dtype is None:  # an empty array is fine: a zero-length constant
        raise site.error(f"cannot place an array of dtype {value.dtype} and shape {value.shape} "
                         "in constant memory")
    return Resolved(Signature(Array(dtype, value.ndim, "C", readonly=True), tuple(site.args)),
                    ConstArray(value))
