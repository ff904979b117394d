"""Typing of Python values: frozen globals/closure constants and NumPy dtypes, and
the frozen form of a device array captured by a kernel (:class:`DeviceArrayRef`,
or :class:`BrokenDeviceArray` when its ``__cuda_array_interface__`` cannot be read).

Values are the user's objects: nothing here compares them with ``==`` or relies on
their ``repr``; :func:`untyped_reason` says why a value has no type."""

from __future__ import annotations

import enum as _enum
import types as _pytypes
from dataclasses import dataclass

from ..layout import c_strides, layout_of
from ..numpy_support import is_ndarray, is_numpy_scalar, loaded, numpy
from ..value_text import exception_text, value_text
from . import _fp8 as F, _scalar as S
from ._base import Type
from ._containers import MAX_NDIM, Array, NamedTuple, NestedArray, Record, Tuple
from ._enums import EnumClass, EnumMember
from ._extension import extension_typeof
from ._npextra import BytesLiteral, CharSeq, NPDatetime, NPTimedelta, UnicodeCharSeq
from ._functions import DType, Module, NumberClass, Opaque, PyFunction, StringLiteral

__all__ = ["typeof_constant", "type_from_dtype", "from_dtype", "dtype_of", "bfloat16_dtype", "fp8_dtype",
           "DeviceArrayRef", "device_array_ref", "BrokenDeviceArray", "untyped_reason"]

_BY_KIND_SIZE = {
    ("b", 1): S.boolean,
    ("i", 1): S.int8, ("i", 2): S.int16, ("i", 4): S.int32, ("i", 8): S.int64,
    ("u", 1): S.uint8, ("u", 2): S.uint16, ("u", 4): S.uint32, ("u", 8): S.uint64,
    ("f", 2): S.float16, ("f", 4): S.float32, ("f", 8): S.float64,
    ("c", 8): S.complex64, ("c", 16): S.complex128,
}
_FP8_BY_DTYPE_NAME = {t.ml_dtypes_name: t for t in F.FP8_TYPES.values()}
_PY_TYPES = {float: S.float64, int: S.int64, complex: S.complex128, bool: S.boolean}


def type_from_dtype(obj) -> Type | None:
    """``np.float32``, ``np.dtype('f4')``, a structured dtype -> cudalite type (or None)."""
    if isinstance(obj, Type):
        return obj
    if isinstance(obj, type) and obj in _PY_TYPES:
        return _PY_TYPES[obj]
    np = numpy()
    try:
        dt = np.dtype(obj)
    except TypeError:
        return None
    if dt.fields:
        fields = []
        for name, (fdt, off, *_rest) in dt.fields.items():
            ft = _field_type(fdt)
            if ft is None:
                return None
            fields.append((name, ft, off))
        return Record(fields, dt.itemsize, dt.isalignedstruct)
    if dt.subdtype is not None or not dt.isnative:
        return None
    if dt.kind in "SUMm":
        return _extra_type(np, dt)
    if dt.kind == "V" and dt.name == "bfloat16" and dt.itemsize == 2:  # ml_dtypes.bfloat16
        return S.bfloat16
    if dt.kind in "Vf" and dt.itemsize == 1 and dt.name in _FP8_BY_DTYPE_NAME:  # ml_dtypes' (e5m2's kind is f)
        return _FP8_BY_DTYPE_NAME[dt.name]
    return _BY_KIND_SIZE.get((dt.kind, dt.itemsize))


def _extra_type(np, dt):
    """A string (``S``/``U``) or date/time (``M``/``m``) dtype's type, or None."""
    if dt.kind == "S":
        return CharSeq(dt.itemsize) if dt.itemsize else None
    if dt.kind == "U":
        return UnicodeCharSeq(dt.itemsize // 4) if dt.itemsize else None
    unit, count = np.datetime_data(dt)
    if count != 1 and unit != "generic":
        return None
    unit = "" if unit == "generic" else unit
    return NPDatetime(unit) if dt.kind == "M" else NPTimedelta(unit)


def _field_type(fdt) -> Type | None:
    """The type of a record field of dtype ``fdt``: a sub-array field
    (``('d', 'u1', (5,))``) is a :class:`NestedArray` of its scalar or record base."""
    if fdt.subdtype is None:
        return type_from_dtype(fdt)
    base, shape = fdt.subdtype
    et = type_from_dtype(base)
    if et is None or isinstance(et, NestedArray) or not shape:
        return None
    return NestedArray(et, shape)


def from_dtype(dtype) -> Type:
    """numba's ``from_dtype``: the cudalite type of a NumPy dtype (or of anything
    ``numpy.dtype()`` accepts: ``np.float32``, ``'f4'``, a structured dtype -> a
    :class:`Record`; a sub-array field is a :class:`NestedArray`).  Raises
    ``NotImplementedError`` naming the dtype when cudalite has no type for it (a
    string field, a non-native byte order, ``datetime64``...), and ``TypeError`` for something that is not a dtype."""
    if isinstance(dtype, Type):
        raise TypeError(f"from_dtype() takes a NumPy dtype, not the cudalite type {dtype}")
    np = numpy()
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"from_dtype() takes a NumPy dtype, not {dtype!r}") from None
    t = type_from_dtype(dt)
    if t is None:
        raise NotImplementedError(f"cudalite has no type for the NumPy dtype {dt!r}")
    return t


