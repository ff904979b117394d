"""``cuda.reduce`` and ``cuda.vectorize`` in the simulator, computed with Python
and NumPy on the host, and ``cuda.typeof``."""

from __future__ import annotations

import functools

import numpy as np

from .dtypes import to_dtype
from .host import DeviceNDArray

__all__ = ["Reduce", "reduce", "vectorize", "typeof"]


class Reduce:
    """numba's ``cuda.Reduce``: ``Reduce(binop)(ary, size=None, res=None, init=0)``."""

    def __init__(self, functor):
        self._functor = getattr(functor, "py_func", functor)

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        data = np.asarray(arr)
        data = data[:size] if size is not None else data
        result = functools.reduce(self._functor, data.tolist(), init)
        if res is not None:
            res[0] = result
            return None
        return data.dtype.type(result) if data.size else result


def reduce(func):
    return Reduce(func)


def _return_dtype(sig):
    if isinstance(sig, str):
        try:
            return np.dtype(sig.split("(", 1)[0].strip())
        except TypeError:
            return None
    ret = getattr(sig, "return_type", None)
    try:
        return to_dtype(ret) if ret is not None else None
    except (TypeError, NotImplementedError):
        return None


class _SimUfunc:
    def __init__(self, func, signatures):
        self.py_func = getattr(func, "py_func", func)
        self.__name__ = self.py_func.__name__
        self._otype = _return_dtype(signatures[0]) if signatures else None

    def __call__(self, *args, out=None, stream=0, **kwargs):
        device = any(isinstance(a, DeviceNDArray) for a in args)
        hosts = [np.asarray(a) if isinstance(a, DeviceNDArray) else a for a in args]
        vec = np.vectorize(self.py_func, otypes=[self._otype] if self._otype is not None else None)
        result = np.asarray(vec(*hosts))
        if out is not None:
            if isinstance(out, DeviceNDArray):
                out.copy_to_device(result)
            else:
                out[...] = result
            return out
        return DeviceNDArray(result) if device else result


def vectorize(signatures=(), **options):
    """numba's ``cuda.vectorize``: an elementwise function applied with NumPy."""
    if callable(signatures) and hasattr(signatures, "__code__"):
        return _SimUfunc(signatures, ())
    sigs = list(signatures) if isinstance(signatures, (list, tuple)) else [signatures]
    return lambda func: _SimUfunc(func, sigs)


def typeof(value, purpose=None):
    """The cudalite type of a Python value (a simulated device array types as its NumPy array)."""
    from cudalite.core.types import typeof_constant

    if isinstance(value, DeviceNDArray):
        value = np.asarray(value)
    return typeof_constant(value)
