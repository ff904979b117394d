"""``carray`` / ``farray``: an array view over memory a pointer points at, in C or
Fortran order (numba's ``numba.np.numpy_support.carray``/``farray``).

On the host they take a ctypes pointer (``ctypes.POINTER(T)`` instance or
``c_void_p``, the latter with an explicit ``dtype``) and return a NumPy array sharing
that memory.  In device code (typing: ``typing/rules/pointer_arrays.py``) they take a
``CPointer`` value and a shape (an int or a tuple of ints, known at run time or
compile time) and give an array value; ``dtype``, when given, must equal the
pointer's element type.
"""

from __future__ import annotations

import ctypes
from typing import Any

from .numpy_support import numpy

__all__ = ["carray", "farray", "PointerArrayFunction"]


def _pointer_address(ptr, dtype):
    """The address ``ptr`` holds and the element dtype of the view."""
    np = numpy()
    ptr = getattr(ptr, "_as_parameter_", ptr)
    if dtype is not None:
        dtype = np.dtype(dtype)
    if isinstance(ptr, ctypes.c_void_p):
        if dtype is None:
            raise TypeError("explicit dtype required for void* argument")
        return ptr.value or 0, dtype
    if isinstance(ptr, ctypes._Pointer):
        ptr_dtype = np.dtype(ptr._type_)
        if dtype is not None and dtype != ptr_dtype:
            raise TypeError(f"mismatching dtype '{dtype}' for pointer {ptr}")
        return ctypes.cast(ptr, ctypes.c_void_p).value or 0, ptr_dtype
    raise TypeError(f"expected a ctypes pointer, got {ptr!r}")


def _carray(ptr, shape, dtype=None):
    np = numpy()
    address, dtype = _pointer_address(ptr, dtype)
    count = int(np.prod(shape, dtype=np.intp))
    nbytes = dtype.itemsize * count
    if nbytes == 0:
        return np.empty(shape, dtype=dtype)
    buf = (ctypes.c_char * nbytes).from_address(address)
    return np.frombuffer(buf, dtype=dtype, count=count).reshape(shape)


class PointerArrayFunction:
    """``carray`` or ``farray``: callable on the host; in device code its typing and
    lowering are registered for the object itself (a plain Python function would be
    compiled as a device function instead)."""

    def __init__(self, order: str) -> None:
        self.order = order
        self.__name__ = self.__qualname__ = "carray" if order == "C" else "farray"
        self.__module__ = "cudalite.cuda"
        self.__doc__ = (f"A {'C' if order == 'C' else 'Fortran'}-ordered array of ``shape`` over the memory "
                        "``ptr`` points at; the dtype is ``dtype`` or, for a typed pointer, its element type.\n\n"
                        "Parameters\n----------\n"
                        "ptr : int, ctypes pointer or typed pointer\n    The address of the first element.\n"
                        "shape : int or tuple of int\n    The array's shape.\n"
                        "dtype : numpy dtype-like, optional\n    Element type; required for an untyped pointer.\n\n"
                        "Returns\n-------\nnumpy.ndarray\n    On the host; an array in device code.\n")

    def __repr__(self) -> str:
        return f"<cudalite function {self.__name__}>"

    def __call__(self, ptr: Any, shape: Any, dtype: Any = None) -> Any:
        if self.order == "C":
            return _carray(ptr, shape, dtype)
        if not isinstance(shape, int):
            shape = tuple(shape)[::-1]
        return _carray(ptr, shape, dtype).T


carray = PointerArrayFunction("C")
farray = PointerArrayFunction("F")
