"""``DeviceNDArray``: an n-d array in device memory (numba.cuda's device array).

A device array is a pointer to element ``[0, ..., 0]``, a shape, byte strides and a
dtype, plus an *owner* that keeps the memory alive (a :class:`cudalite.driver.DeviceMemory`
for allocations, the exporting object for arrays imported through
``__cuda_array_interface__``).  Views (slicing, ``reshape``, ``T``, ``view``) share the
owner.  The shape/stride rules live in :mod:`._array_layout`.

Fast launch contract: every instance has the plain attributes ``_ptr``,
``_kernel_params`` (its values as a parameter of its own type, in the kernel ABI's
slot order: :func:`cudalite.core.abi.array_values`), ``_layout`` ('C', 'F' or 'A',
from :func:`._array_layout.layout_of`) and ``_type_key`` (``(dtype, ndim, layout)``), set once.

Multi-GPU: an array remembers the device its memory belongs to (``device_id``; the
private ``_device`` is that ordinal, :data:`._devices.ANY` for managed memory, or None
until first asked for memory it did not allocate).  In a process with several
devices, its copies run with that device current whatever device the calling thread
has selected, and a copy between arrays of two devices is a peer copy
(``cudalite.driver.copy_peer``).  With one device none of this costs anything.
"""

from __future__ import annotations

import contextlib
import copy as _copy
import ctypes
from typing import Any

import cudalite.driver as _drv
from cudalite.core.abi import array_values
from cudalite.core.numpy_support import lazy_numpy as np  # NumPy loads on first use

from ._launch.devices import ANY, dlpack_device_of, multi_gpu, on_device
from ._memory import layout as L
from ._memory.emm import MemoryPointer
from ._runtime.api import driver_stream, external_stream
from ._runtime.context import current_context, device_alloc
from .config import load_config

__all__ = ["DeviceNDArray", "IpcArrayHandle", "auto_device", "is_device_array", "from_cuda_array_interface",
           "require_device_array"]


def is_device_array(obj: Any) -> bool:
    """True for :class:`DeviceNDArray` and the host-mapped/managed NumPy arrays
    (numba's ``__cuda_ndarray__`` marker)."""
    return type(obj) is DeviceNDArray or bool(getattr(obj, "__cuda_ndarray__", False))


def require_device_array(obj: Any) -> Any:
    if not is_device_array(obj):
        raise TypeError(f"expected a device array, got {type(obj).__name__}")
    return obj


def _dlpack():
    """The DLPack module (it needs NumPy: loaded at the first DLPack export)."""
    from ._memory import dlpack  # lazy: DLPack (with NumPy) loads at the first export

    return dlpack


