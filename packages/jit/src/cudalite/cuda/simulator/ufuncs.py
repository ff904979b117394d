"""``cuda.reduce`` and ``cuda.vectorize`` in the simulator, computed with Python
and NumPy on the host, and ``cuda.typeof``."""

from __future__ import annotations

import functools

import numpy as np

from cudalite.core.types import parse_signature, typeof_constant

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
        return data.dtype.type(result)  # a NumPy scalar of the array's dtype (``init`` when empty)


def reduce(func):
    return Reduce(func)


def _loop(sig):
    """``(argument dtypes, return dtype)`` of one ``vectorize`` signature, or None when it
    is not a scalar NumPy signature."""
    try:
        ret, args = parse_signature(sig)
        return tuple(to_dtype(a) for a in args), to_dtype(ret)
    except (TypeError, ValueError, NotImplementedError, LookupError):
        return None


def _accepts(dtype, value) -> bool:
    """Whether a loop argument of ``dtype`` takes ``value`` without an unsafe cast (NumPy's
    rule: Python scalars are weak, they only need a compatible kind)."""
    if isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.generic):
        kinds = {bool: "biufc", int: "iufc", float: "fc", complex: "c"}
        return dtype.kind in next(k for t, k in kinds.items() if isinstance(value, t))
    return np.can_cast(np.asarray(value).dtype, dtype, casting="safe")


class _SimUfunc:
    """A ``cuda.vectorize`` function: the loop (signature) is chosen from the inputs'
    dtypes as a NumPy ufunc chooses its loop (the first signature that takes every input
    without an unsafe cast); the Python function runs per element with the inputs cast to
    that loop's types, and the result has its return dtype."""

    def __init__(self, func, signatures):
        self.py_func = getattr(func, "py_func", func)
        self.__name__ = self.py_func.__name__
        self._loops = [lp for lp in (_loop(s) for s in signatures) if lp is not None]

    def _resolve(self, hosts):
        for args, ret in self._loops:
            if len(args) == len(hosts) and all(_accepts(d, h) for d, h in zip(args, hosts)):
                return args, ret
        if self._loops:
            types = ", ".join(str(np.asarray(h).dtype) for h in hosts)
            raise TypeError(f"ufunc '{self.__name__}' has no loop for the input types ({types}); its "
                            f"signatures: {[tuple(str(a) for a in args) for args, _ in self._loops]}")
        return None, None  # lazy vectorize: NumPy's own types

    def __call__(self, *args, out=None, stream=0, **kwargs):
        device = any(isinstance(a, DeviceNDArray) for a in args)
        hosts = [np.asarray(a) if isinstance(a, (DeviceNDArray, tuple, list)) else a for a in args]
        argtypes, ret = self._resolve(hosts)
        if argtypes is not None:
            hosts = [np.asarray(h, dtype=d) for h, d in zip(hosts, argtypes)]
        vec = np.vectorize(self.py_func, otypes=[ret] if ret is not None else None)
        result = vec(*hosts)
        if out is not None:
            if isinstance(out, DeviceNDArray):
                out.copy_to_device(result)
            else:
                out[...] = result
            return out
        if np.ndim(result) == 0 and not device:
            return result[()] if isinstance(result, np.ndarray) else result
        return DeviceNDArray(np.asarray(result)) if device else np.asarray(result)

    def reduce(self, array, axis=0, dtype=None, out=None, stream=0):
        """``ufunc.reduce`` of a 1-d array (host or simulated device): the binary function
        folded left to right, a NumPy scalar of the loop's return dtype."""
        data = np.asarray(array)
        if data.ndim != 1 or axis not in (0, None):
            raise NotImplementedError("the simulator's vectorize reduce works on 1-d arrays only")
        if data.size == 0:
            raise ValueError(f"zero-size array to reduction operation {self.__name__} which has no identity")
        result = data[0]
        for value in data[1:]:
            result = self(result, value)
        return result


def vectorize(signatures=(), **options):
    """numba's ``cuda.vectorize``: an elementwise function applied with NumPy (see
    :class:`_SimUfunc`)."""
    if callable(signatures) and hasattr(signatures, "__code__"):
        return _SimUfunc(signatures, ())
    sigs = list(signatures) if isinstance(signatures, (list, tuple)) else [signatures]
    return lambda func: _SimUfunc(func, sigs)


def typeof(value, purpose=None):
    """The cudalite type of a Python value (a simulated device array types as its NumPy array)."""
    if isinstance(value, DeviceNDArray):
        value = np.asarray(value)
    return typeof_constant(value)