def dtype_of(t: Type):
    """The NumPy dtype of a scalar or record type."""
    np = numpy()
    if isinstance(t, Record):
        return np.dtype({
            "names": [n for n, _, _ in t.fields],
            "formats": [_field_dtype(ft) for _, ft, _ in t.fields],
            "offsets": [o for _, _, o in t.fields],
            "itemsize": t.size,
            "aligned": t.aligned,
        })
    if isinstance(t, S.BFloat16):
        return bfloat16_dtype()
    if isinstance(t, F.Fp8):
        return fp8_dtype(t)
    return np.dtype(getattr(t, "numpy_dtype", t.name))


def bfloat16_dtype():
    """NumPy's dtype for bfloat16: ``ml_dtypes.bfloat16``'s, which cudalite never imports
    (NumPy has none): a program with bfloat16 data on the host has imported ml_dtypes."""
    import sys

    ml = sys.modules.get("ml_dtypes")
    if ml is None:
        raise TypeError("bfloat16 data on the host needs ml_dtypes (pip install ml_dtypes; import ml_dtypes)")
    return numpy().dtype(ml.bfloat16)


def fp8_dtype(t):
    """NumPy's dtype for an fp8 type: ml_dtypes' (``float8_e4m3fn``, ``float8_e5m2``,
    ``float8_e8m0fnu``), which the program has imported, as for bfloat16."""
    import sys

    ml = sys.modules.get("ml_dtypes")
    if ml is None or not hasattr(ml, t.ml_dtypes_name):
        raise TypeError(f"{t} data on the host needs ml_dtypes with {t.ml_dtypes_name} "
                        "(pip install ml_dtypes; import ml_dtypes)")
    return numpy().dtype(getattr(ml, t.ml_dtypes_name))


def _field_dtype(ft: Type):
    if isinstance(ft, NestedArray):
        return (dtype_of(ft.dtype), ft.shape)
    return dtype_of(ft)


@dataclass(frozen=True, eq=False)
class DeviceArrayRef:
    """A device array (any object with ``__cuda_array_interface__``) used as a global
    or closure variable of a kernel, as numba-cuda captures it: by reference.  Its
    pointer, shape and byte strides are read once, when the function is frozen, and
    baked into the code; ``owner`` (the array) is kept alive with the compiled code.
    Writes on the device and later host copies into the array are visible to later
    launches; rebinding the variable is not (the kernel keeps the old array).  Such
    a kernel cannot be cached (its pointer is valid in this process only)."""

    ptr: int
    shape: tuple
    strides: tuple
    dtype: object  # numpy.dtype
    owner: object

    def __repr__(self):
        return f"<device array {self.dtype} {self.shape} at {self.ptr:#x}>"


def has_cuda_array_interface(value) -> bool:
    """Whether ``value`` offers ``__cuda_array_interface__``: on its class (a property)
    or in its instance ``__dict__`` (an attribute set in ``__init__``)."""
    if hasattr(type(value), "__cuda_array_interface__"):
        return True
    try:
        return "__cuda_array_interface__" in vars(value)
    except TypeError:  # no __dict__ (slots, builtins)
        return False


@dataclass(frozen=True, eq=False)
class BrokenDeviceArray:
    """A global or closure value offering a ``__cuda_array_interface__`` that cannot
    be read (missing keys, bad values, a property that raises): frozen as this
    marker, which has no type, so that typing reports ``reason`` where the value is
    used, at the user's line."""

    owner: object
    reason: str

    def __repr__(self):
        return value_text(self.owner)


def device_array_ref(value):
    """The :class:`DeviceArrayRef` of ``value`` when it is a device array (its class
    defines ``__cuda_array_interface__``, or the object itself holds it as an instance
    attribute, as numba's ``ForeignArray``; NumPy arrays are host constants), else
    None.  A ``__getattr__`` is never asked: it may answer for any name.  Raises
    ``ValueError`` saying what is wrong when the interface cannot be read."""
    if isinstance(value, DeviceArrayRef):
        return value
    if is_ndarray(value) or not has_cuda_array_interface(value):
        return None
    try:
        cai = value.__cuda_array_interface__
    except Exception as exc:  # the user's property
        raise ValueError(f"reading its __cuda_array_interface__ raised {exception_text(exc)}") from None
    if not isinstance(cai, dict):
        raise ValueError(f"its __cuda_array_interface__ is a {type(cai).__name__}, not a dict")
    for key in ("shape", "typestr", "data"):
        if key not in cai:
            raise ValueError(f"its __cuda_array_interface__ has no {key!r}")
    try:
        return _read_interface(cai, value)
    except Exception as exc:  # malformed entries: int("x"), np.dtype("junk"), data not a pair...
        raise ValueError(f"its __cuda_array_interface__ is invalid: {exception_text(exc)}") from None


