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
from cudalite.core.types import bfloat16_dtype

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


def _is_bfloat16(dtype) -> bool:
    """Whether ``dtype`` is ml_dtypes' bfloat16 (a 2-byte ``V`` kind dtype so named)."""
    return dtype.kind == "V" and dtype.itemsize == 2 and dtype.name == "bfloat16" and dtype.fields is None


def read_dlpack(obj, stream=None):
    """Consume ``obj.__dlpack__()`` (a CUDA tensor): ``(data pointer, shape, byte
    strides, NumPy dtype)``.  ``stream``: the consumer's stream handle (DLPack's
    convention: 1 is the legacy default stream), which the producer orders its work
    before.  The capsule is released at once: ``obj`` keeps the memory alive."""

    device_type, _device_id = obj.__dlpack_device__()
    if int(device_type) not in (KDLCUDA, KDLCUDAMANAGED):
        raise TypeError(f"a DLPack tensor on device type {int(device_type)} cannot be passed to a kernel: "
                        "it must be on a CUDA device")
    try:
        capsule = obj.__dlpack__(stream=stream)
    except TypeError:  # producers without the stream keyword
        capsule = obj.__dlpack__()
    ptr = _capsule_pointer_of(capsule, _CAPSULE_NAME)
    managed = ctypes.cast(ptr, ctypes.POINTER(_DLManagedTensor))
    t = managed.contents.dl_tensor
    kind = _DTYPE_KINDS.get(t.dtype.code)
    bf16 = t.dtype.code == _KDL_BFLOAT and t.dtype.bits == 16
    if (kind is None and not bf16) or t.dtype.lanes != 1:
        raise TypeError(f"DLPack dtype code {t.dtype.code} x{t.dtype.lanes} cannot be passed to a kernel")
    if bf16:
        dtype = bfloat16_dtype()
    else:
        dtype = np.dtype(f"{kind}{t.dtype.bits // 8}") if kind != "b" else np.dtype(np.bool_)
    shape = tuple(t.shape[k] for k in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[k] * dtype.itemsize for k in range(t.ndim))
    else:  # no strides: C-contiguous (DLPack's rule)
        strides = c_strides(shape, dtype.itemsize)
    data = (t.data or 0) + t.byte_offset
    _capsule_set_name(capsule, _USED_NAME)  # consumed: the capsule's destructor leaves it alone
    deleter = managed.contents.deleter
    if deleter:
        deleter(managed)
    return data, shape, strides, dtype
