"""``box``, ``unbox``, ``reflect`` and ``NativeValue``: numba's CPU-side conversion hooks.

numba uses them to convert between Python objects and native values when a CPU
(``@njit``) function is called from Python.  A CUDA kernel never boxes: its arguments
become parameters through the argument kinds (for an extension type, its struct
model's members), and device code never returns to Python.  numba-cuda exports the
decorators all the same, and extension modules written for both targets register
with them at import, so they are accepted here (the decorated function is returned
as is, never called): a library importing them loads unchanged.
"""

from __future__ import annotations

__all__ = ["box", "unbox", "reflect", "NativeValue"]


def _registrar(kind):
    def register(type_class):
        def deco(fn):
            return fn

        return deco

    register.__name__ = kind
    register.__doc__ = f"numba's ``@{kind}(TypeClass)``: accepted; kernels never call it (see the module)."
    return register


box = _registrar("box")
unbox = _registrar("unbox")
reflect = _registrar("reflect")


class NativeValue:
    """numba's result of an unboxing function: the value and its error/cleanup flags."""

    __slots__ = ("value", "is_error", "cleanup")

    def __init__(self, value, is_error=None, cleanup=None):
        self.value = value
        self.is_error = is_error
        self.cleanup = cleanup
