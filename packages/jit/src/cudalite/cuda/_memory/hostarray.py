"""NumPy arrays whose memory the GPU can address: host-mapped and managed arrays.

``MappedNDArray`` (pinned, mapped host memory) and ``ManagedNDArray`` (unified memory)
are ``numpy.ndarray`` subclasses that also carry a device address: they expose
``__cuda_array_interface__`` and the launch attributes of device arrays (``_ptr``,
``_kernel_params``, ``_layout``, ``_type_key``; properties here, since NumPy may
change a view's strides after ``__array_finalize__``), so kernels take them
without copies.  Views (slices, reshapes) keep a valid device address; arrays
whose data left the mapping (``a.copy()``, ufunc results) lose the device side.
"""

from __future__ import annotations

import ctypes

import numpy as np
from cudalite.core.abi import array_values

from . import layout as L

__all__ = ["GpuAddressableArray", "MappedNDArray", "ManagedNDArray", "host_array_over"]


class _RawBuffer:
    """Exposes ``nbytes`` at ``ptr`` to NumPy and keeps ``owner`` alive."""

    def __init__(self, ptr, nbytes, owner):
        self.owner = owner
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (ptr or 0, False), "version": 3}


def host_array_over(ptr, nbytes, owner, shape, dtype, strides=None, order="C", cls=np.ndarray):
    """A NumPy array (of ``cls``) over ``nbytes`` of host-addressable memory at ``ptr``."""
    raw = np.asarray(_RawBuffer(ptr, nbytes, owner)) if nbytes else np.empty(0, np.uint8)
    return np.ndarray.__new__(cls, shape, dtype, buffer=raw, strides=strides, order=order)


class GpuAddressableArray(np.ndarray):
    """Base of :class:`MappedNDArray` and :class:`ManagedNDArray`."""

    stream = 0

    def _attach(self, host_base, dev_base, nbytes, owner, stream=0):
        self._mapping = (host_base, dev_base, nbytes, owner)
        if stream is not None and stream != 0:
            self.stream = stream  # the array's default stream (reported by its CAI)
        return self

    def __array_finalize__(self, obj):
        # NumPy may set shape/strides after this call (transpose): derive the device
        # side on access, not here.
        self._mapping = getattr(obj, "_mapping", None)
        stream = getattr(obj, "stream", 0)
        if stream is not None and stream != 0:
            self.stream = stream

    @property
    def _device_ptr(self):
        """The device address of element [0, ...] or None when outside the mapping."""
        mapping = self._mapping
        if mapping is None:
            return None
        hp = self.__array_interface__["data"][0]
        lo, hi = L.extent(self.shape, self.strides, self.dtype.itemsize)
        if hi == lo:
            return mapping[1]
        if mapping[0] <= hp + lo and hp + hi <= mapping[0] + mapping[2]:
            return mapping[1] + (hp - mapping[0])
        return None

    @property
    def __cuda_ndarray__(self):
        return self._device_ptr is not None

    @property
    def _ptr(self):
        return self._device_ptr

    @property
    def _layout(self):
        return L.layout_of(self.shape, self.strides, self.dtype.itemsize)

    @property
    def _kernel_params(self):
        ptr = self._device_ptr
        return None if ptr is None else array_values(ptr, self.shape, self.strides, self._layout)

    @property
    def _type_key(self):
        return (self.dtype, self.ndim, self._layout)

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        if return_scalar:
            out = np.ndarray.__array_wrap__(self, arr, context, return_scalar)
        else:
            out = np.ndarray.__array_wrap__(self, arr, context)
        if isinstance(out, GpuAddressableArray) and out._device_ptr is None:
            return out.view(np.ndarray)
        return out

    def __reduce__(self):  # pickles as a plain ndarray
        return np.asarray(self).view(np.ndarray).copy().__reduce__()

    @property
    def __cuda_array_interface__(self):
        if self._device_ptr is None:
            raise AttributeError("this array is not in GPU-addressable memory")
        return {
            "shape": self.shape,
            "strides": None if self._layout == "C" else self.strides,
            "data": (self._ptr, False),
            "typestr": self.dtype.str,
            "stream": None if (stream := self.stream) is None or stream == 0 else int(stream),
            "version": 3,
            **({"descr": self.dtype.descr} if self.dtype.fields is not None else {}),
        }

    @property
    def device_ctypes_pointer(self):
        return ctypes.c_void_p(self._ptr or None)

    @property
    def gpu_data(self):
        return None if self._mapping is None else self._mapping[3]

    def copy_to_host(self, ary=None, stream=0):
        """A host copy (the memory is host memory already: synchronize first)."""
        if ary is None:
            return np.array(self, copy=True).view(np.ndarray)
        ary[...] = self
        return ary

    def copy_to_device(self, ary, stream=0):
        self[...] = np.asarray(ary)


class MappedNDArray(GpuAddressableArray):
    """Pinned host memory mapped into the device address space (``cuda.mapped_array``)."""


class ManagedNDArray(GpuAddressableArray):
    """Unified (managed) memory (``cuda.managed_array``)."""