def _read_interface(cai, value):
    np = numpy()
    descr = cai.get("descr")
    dtype = np.dtype(cai["typestr"]) if not descr or len(descr) == 1 else np.dtype(descr)
    shape = tuple(int(n) for n in cai["shape"])
    strides = cai.get("strides")
    if strides is None:  # C-contiguous
        strides = c_strides(shape, dtype.itemsize)
    return DeviceArrayRef(int(cai["data"][0] or 0), shape, tuple(int(s) for s in strides), dtype, value)


def untyped_reason(value) -> str | None:
    """Why ``value`` (for which :func:`typeof_constant` answered None) has no type,
    when there is more to say than "not a supported kind of value", else None."""
    if isinstance(value, BrokenDeviceArray):
        return value.reason
    if isinstance(value, int) and not isinstance(value, bool):
        return "it does not fit in 64 bits"
    ndim = value.ndim if is_ndarray(value) else len(value.shape) if isinstance(value, DeviceArrayRef) else 0
    if ndim > MAX_NDIM:
        return f"it has {ndim} dimensions; device code handles arrays of 0 to {MAX_NDIM}"
    return None


def typeof_constant(value) -> Type | None:
    """The type of a Python value frozen into compiled code, or None if it has none."""
    if isinstance(value, bool):
        return S.boolean
    if isinstance(value, int):
        return S.int64 if -(1 << 63) <= value < (1 << 63) else (S.uint64 if value < (1 << 64) else None)
    if isinstance(value, float):
        return S.float64
    if isinstance(value, complex):
        return S.complex128
    if is_numpy_scalar(value):
        return type_from_dtype(value.dtype)
    if isinstance(value, str):
        return StringLiteral(value)
    if value is None:
        return S.none
    if isinstance(value, tuple):
        items = [typeof_constant(v) for v in value]
        if any(i is None for i in items):
            return None
        if isinstance(getattr(type(value), "_fields", None), tuple):  # a namedtuple
            return NamedTuple(items, type(value))
        return Tuple(items)
    if is_ndarray(value):
        et = type_from_dtype(value.dtype)
        if et is None or value.ndim > MAX_NDIM:
            return None
        return Array(et, value.ndim, layout_of(value.shape, value.strides, value.itemsize), readonly=True)
    if isinstance(value, DeviceArrayRef):
        et = type_from_dtype(value.dtype)
        if et is None or len(value.shape) > MAX_NDIM:
            return None
        return Array(et, len(value.shape), layout_of(value.shape, value.strides, value.dtype.itemsize))
    if isinstance(value, BrokenDeviceArray):
        return None  # untyped_reason says why
    if isinstance(value, bytes):
        return BytesLiteral(value)
    if isinstance(value, (list, dict, set, frozenset, bytes, bytearray)):
        return None  # mutable/host containers have no device representation
    if isinstance(value, Type):
        return NumberClass(value) if value.is_scalar or isinstance(value, Record) else Opaque(value)
    np = loaded()
    if np is not None and (isinstance(value, np.dtype)
                           or (isinstance(value, type) and issubclass(value, np.generic))):
        t = type_from_dtype(value)
        return DType(t) if t is not None else None
    if value is float or value is int or value is bool or value is complex:  # never ==: a user's __eq__ may raise
        return NumberClass(type_from_dtype(value))
    if isinstance(value, _pytypes.ModuleType):
        return Module(value)
    if isinstance(value, _pytypes.FunctionType):
        return PyFunction(value)
    try:  # a @cuda.jit(device=True) dispatcher
        pyfunc = getattr(value, "__cudalite_pyfunc__", None)
    except Exception:
        pyfunc = None
    if isinstance(pyfunc, _pytypes.FunctionType):
        return PyFunction(pyfunc, getattr(value, "__cudalite_links__", ()),
                          getattr(value, "__cudalite_inline__", ("never", False)),
                          getattr(value, "__cudalite_sigs__", ()))
    if isinstance(value, type) and issubclass(value, _enum.Enum):
        return EnumClass(value)
    if isinstance(value, _enum.Enum):  # IntEnum members are ints (typed above)
        return EnumMember(value)
    ext = extension_typeof(value)  # an extension's class (typeof_impl.register)
    if ext is not None:
        return ext
    return Opaque(value)
