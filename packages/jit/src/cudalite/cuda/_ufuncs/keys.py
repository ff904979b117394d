"""How a CUDA ufunc's fast path reads a foreign array argument (CuPy, any
``__cuda_array_interface__`` producer) without classifying it.

A reader returns ``(type key, shape, data pointer, launch value)`` for a 1-d (or,
through the interface, any) C-contiguous array in native byte order, else None (the
general path then takes the call).  The type key is ``(dtype, ndim, "C")``, the one
:class:`~cudalite.cuda.DeviceNDArray` has for the same memory; the launch value is what
the fast path passes to the loop kernel for it: the array itself, or -- for a CuPy array
the reader has seen before -- a :class:`~cudalite.cuda.DeviceNDArray` view of it, made
once and kept with the key.  A view launches through the device-array path (its
converted values kept in C) instead of reading the CuPy array's attributes again; it
stands for the array only while CuPy's current stream is its null stream (the
reader's ``current_stream``/``null_stream``: the fast path checks once per call), the
case where the CuPy launch path orders nothing either.
"""

from __future__ import annotations

import sys
from typing import Any

from cudalite.core.layout import is_c_contiguous
from cudalite.core.numpy_support import lazy_numpy as np  # NumPy loads on first use

from .._launch.arrays import CupyKind
from .._memory.api import as_cuda_array
from ..devicearray import _cai_dtype

__all__ = ["cai_key", "cupy_key", "cupy_keys", "key_reader", "no_key"]


def cai_key(obj: Any) -> Any:
    """``((dtype, ndim, "C"), shape, data pointer, obj)`` of a foreign CUDA array that is
    C-contiguous (its ``__cuda_array_interface__``: no strides, or the contiguous ones),
    None for anything else (no interface, a mask, another layout, an object whose
    interface fails)."""
    try:
        cai = obj.__cuda_array_interface__
        shape, strides = tuple(cai["shape"]), cai.get("strides")
        if cai.get("mask") is not None:
            return None
        dtype = _cai_dtype(cai)  # the dtype from_cuda_array_interface gives the same object
        ptr = int(cai["data"][0])
        if strides is not None and not is_c_contiguous(shape, tuple(strides), dtype.itemsize):
            return None
    except Exception:  # no interface, or a broken one: the general path reports it
        return None
    if not dtype.isnative:  # another byte order: the general path decides
        return None
    return (dtype, len(shape), "C"), shape, ptr, obj


def cupy_key(a: Any) -> Any:
    """:func:`cai_key` of a 1-d CuPy array, read from its own attributes (C-level reads,
    ~0.2 us; its ``__cuda_array_interface__`` builds a dict, ~2 us); None when it is not
    1-d and C-contiguous (the fast path takes nothing else) or not in native byte order."""
    try:
        if a.ndim != 1 or not a._c_contiguous:
            return None
        dtype = a.dtype
        if not dtype.isnative:
            return None
        return (dtype, 1, "C"), a.shape, a.data.ptr, a
    except Exception:  # not the CuPy array it looked like: the general path reports it
        return None


def no_key(a: Any) -> None:
    return None


def _view(a, found):
    """``found`` with a device-array view of CuPy array ``a`` as its launch value, or
    ``found`` unchanged when no view can be made (the array then launches as itself)."""
    try:
        view = as_cuda_array(a, sync=False)  # launched only on CuPy's null stream: nothing to order
    except Exception:  # an interface the general path would report: launch the array itself
        return found
    return found[0], found[1], found[2], view


def cupy_keys(size: int) -> Any:
    """:func:`cupy_key` with an identity cache of the last ``size`` arrays read (a
    ufunc's last call; the reader's ``seen``): a 1-d CuPy array keeps its data pointer,
    dtype and strides, and its shape can only be set to another of the same size --
    ``(n,)`` again while it stays 1-d (the launch code's identity cache relies on the
    same, ``CupyKind``) -- so the same object still 1-d has the same key.  The second
    time an array is read its launch value becomes a kept device-array view (module
    docstring).  Holds the arrays (as that cache does).  A closure: cheaper to call
    than an object."""
    seen: dict = {}  # id -> [array, found, view tried]

    def read(a):
        hit = seen.get(id(a))
        if hit is not None and hit[0] is a and a.ndim == 1:
            found = hit[1]
            if found[3] is a and not hit[2]:  # seen before: from now on launched as a kept view
                hit[2] = True  # tried once (no view: the interface failed; launched as itself)
                found = hit[1] = _view(a, found)
            return found
        found = cupy_key(a)
        if found is not None:
            if len(seen) >= size:
                del seen[next(iter(seen))]  # the oldest
            seen[id(a)] = [a, found, False]
        return found

    # CuPy's module is loaded when one of its arrays is here (jit does not import cupy);
    # no current-stream query (no module: a stand-in class) means views are never launched
    cuda = getattr(sys.modules.get("cupy"), "cuda", None)
    read.seen = seen  # type: ignore[attr-defined]
    read.current_stream = getattr(cuda, "get_current_stream", None)  # type: ignore[attr-defined]
    null = getattr(getattr(cuda, "Stream", None), "null", None)
    read.null_stream = object() if null is None else null  # type: ignore[attr-defined]
    return read


def key_reader(t: type, a: Any, size: int) -> Any:
    """How the fast path reads the key of a foreign array of class ``t`` (``a`` is one):
    NumPy arrays never (host data: the general path), CuPy arrays by their attributes
    (the last ``size`` kept: :func:`cupy_keys`), anything else by its CUDA array interface."""
    if t is np.ndarray:
        return no_key
    if CupyKind.recognise(t, a) and hasattr(a, "_c_contiguous") and hasattr(a, "ndim"):
        return cupy_keys(size)
    return cai_key
