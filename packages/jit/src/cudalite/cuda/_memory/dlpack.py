"""DLPack export of device arrays: ``__dlpack__`` / ``__dlpack_device__``.

:func:`to_dlpack` writes a ``DLManagedTensor`` (DLPack 0.x ABI) with ctypes and
wraps it in a ``"dltensor"`` PyCapsule, or, when the consumer asks for DLPack 1.x
(``__dlpack__(max_version=(1, 0))``), a ``DLManagedTensorVersioned`` in a
``"dltensor_versioned"`` capsule.  The tensor keeps the exporting array alive
until the consumer calls the deleter (or, when never consumed, until the capsule
dies).  Strides are exported in elements, as DLPack requires.
"""

from __future__ import annotations

import ctypes

import numpy as np
from cudalite.core.types import bfloat16_dtype, dtype_of, fp8_e4m3, fp8_e5m2, fp8_e8m0

from .layout import c_strides

__all__ = ["KDLCPU", "KDLCUDA", "KDLCUDAHOST", "KDLCUDAMANAGED", "DLPACK_VERSION", "dlpack_dtype", "to_dlpack",
           "read_dlpack"]

KDLCPU, KDLCUDA, KDLCUDAHOST, KDLCUDAMANAGED = 1, 2, 3, 13
_CAPSULE_NAME = b"dltensor"
_USED_NAME = b"used_dltensor"


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):  # DLPack 1.x
    pass


_DELETER_V = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensorVersioned))
_DLManagedTensorVersioned._fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                                      ("deleter", _DELETER_V), ("flags", ctypes.c_uint64),
                                      ("dl_tensor", _DLTensor)]
_VERSIONED_NAME = b"dltensor_versioned"
DLPACK_VERSION = (1, 0)  # the DLManagedTensorVersioned layout exported (1.1 added dtype codes only)



def _pyapi(name, restype, *argtypes):
    # private prototypes: attributes of ctypes.pythonapi are shared with other libraries
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


