"""``cuda.reduce`` / ``cuda.Reduce``: a full 1-d reduction from a binary function.

``Reduce(functor)`` compiles ``functor`` (a two-argument function or lambda, or
an existing ``@cuda.jit(device=True)`` function) as a device function and builds
reduction kernels around it, one per element dtype, cached on the object::

    sum_reduce = cuda.reduce(lambda a, b: a + b)
    total = sum_reduce(np.arange(1000.0))          # a NumPy scalar
    sum_reduce(d_arr, res=d_out, init=10)           # writes d_out[0], returns None

The generated kernel (``_make_kernel``) is a tree reduction: every thread folds
a grid-strided slice of the input with the functor (starting from its first
element, so no identity value is needed), the block folds its threads' values in
shared memory with halving strides (threads holding no value are skipped, so any
size works), and thread 0 writes the block's partial.  A first launch of up to
``_MAX_BLOCKS`` blocks leaves one partial per block; a second launch of one
block folds the partials and ``init`` into the result (one launch when the
input fits one block).  ``size == 0`` gives ``init`` with no launch.

The functor must be associative and commutative (the order of application is
unspecified), as in numba.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any

from cudalite.core import device_api as cuda
from cudalite.core.errors import SignatureError
from cudalite.core.numpy_support import lazy_numpy as np  # NumPy loads on first use
from cudalite.core.types import as_type

from .._dispatch.decorator import jit
from .._dispatch.device import DeviceDispatcher
from .._dispatch.kernel import CUDADispatcher
from .._memory.api import as_cuda_array, device_array, is_cuda_array, is_device_array, to_device
from .._runtime.api import driver_stream
from ..devicearray import _sync

__all__ = ["Reduce", "reduce"]

_BLOCK = 256  # threads per block (a power of two)
_MAX_BLOCKS = 1024  # partials of the first pass; at most this many, so 4 per thread of the second


def _make_kernel(op, nbtype, block):
    """The reduction kernel for element type ``nbtype`` (a cudalite type).

    ``kernel(arr, n, out, init, use_init)`` folds ``arr[:n]`` block by block and
    writes block ``b``'s value to ``out[b]``, combined with ``init`` when
    ``use_init`` is nonzero (the last pass, launched with a single block)."""


    half = block // 2

    def reduce_kernel(arr, n, out, init, use_init) -> None:
        partial = cuda.shared.array(block, nbtype)
        tid = cuda.threadIdx.x
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        if start < n:
            acc = nbtype(arr[start])
            for i in range(start + stride, n, stride):
                acc = nbtype(op(acc, nbtype(arr[i])))
            partial[tid] = acc
        cuda.syncthreads()
        base = cuda.blockIdx.x * cuda.blockDim.x
        valid = n - base  # threads of this block holding a value (at least 1 when launched)
        s = half
        while s > 0:
            if tid < s and tid + s < valid:
                partial[tid] = nbtype(op(partial[tid], partial[tid + s]))
            cuda.syncthreads()
            s //= 2
        if tid == 0:
            value = partial[0]
            if use_init != 0:
                value = nbtype(op(value, init))
            out[cuda.blockIdx.x] = value

    return jit(reduce_kernel)


def _check_functor(functor):

    if isinstance(functor, CUDADispatcher):
        raise TypeError("cuda.reduce takes a binary function or a device function, not a kernel "
                        f"({functor!r})")
    py_func = functor.py_func if isinstance(functor, DeviceDispatcher) else functor
    if not callable(py_func) or not hasattr(py_func, "__code__"):
        raise TypeError(f"cuda.reduce takes a Python function of two arguments, not {functor!r}")
    try:
        inspect.signature(py_func).bind(0, 0)
    except TypeError:
        raise TypeError(f"cuda.reduce: {py_func.__qualname__} must take two arguments") from None
    return functor if isinstance(functor, DeviceDispatcher) else None


def _check_size(size, n):
    if size is None:
        return n
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"size must be an integer or None, not {size!r}")
    size = int(size)
    if size < 0:
        raise ValueError(f"size must not be negative, got {size}")
    if size > n:
        raise ValueError(f"size {size} exceeds the array's {n} elements")
    return size


def _as_1d_input(arr):
    """``(array, is_device)``: a device array stays where it is; anything else
    becomes a NumPy array."""

    if is_device_array(arr):
        device = True
    elif is_cuda_array(arr) and not isinstance(arr, np.ndarray):
        arr = as_cuda_array(arr)
        device = True
    else:
        arr = np.asarray(arr)
        device = False
    if arr.ndim != 1:
        raise ValueError(f"cuda.reduce reduces 1-d arrays, not an array of shape {tuple(arr.shape)}")
    return arr, device


def _element_type(dtype):

    try:
        return as_type(dtype)
    except SignatureError:
        raise TypeError(f"cuda.reduce: unsupported element dtype {dtype}") from None


class Reduce:
    """A reduction object for the binary function ``functor`` (numba's
    ``cuda.Reduce``): ``functor`` is compiled as a device function and the
    kernels built around it are compiled once per element dtype and kept here,
    so keeping the object alive avoids recompilation.  ``cuda.reduce`` is the same class.

    Parameters
    ----------
    functor : callable or device function
        A function of two arguments, associative and commutative (``lambda a, b: a + b``),
        or a device function made with ``cuda.jit(device=True)``.

    Raises
    ------
    TypeError
        If ``functor`` is a kernel or not a function of two arguments.
    """

    def __init__(self, functor: Any) -> None:
        device_fn = _check_functor(functor)
        self._functor = functor
        self._device_fn = device_fn if device_fn is not None else jit(device=True)(functor)
        self._kernels: dict = {}  # np.dtype -> CUDADispatcher
        self._lock = threading.Lock()
        try:
            self.__doc__ = getattr(functor, "__doc__", None) or Reduce.__doc__
            self.__name__ = getattr(functor, "__name__", "reduce")
        except AttributeError:
            pass

    def __repr__(self) -> str:
        return f"<cudalite.cuda.Reduce of {getattr(self._functor, '__qualname__', self._functor)!r}>"

    def _kernel(self, dtype):
        """The reduction kernel (a dispatcher) for elements of ``dtype``."""
        dtype = np.dtype(dtype)
        kernel = self._kernels.get(dtype)
        if kernel is None:
            with self._lock:
                kernel = self._kernels.get(dtype)
                if kernel is None:
                    kernel = _make_kernel(self._device_fn, _element_type(dtype), _BLOCK)
                    self._kernels[dtype] = kernel
        return kernel

    def __call__(self, arr: Any, size: Any = None, res: Any = None, init: int = 0, stream: Any = 0) -> Any:
        """Reduce ``arr[:size]`` (the whole array when ``size`` is None) with the
        functor, starting from ``init``.  ``arr`` is a 1-d host or device array (not
        modified).  Returns the result as a NumPy scalar of ``arr``'s dtype, or,
        when ``res`` (a device array) is given, writes it to ``res[0]`` on
        ``stream`` and returns None.

        Parameters
        ----------
        arr : array-like or device array
            The 1-d input.
        size : int, optional
            Reduce the first ``size`` elements (default: all of them).
        res : device array, optional
            Where to write the result (``res[0]``) instead of returning it.
        init : scalar, optional
            The initial value (default 0), returned for an empty input.
        stream : Stream or int, optional
            Stream of the reduction (0, the default: synchronous).

        Returns
        -------
        numpy scalar or None
            The result, or None when ``res`` is given.

        Raises
        ------
        TypeError
            If ``size`` is not an int or ``res`` is not a device array.
        ValueError
            If ``size`` is negative or too large, or ``res`` is empty.
        """

        arr, on_device = _as_1d_input(arr)
        n = _check_size(size, arr.shape[0])
        if res is not None:
            if not is_cuda_array(res) or isinstance(res, np.ndarray):
                raise TypeError(f"res must be a device array, not {type(res).__name__}")
            if not is_device_array(res):
                res = as_cuda_array(res)
            if res.size < 1:
                raise ValueError("res must have at least one element")
            if res.ndim != 1:
                res = res.reshape(res.size)
        dtype = arr.dtype
        init_value = dtype.type(init)

        if n == 0:
            if res is None:
                return init_value
            res[:1].copy_to_device(np.array([init_value], dtype=res.dtype), stream=stream)
            return None

        kernel = self._kernel(dtype)
        d_arr = arr if on_device else to_device(arr[:n], stream=stream)
        out = res if res is not None else device_array(1, dtype, stream=stream)
        nblocks = min(_MAX_BLOCKS, (n + _BLOCK - 1) // _BLOCK)
        if nblocks == 1:
            kernel[1, _BLOCK, stream](d_arr, n, out, init_value, 1)
        else:
            partials = device_array(nblocks, dtype, stream=stream)
            kernel[nblocks, _BLOCK, stream](d_arr, n, partials, init_value, 0)
            kernel[1, _BLOCK, stream](partials, nblocks, out, init_value, 1)
        if res is not None:
            return None
        host = out.copy_to_host(np.empty(1, dtype), stream=stream)
        s = driver_stream(stream)
        if s is not None:  # the copy is asynchronous on a stream
            _sync(s)
        return host[0]


reduce = Reduce