class DeviceNDArray:
    """An array in device memory: ``DeviceNDArray(shape, strides, dtype, stream=0,
    gpu_data=None)`` allocates when ``gpu_data`` is None; ``ptr=``/``owner=`` wrap
    existing memory (``ptr`` is the address of element ``[0, ..., 0]``).

    Usually made by :func:`~cudalite.cuda.to_device`, :func:`~cudalite.cuda.device_array`
    and friends.  It exports ``__cuda_array_interface__`` and DLPack, indexes and slices
    as NumPy does (basic indexing gives views), and converts with ``numpy.asarray``.

    Parameters
    ----------
    shape : int or tuple of int
        The array's shape.
    strides : tuple of int or None
        Byte strides; ``None`` means C-contiguous.
    dtype : numpy dtype-like
        Element type.
    stream : Stream or int, optional
        The stream the array's operations default to (0: the default stream).
    gpu_data : DeviceMemory or object, optional
        Memory to use; ``None`` (default) allocates the bytes the array spans.
    ptr : int, optional
        Wrap existing memory: the device address of element ``[0, ..., 0]``.
    owner : object, optional
        With ``ptr``: the object that keeps that memory alive.

    Raises
    ------
    ValueError
        If ``strides`` does not match ``shape`` or a dimension is negative.
    """

    __cuda_ndarray__ = True
    _kernel_params_fixed = True  # _type_key/_kernel_params are set once: DeviceArrayKind.direct_group
    __slots__ = ("shape", "strides", "dtype", "ndim", "size", "stream", "gpu_data", "_ptr", "_kernel_params",
                 "_layout", "_type_key", "_device", "__weakref__")

    def __init__(self, shape: Any, strides: Any, dtype: Any, stream: Any = 0, gpu_data: Any = None, *, ptr: Any = None,
                 owner: Any = None) -> None:
        shape = L.normalize_shape(shape)
        dtype = np.dtype(dtype)
        strides = L.c_strides(shape, dtype.itemsize) if strides is None else tuple(int(s) for s in strides)
        if len(strides) != len(shape):
            raise ValueError(f"strides {strides} do not match shape {shape}")
        if ptr is None:
            lo, hi = L.extent(shape, strides, dtype.itemsize)
            if gpu_data is None:  # through the active memory manager (an EMM plugin's memalloc)
                gpu_data = device_alloc(hi - lo)
            ptr = (_drv.device_pointer(gpu_data) - lo) if hi > lo else _drv.device_pointer(gpu_data)
        else:
            gpu_data = owner if owner is not None else gpu_data
        size = 1
        for n in shape:
            size *= n
        self.shape, self.strides, self.dtype, self.ndim, self.size = shape, strides, dtype, len(shape), size
        self.stream = stream
        self.gpu_data = gpu_data
        self._ptr = int(ptr)
        layout = self._layout = L.layout_of(shape, strides, dtype.itemsize)
        self._kernel_params = array_values(self._ptr, shape, strides, layout)
        self._type_key = L.type_key(dtype, len(shape), layout)
        # the device of the memory: known for cudalite's own allocations, else found on first use
        self._device = gpu_data.device_id if type(gpu_data) is _drv.DeviceMemory else None

    def _view(self, offset, shape, strides, dtype=None):
        out = DeviceNDArray(shape, strides, self.dtype if dtype is None else dtype, self.stream,
                            ptr=self._ptr + offset, owner=self.gpu_data)
        out._device = self._device
        return out

    # -- devices ---------------------------------------------------------------------------
    def _routing_device(self):
        """The ordinal of the device this array's memory is on, or ``ANY`` (managed
        memory, or no memory at all); asks the driver once for memory cudalite did
        not allocate (cuPointerGetAttributes), then remembers."""
        dev = self._device
        if dev is None:
            if not self._ptr:
                dev = ANY
            else:
                attrs = _drv.pointer_attributes(self._ptr)
                if attrs.is_managed or attrs.memory_type == "host":
                    dev = ANY
                elif attrs.device_ordinal is None:
                    raise BufferError(f"the CUDA driver does not know the address {self._ptr:#x} of this array")
                else:
                    dev = attrs.device_ordinal
            self._device = dev
        return dev

    @property
    def device_id(self) -> Any:
        """The ordinal of the device whose memory holds this array (int), or None for
        memory that every device addresses (managed memory) and for empty arrays.

        Copies to and from the array run on that device whatever device is current,
        and a kernel launched with the array runs there (see docs/guide/devices.md).

        Raises
        ------
        BufferError
            The CUDA driver does not know the array's address.
        """
        dev = self._routing_device()
        return None if dev == ANY else dev

    def _on_own_device(self):
        """A context manager making this array's device current (multi-GPU only)."""
        if not multi_gpu():
            return contextlib.nullcontext()
        return on_device(self._routing_device())

    # -- properties ------------------------------------------------------------------------
    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the elements (``size * itemsize``)."""
        return self.size * self.dtype.itemsize

    @property
    def alloc_size(self) -> int:
        """Bytes spanned by the elements of this (possibly strided) array."""
        lo, hi = L.extent(self.shape, self.strides, self.dtype.itemsize)
        return hi - lo

    @property
    def device_ctypes_pointer(self) -> Any:
        """Address of element ``[0, ..., 0]`` as a ``ctypes.c_void_p``."""
        return ctypes.c_void_p(self._ptr or None)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        handle = int(self.stream or 0)
        desc = {
            "shape": self.shape,
            "strides": None if self._layout == "C" else self.strides,
            "data": (self._ptr, False),
            "typestr": L.cai_typestr(self.dtype),
            "stream": handle or None,
            "version": 3,
        }
        if self.dtype.fields is not None:
            desc["descr"] = self.dtype.descr
        return desc

    @property
    def flags(self) -> dict[str, bool]:
        """NumPy-like flags dict (``C_CONTIGUOUS``, ``F_CONTIGUOUS``, ...)."""
        c, f = self.is_c_contiguous(), self.is_f_contiguous()
        return {"C_CONTIGUOUS": c, "F_CONTIGUOUS": f, "CONTIGUOUS": c, "FORTRAN": f, "WRITEABLE": True,
                "ALIGNED": True, "OWNDATA": False}

    def is_c_contiguous(self) -> bool:
        """True when the array is C-contiguous."""
        return L.is_c_contiguous(self.shape, self.strides, self.dtype.itemsize)

    def is_f_contiguous(self) -> bool:
        """True when the array is Fortran-contiguous."""
        return L.is_f_contiguous(self.shape, self.strides, self.dtype.itemsize)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self) -> str:
        return (f"<cudalite.cuda.DeviceNDArray shape={self.shape} dtype={self.dtype} "
                f"strides={self.strides} ptr={self._ptr:#x}>")

    def bind(self, stream: Any = 0) -> Any:
        """A copy of this array object bound to ``stream`` (same memory).

        Parameters
        ----------
        stream : Stream or int, optional
            The stream the new object's operations default to.

        Returns
        -------
        DeviceNDArray
        """
        clone = _copy.copy(self)
        clone.stream = stream
        return clone

    def _default_stream(self, stream):
        return driver_stream(stream if stream else self.stream)

    # -- views -----------------------------------------------------------------------------
    @property
    def T(self) -> DeviceNDArray:
        """The transposed view (see :meth:`transpose`)."""
        return self.transpose()

    def transpose(self, axes: Any = None) -> DeviceNDArray:
        """A strided view with the axes permuted (NumPy semantics; numba copies).

        Parameters
        ----------
        axes : sequence of int, optional
            The permutation; ``None`` (default) reverses the axes.

        Returns
        -------
        DeviceNDArray

        Raises
        ------
        ValueError
            If ``axes`` does not match the number of dimensions.
        """
        shape, strides = L.transpose_view(self.shape, self.strides, axes)
        return self._view(0, shape, strides)

    def reshape(self, *newshape: Any, order: str = "C") -> DeviceNDArray:
        """A view with a new shape; ``NotImplementedError`` when that needs a copy.

        Parameters
        ----------
        *newshape : int or tuple of int
            The new shape (one tuple or several ints); one entry may be -1.
        order : {"C", "F", "A"}, optional
            Index order of the reshape (default ``"C"``).

        Returns
        -------
        DeviceNDArray

        Raises
        ------
        ValueError
            If the sizes do not match or ``order`` is invalid.
        NotImplementedError
            If the reshape needs a copy.
        """
        dims = newshape[0] if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)) else newshape
        shape, strides = L.reshape_strides(self.shape, self.strides, self.dtype.itemsize, dims, order)
        return self._view(0, shape, strides)

    def ravel(self, order: str = "C", stream: Any = 0) -> Any:
        """A 1-d view of a contiguous array (``NotImplementedError`` otherwise).

        Parameters
        ----------
        order : {"C", "F", "A"}, optional
            Index order (default ``"C"``).
        stream : Stream or int, optional
            The stream of the result (default: this array's).

        Returns
        -------
        DeviceNDArray
        """
        out = self.reshape(self.size, order=order)
        out.stream = stream or self.stream
        return out

    def squeeze(self, axis: Any = None, stream: Any = 0) -> Any:
        """A view without the axes of length one.

        Parameters
        ----------
        axis : int or tuple of int, optional
            The axes to remove; ``None`` (default) removes every axis of length one.
        stream : Stream or int, optional
            The stream of the result (default: this array's).

        Returns
        -------
        DeviceNDArray

        Raises
        ------
        ValueError
            If a selected axis does not have length one.
        """
        axes = range(self.ndim) if axis is None else [a % self.ndim for a in np.atleast_1d(axis)]
        for a in axes:
            if axis is not None and self.shape[a] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
        keep = [i for i in range(self.ndim) if not (i in axes and self.shape[i] == 1)]
        out = self._view(0, tuple(self.shape[i] for i in keep), tuple(self.strides[i] for i in keep))
        out.stream = stream or self.stream
        return out

    def view(self, dtype: Any) -> DeviceNDArray:
        """The same memory seen as ``dtype`` (NumPy's rule for the last axis).

        Parameters
        ----------
        dtype : numpy dtype-like
            The new element type.

        Returns
        -------
        DeviceNDArray

        Raises
        ------
        ValueError
            If the itemsize changes and the last axis is not contiguous or not divisible.
        """
        dtype = np.dtype(dtype)
        shape, strides = L.dtype_view(self.shape, self.strides, self.dtype.itemsize, dtype.itemsize)
        return self._view(0, shape, strides, dtype)

    def split(self, section: Any, stream: Any = 0) -> Any:
        """Split a 1-d contiguous array into views of ``section`` elements.

        Parameters
        ----------
        section : int
            Elements per piece (the last piece may be shorter).
        stream : Stream or int, optional
            The stream of the pieces (default: this array's).

        Returns
        -------
        list of DeviceNDArray

        Raises
        ------
        ValueError
            If the array is not 1-d and contiguous.
        """
        if self.ndim != 1 or self._layout != "C":
            raise ValueError("only 1-d contiguous arrays can be split")
        out = []
        for start in range(0, self.size, section):
            v = self[start:start + section]
            v.stream = stream or self.stream
            out.append(v)
        return out

    def __getitem__(self, item: Any) -> Any:
        """``self[item]``: see :meth:`getitem`.

        Parameters
        ----------
        item : int, slice, Ellipsis, None or tuple of them
            A basic index.
        """
        return self.getitem(item)

    def getitem(self, item: Any, stream: Any = 0) -> Any:
        """``self[item]``: a view, or a host scalar when every axis gets an integer.

        Parameters
        ----------
        item : int, slice, Ellipsis, None or tuple of them
            A basic index.
        stream : Stream or int, optional
            The stream of the view, or of the scalar's copy (default: this array's).

        Returns
        -------
        DeviceNDArray or numpy scalar

        Raises
        ------
        IndexError
            If an index is out of bounds or there are too many indices.
        """
        offset, shape, strides, scalar = L.index_view(self.shape, self.strides, item)
        if not scalar:
            out = self._view(offset, shape, strides)
            if stream:
                out.stream = stream
            return out
        host = np.empty(1, dtype=self.dtype)
        s = self._default_stream(stream)
        with self._on_own_device():
            _drv.copy_device_to_host(host, self._ptr + offset, self.dtype.itemsize, stream=s)
            if s is not None:
                _sync(s)
        return host[0]

    def __setitem__(self, key: Any, value: Any) -> None:
        self.setitem(key, value)

    def setitem(self, key: Any, value: Any, stream: Any = 0) -> None:
        """Copy a host scalar/array (broadcast) or a device array into ``self[key]``.

        Parameters
        ----------
        key : int, slice, Ellipsis, None or tuple of them
            A basic index.
        value : scalar, array-like or device array
            The values, broadcast to the shape of ``self[key]``.
        stream : Stream or int, optional
            The stream of the copy (default: this array's).

        Raises
        ------
        IndexError
            If an index is out of bounds.
        ValueError
            If ``value`` cannot be broadcast to the target shape.
        """
        offset, shape, strides, _ = L.index_view(self.shape, self.strides, key)
        target = self._view(offset, shape, strides)
        s = self._default_stream(stream)
        if _is_cuda_array(value):
            src = _as_device(value)
            if src.shape == target.shape and src.dtype == target.dtype and src._layout == target._layout != "A":
                if target.size:
                    _copy_device(target, src, s)
                return
            value = src._to_host(None, stream)
            if s is not None:
                _sync(s)
        host = np.broadcast_to(np.asarray(value, dtype=self.dtype), target.shape)
        target._write_host(host, s)

    # -- copies ----------------------------------------------------------------------------
    def _write_host(self, host, s) -> None:
        """Copy NumPy ``host`` (same shape) into this view; ``s``: driver stream or None."""
        if not self.size:
            return
        with self._on_own_device():
            self._write_host_here(host, s)

    def _write_host_here(self, host, s) -> None:
        if self._layout != "A":
            host = np.require(host, dtype=self.dtype, requirements=self._layout)
            _drv.copy_host_to_device(self._ptr, host, self.nbytes, stream=s)
            return
        # strided target: read the spanned bytes, write the elements on the host, write back
        lo, hi = L.extent(self.shape, self.strides, self.dtype.itemsize)
        buf = np.empty(hi - lo, dtype=np.uint8)
        _drv.copy_device_to_host(buf, self._ptr + lo, hi - lo, stream=s)
        if s is not None:
            _sync(s)
        np.ndarray(self.shape, self.dtype, buffer=buf, offset=-lo, strides=self.strides)[...] = host
        _drv.copy_host_to_device(self._ptr + lo, buf, hi - lo, stream=s)
        if s is not None:
            _sync(s)

    def copy_to_device(self, ary: Any, stream: Any = 0) -> None:
        """Copy host ``ary`` (or a device array) into this array.

        Parameters
        ----------
        ary : array-like or device array
            The source; same shape and dtype as this array.
        stream : Stream or int, optional
            The stream of the copy (default: this array's; 0 is synchronous).

        Raises
        ------
        TypeError
            If the dtypes differ.
        ValueError
            If the shapes differ.
        """
        s = self._default_stream(stream)
        if _is_cuda_array(ary):
            src = _as_device(ary)
            if src.size == 0 and self.size == 0:
                return
            _check_compatible(self, src)
            if src._layout == self._layout != "A":
                _copy_device(self, src, s)
                return
            ary = src._to_host(None, stream)
            if s is not None:
                _sync(s)
        host = np.asarray(ary)
        if host.size == 0 and self.size == 0:
            return
        _check_compatible(self, host)
        self._write_host(host, s)

    def copy_to_host(self, ary: Any = None, stream: Any = 0) -> Any:
        """Copy to ``ary`` or a new NumPy array (same strides as this array); async
        when a stream is given (use pinned ``ary`` for a truly asynchronous copy).

        Parameters
        ----------
        ary : numpy.ndarray, optional
            The destination (same shape and dtype); ``None`` (default) allocates one.
        stream : Stream or int, optional
            The stream of the copy (default: this array's; 0 is synchronous).

        Returns
        -------
        numpy.ndarray
            ``ary``, or the new array.

        Raises
        ------
        NotImplementedError
            If a stride is negative (``d[::-1]``), as numba-cuda: copy it to a device array first.
        TypeError
            If the dtypes differ.
        ValueError
            If the shapes differ.
        """
        if any(st < 0 for st in self.strides):
            raise NotImplementedError(f"D->H copy not implemented for negative strides: {self.strides} "
                                      "(copy the view into a device array first: out[:] = view)")
        return self._to_host(ary, stream)

    def _to_host(self, ary, stream):  # any strides: copies between device arrays use it
        s = self._default_stream(stream)
        if ary is not None:
            _check_compatible(self, ary)
        if self.size == 0:
            return ary if ary is not None else np.ndarray(self.shape, self.dtype, strides=self.strides)
        with self._on_own_device():
            return self._copy_to_host_here(ary, s)

    def _copy_to_host_here(self, ary, s):
        direct = ary is not None and self._layout != "A" and ary.flags[self._layout + "_CONTIGUOUS"]
        if direct:
            _drv.copy_device_to_host(ary, self._ptr, self.nbytes, stream=s)
            return ary
        lo, hi = L.extent(self.shape, self.strides, self.dtype.itemsize)
        buf = np.empty(hi - lo, dtype=np.uint8)
        _drv.copy_device_to_host(buf, self._ptr + lo, hi - lo, stream=s)
        host = np.ndarray(self.shape, self.dtype, buffer=buf, offset=-lo, strides=self.strides)
        if ary is None:
            return host
        if s is not None:
            _sync(s)
        ary[...] = host
        return ary

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        if copy is False:
            raise ValueError("`copy=False` is not supported: a device array always copies to the host")
        host = self.copy_to_host()
        return host if dtype is None else host.astype(dtype)

    # -- interchange -----------------------------------------------------------------------
    def get_ipc_handle(self) -> IpcArrayHandle:
        """A picklable :class:`~cudalite.cuda.IpcArrayHandle` that another process
        opens to get a device array over this array's memory (CUDA IPC)."""

        dev = self.device_id if multi_gpu() else None
        ctx = current_context(dev)
        lo, hi = L.extent(self.shape, self.strides, self.dtype.itemsize)
        mem = self.gpu_data
        if not (isinstance(mem, MemoryPointer) and mem.ptr == self._ptr + lo and mem.size == hi - lo):
            mem = MemoryPointer(ctx, self._ptr + lo, hi - lo, owner=self.gpu_data)
        desc = {"shape": self.shape, "strides": self.strides, "dtype": self.dtype}
        return IpcArrayHandle(ctx.get_ipc_handle(mem), desc)

    def _device_id(self):
        dev = self._device
        if isinstance(dev, int) and dev >= 0:
            return dev
        dev = getattr(self.gpu_data, "device_id", None)
        if isinstance(dev, int):
            return dev
        if not self._ptr:
            return _drv.current_device().id
        ordinal = _drv.pointer_attributes(self._ptr).device_ordinal
        if ordinal is None:
            raise BufferError(f"the CUDA driver does not know the address {self._ptr:#x} of this array")
        return ordinal

    def __dlpack_device__(self) -> tuple[int, int]:
        return (_dlpack().KDLCUDA, self._device_id())

    def __dlpack__(self, stream: Any = None, max_version: Any = None, dl_device: Any = None, copy: Any = None) -> Any:
        """A DLPack capsule over this array; the array's stream is synchronized first
        unless the consumer stream is the same one (``stream=-1``: no sync).  A consumer
        passing ``max_version`` of 1.0 or later gets a DLPack 1.x versioned capsule
        (``"dltensor_versioned"``), any other a legacy ``"dltensor"`` one."""
        if copy:
            raise BufferError("__dlpack__(copy=True) is not supported")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"cannot export to DLPack device {dl_device}")
        own = self.stream
        if own and stream != -1:
            handle = int(own) if not isinstance(own, int) else own
            if stream is None or int(stream) != handle:
                with self._on_own_device():
                    _sync(driver_stream(own))
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        dlpack = _dlpack()
        return dlpack.to_dlpack(self, dlpack.KDLCUDA, self._device_id(), versioned=versioned)


class IpcArrayHandle:
    """The picklable IPC handle of a device array (``d.get_ipc_handle()``):
    ``open()``/``close()``, or ``with handle as array:`` in the receiving process
    (the CUDA driver does not let the exporting process open it)."""

    def __init__(self, ipc_handle: Any, array_desc: Any) -> None:
        self._ipc_handle = ipc_handle
        self._array_desc = array_desc

    def open(self) -> DeviceNDArray:
        """A device array over the exported memory."""

        d = self._array_desc
        return DeviceNDArray(d["shape"], d["strides"], d["dtype"], gpu_data=self._ipc_handle.open(current_context()))

    def close(self) -> None:
        self._ipc_handle.close()

    def __enter__(self) -> DeviceNDArray:
        return self.open()

    def __exit__(self, *exc: Any) -> None:
        self.close()


# -- helpers --------------------------------------------------------------------------------
def _sync(s) -> None:
    if isinstance(s, _drv.Stream):
        s.synchronize()
    else:
        _drv.Stream.external(int(s)).synchronize()


def _copy_device(dst, src, s) -> None:
    """Copy ``src``'s bytes to ``dst`` (same shape, dtype and contiguous layout) on
    driver stream ``s`` (None: synchronously): a peer copy when they are on two
    devices of a multi-GPU process."""
    if multi_gpu():
        src_dev, dst_dev = src._routing_device(), dst._routing_device()
        if ANY not in (src_dev, dst_dev) and src_dev != dst_dev:
            _drv.copy_peer(dst._ptr, dst_dev, src._ptr, src_dev, dst.nbytes, stream=s)
            return
        with dst._on_own_device():
            _drv.copy_device_to_device(dst._ptr, src._ptr, dst.nbytes, stream=s)
        return
    _drv.copy_device_to_device(dst._ptr, src._ptr, dst.nbytes, stream=s)


def _is_cuda_array(obj):
    return is_device_array(obj) or hasattr(obj, "__cuda_array_interface__")


def _as_device(obj):
    if type(obj) is DeviceNDArray:
        return obj
    return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj)


def _check_compatible(dev, other):
    if np.dtype(other.dtype) != dev.dtype:
        raise TypeError(f"incompatible dtype: {other.dtype} vs. {dev.dtype}")
    if tuple(other.shape) != dev.shape:
        raise ValueError(f"incompatible shape: {tuple(other.shape)} vs. {dev.shape}")


def _cai_dtype(desc):
    """The dtype of a CAI dict: ``typestr``, or the record ``descr`` (padding dropped)."""
    dtype = np.dtype(desc["typestr"])
    descr = desc.get("descr")
    if not descr or not any(entry[0] for entry in descr):
        return dtype
    names, formats, offsets, off = [], [], [], 0
    for entry in descr:
        t = np.dtype((entry[1], entry[2])) if len(entry) > 2 else np.dtype(entry[1])
        if entry[0]:
            names.append(entry[0])
            formats.append(t)
            offsets.append(off)
        off += t.itemsize
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": max(off, dtype.itemsize)})


def from_cuda_array_interface(desc: Any, owner: Any = None, sync: bool = True) -> Any:
    """A :class:`DeviceNDArray` over a ``__cuda_array_interface__`` dict (no copy).

    Parameters
    ----------
    desc : dict
        The interface dict (``shape``, ``typestr``, ``data``, optional ``strides``,
        ``stream``, ``version``).
    owner : object, optional
        The object whose memory it describes; kept alive by the array.
    sync : bool, optional
        Synchronize the interface's ``stream`` now (unless
        ``CUDALITE_CUDA_ARRAY_INTERFACE_SYNC=0``); that stream becomes the array's.

    Returns
    -------
    DeviceNDArray"""
    version = desc.get("version") if isinstance(desc, dict) else "(not a dict)"
    if not isinstance(version, (int, np.integer)) or version < 1:
        raise ValueError(f"unsupported __cuda_array_interface__ version {version!r}")
    if desc.get("mask") is not None:
        raise NotImplementedError("Masked arrays are not supported")
    try:  # the required fields, of the kinds the interface names
        shape, dtype, ptr = tuple(desc["shape"]), _cai_dtype(desc), desc["data"][0] or 0
    except (KeyError, IndexError, TypeError) as exc:
        raise TypeError(f"malformed __cuda_array_interface__ (needs shape, typestr, data): {exc!r}") from None
    strides = desc.get("strides")
    strides = L.c_strides(shape, dtype.itemsize) if strides is None else tuple(strides)
    stream_ptr = desc.get("stream") if version >= 3 else None
    stream: Any = 0
    if stream_ptr is not None:
        if stream_ptr == 0:
            raise ValueError("stream 0 is not allowed by __cuda_array_interface__ v3")
        stream = external_stream(int(stream_ptr))
        if sync and load_config().cuda_array_interface_sync:
            stream.synchronize()
    arr = DeviceNDArray(shape, strides, dtype, stream, ptr=ptr, owner=owner)
    arr._device = dlpack_device_of(owner)
    return arr


_NONCONTIGUOUS = ("Array contains non-contiguous buffer and cannot be transferred as a single memory region. "
                  "Please ensure contiguous buffer with numpy .ascontiguousarray()")


def auto_device(obj: Any, stream: Any = 0, copy: bool = True, user_explicit: bool = False) -> Any:
    """numba's ``devicearray.auto_device``: ``(device array, copied)`` for ``obj``.

    A device array comes back as it is and a ``__cuda_array_interface__`` object as
    a view of it (``copied`` False).  Anything else (a NumPy array, a record, a
    scalar constant, a sequence) is converted with ``numpy.asarray`` and copied to a
    new device array (or only allocated, ``copy=False``); it must be C- or
    F-contiguous (ValueError otherwise: ``to_device`` makes such arrays contiguous
    instead).  ``user_explicit`` is accepted for numba's signature.
    """
    if is_device_array(obj):
        return obj, False
    cai = None if isinstance(obj, np.ndarray) else getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return from_cuda_array_interface(cai, owner=obj), False
    host = np.asarray(obj)
    if not (host.flags["C_CONTIGUOUS"] or host.flags["F_CONTIGUOUS"]):
        raise ValueError(_NONCONTIGUOUS)
    dev = DeviceNDArray(host.shape, host.strides, host.dtype, stream=stream)
    if copy:
        dev.copy_to_device(host, stream=stream)
    return dev, True