_capsule_new = _pyapi("PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR)
_capsule_is_valid = _pyapi("PyCapsule_IsValid", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)
_capsule_get_pointer = _pyapi("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)
_capsule_pointer_of = _pyapi("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)
_capsule_named = _pyapi("PyCapsule_IsValid", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
_capsule_set_name = _pyapi("PyCapsule_SetName", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
_incref = _pyapi("Py_IncRef", None, ctypes.py_object)
_decref = _pyapi("Py_DecRef", None, ctypes.py_object)


class _Holder:
    """Owns the ctypes struct, the shape/strides arrays and the exported array."""

    __slots__ = ("managed", "shape", "strides", "array", "__weakref__")


def _delete(managed_ptr):
    # The consumer is done: drop the reference taken in to_dlpack.
    ctx = managed_ptr.contents.manager_ctx
    if ctx:
        holder = ctypes.cast(ctx, ctypes.py_object).value
        managed_ptr.contents.manager_ctx = None
        _decref(holder)


def _capsule_destructor(capsule):
    # Called when the capsule dies; the tensor was never consumed iff the name is unchanged.
    if _capsule_is_valid(capsule, _CAPSULE_NAME):
        ptr = _capsule_get_pointer(capsule, _CAPSULE_NAME)
        _delete(ctypes.cast(ptr, ctypes.POINTER(_DLManagedTensor)))


def _capsule_destructor_v(capsule):
    if _capsule_is_valid(capsule, _VERSIONED_NAME):
        ptr = _capsule_get_pointer(capsule, _VERSIONED_NAME)
        _delete(ctypes.cast(ptr, ctypes.POINTER(_DLManagedTensorVersioned)))


# ctypes callbacks must outlive every capsule: module-level constants, never mutated.
_DELETER_FN = _DELETER(_delete)
_DESTRUCTOR_FN = _CAPSULE_DESTRUCTOR(_capsule_destructor)
_DELETER_V_FN = _DELETER_V(_delete)
_DESTRUCTOR_V_FN = _CAPSULE_DESTRUCTOR(_capsule_destructor_v)


def dlpack_dtype(dtype):
    """``(code, bits, lanes)`` of a NumPy dtype; ``BufferError`` when DLPack has none."""
    kind = dtype.kind
    codes = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
    if _is_bfloat16(dtype):
        return _KDL_BFLOAT, 16, 1
    if _fp8_code(dtype) is not None:
        return _fp8_code(dtype), 8, 1
    if kind not in codes or dtype.fields is not None or dtype.subdtype is not None:
        raise BufferError(f"DLPack cannot export dtype {dtype}")
    return codes[kind], dtype.itemsize * 8, 1


def to_dlpack(array, device_type, device_id, versioned=False):
    """A ``"dltensor"`` PyCapsule over ``array`` (anything with ``_ptr``, ``shape``,
    ``strides`` in bytes and ``dtype``); with ``versioned``, DLPack 1.x's
    ``"dltensor_versioned"`` capsule (a ``DLManagedTensorVersioned``, version
    :data:`DLPACK_VERSION`, no flags: writable, not a copy)."""
    code, bits, lanes = dlpack_dtype(array.dtype)
    itemsize = array.dtype.itemsize
    if any(s % itemsize for s in array.strides):
        raise BufferError("DLPack needs strides that are multiples of the item size")
    ndim = len(array.shape)
    holder = _Holder()
    holder.array = array
    holder.shape = (ctypes.c_int64 * max(ndim, 1))(*array.shape)
    holder.strides = (ctypes.c_int64 * max(ndim, 1))(*(s // itemsize for s in array.strides))
    m = holder.managed = _DLManagedTensorVersioned() if versioned else _DLManagedTensor()
    if versioned:
        m.version = _DLPackVersion(*DLPACK_VERSION)
        m.flags = 0
    t = m.dl_tensor
    t.data = array._ptr or None
    t.device = _DLDevice(device_type, device_id)
    t.ndim = ndim
    t.dtype = _DLDataType(code, bits, lanes)
    t.shape = ctypes.cast(holder.shape, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(holder.strides, ctypes.POINTER(ctypes.c_int64))
    t.byte_offset = 0
    _incref(holder)  # released by the deleter
    m.manager_ctx = id(holder)
    if versioned:
        m.deleter = _DELETER_V_FN
        return _capsule_new(ctypes.addressof(m), _VERSIONED_NAME, _DESTRUCTOR_V_FN)
    m.deleter = _DELETER_FN
    return _capsule_new(ctypes.addressof(m), _CAPSULE_NAME, _DESTRUCTOR_FN)


_DTYPE_KINDS = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}
_KDL_BFLOAT = 4
# DLPack 1.1's fp8 codes cudalite has types for: code -> ml_dtypes' name of the dtype
_FP8_CODES = {10: fp8_e4m3, 12: fp8_e5m2, 14: fp8_e8m0}  # kDLFloat8_e4m3fn, _e5m2, _e8m0fnu
_FP8_NAMES = {t.ml_dtypes_name: code for code, t in _FP8_CODES.items()}
_FLAG_READ_ONLY = 1 << 0  # DLPACK_FLAG_BITMASK_READ_ONLY
_USED_VERSIONED_NAME = b"used_dltensor_versioned"


def _is_bfloat16(dtype) -> bool:
    """Whether ``dtype`` is ml_dtypes' bfloat16 (a 2-byte ``V`` kind dtype so named)."""
    return dtype.kind == "V" and dtype.itemsize == 2 and dtype.name == "bfloat16" and dtype.fields is None


def _fp8_code(dtype):
    """DLPack 1.1's code of an ml_dtypes fp8 dtype cudalite has a type for, else None
    (by name: ml_dtypes gives some of them NumPy's float kind)."""
    if dtype.itemsize == 1 and dtype.fields is None:
        return _FP8_NAMES.get(dtype.name)
    return None


def _export_capsule(obj, stream):
    """``obj.__dlpack__`` asked for DLPack 1.x (``max_version=(1, 0)``), then without
    it (producers before DLPack 1.0), then without a stream (the oldest ones)."""
    try:
        return obj.__dlpack__(stream=stream, max_version=DLPACK_VERSION)
    except TypeError:
        pass
    try:
        return obj.__dlpack__(stream=stream)
    except TypeError:
        return obj.__dlpack__()


def _numpy_dtype(t):
    code, bits = t.dtype.code, t.dtype.bits
    if t.dtype.lanes != 1:
        raise TypeError(f"DLPack dtype code {code} x{t.dtype.lanes} cannot be passed to a kernel")
    if code == _KDL_BFLOAT and bits == 16:
        return bfloat16_dtype()
    if code in _FP8_CODES and bits == 8:
        return dtype_of(_FP8_CODES[code])
    kind = _DTYPE_KINDS.get(code)
    if kind is None or bits % 8 or bits == 0:
        raise TypeError(f"DLPack dtype code {code} ({bits} bits) cannot be passed to a kernel")
    return np.dtype(f"{kind}{bits // 8}") if kind != "b" else np.dtype(np.bool_)


def read_dlpack(obj, stream=None):
    """Consume ``obj.__dlpack__()`` (a CUDA tensor): ``(data pointer, shape, byte
    strides, NumPy dtype)``.  ``stream``: the consumer's stream handle (DLPack's
    convention: 1 is the legacy default stream), which the producer orders its work
    before.  DLPack 1.x is asked for (a ``"dltensor_versioned"`` capsule; a producer
    of an older DLPack answers with a ``"dltensor"`` one, also read); a tensor its
    producer marks read-only is refused (a kernel may write to its array arguments).
    The capsule is released at once: ``obj`` keeps the memory alive."""

    device_type, _device_id = obj.__dlpack_device__()
    if int(device_type) not in (KDLCUDA, KDLCUDAMANAGED):
        raise TypeError(f"a DLPack tensor on device type {int(device_type)} cannot be passed to a kernel: "
                        "it must be on a CUDA device")
    capsule = _export_capsule(obj, stream)
    if _capsule_named(capsule, _VERSIONED_NAME):
        managed = ctypes.cast(_capsule_pointer_of(capsule, _VERSIONED_NAME),
                              ctypes.POINTER(_DLManagedTensorVersioned))
        head = managed.contents
        version, flags = (head.version.major, head.version.minor), head.flags  # read before any release
        if version[0] != DLPACK_VERSION[0]:
            _release(capsule, managed, _USED_VERSIONED_NAME)
            raise TypeError(f"a DLPack {version[0]}.{version[1]} tensor cannot be read "
                            f"(cudalite reads DLPack {DLPACK_VERSION[0]}.x)")
        if flags & _FLAG_READ_ONLY:
            _release(capsule, managed, _USED_VERSIONED_NAME)
            raise TypeError(f"{type(obj).__name__}'s DLPack tensor is read-only: a kernel may write to its array "
                            "arguments, so it cannot take it (pass a writable array, or a copy)")
        used = _USED_VERSIONED_NAME
    else:
        managed = ctypes.cast(_capsule_pointer_of(capsule, _CAPSULE_NAME), ctypes.POINTER(_DLManagedTensor))
        used = _USED_NAME
    t = managed.contents.dl_tensor
    try:
        dtype = _numpy_dtype(t)
    except TypeError:
        _release(capsule, managed, used)
        raise
    shape = tuple(t.shape[k] for k in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[k] * dtype.itemsize for k in range(t.ndim))
    else:  # no strides: C-contiguous (DLPack's rule)
        strides = c_strides(shape, dtype.itemsize)
    data = (t.data or 0) + t.byte_offset
    _release(capsule, managed, used)
    return data, shape, strides, dtype


def _release(capsule, managed, used_name):
    """Mark the capsule consumed (its destructor then leaves the tensor alone) and call
    the producer's deleter, as a consumer must once it is done with the tensor."""
    _capsule_set_name(capsule, used_name)
    deleter = managed.contents.deleter
    if deleter:
        deleter(managed)
