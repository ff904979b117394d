"""An example extension library: a polynomial evaluator usable inside kernels.

Users call ``horner(x)`` in a @cuda.jit kernel with no ``link=``: through the
extension protocol, the compiler asks this object which device function to call
for the argument types of each call site (``__cudalite_declare__``) and which
code to link (``__cudalite_link__``).  The code is CUDA C generated just then,
specialised for the argument type, and compiled by NVRTC at link time.
"""

from __future__ import annotations

from cudalite import cuda
from cudalite.linker import CUSource

_CTYPES = {"float32": "float", "float64": "double"}


class Polynomial:
    """p(x) = c0 + c1*x + c2*x**2 + ... evaluated with Horner's rule in CUDA C."""

    def __init__(self, name, coefficients):
        self.name = name
        self.coefficients = tuple(float(c) for c in coefficients)

    def _symbol(self, t):
        return f"{self.name}_{t}"

    def __cudalite_declare__(self, *argtypes):
        (t,) = argtypes
        if str(t) not in _CTYPES:
            raise TypeError(f"{self.name}() takes float32 or float64, not {t}")
        return cuda.declare_device(self._symbol(t), f"{t}({t})", abi="c")

    def __cudalite_link__(self, *argtypes):
        (t,) = argtypes
        ctype = _CTYPES[str(t)]
        body = "r"
        for c in reversed(self.coefficients[:-1]):
            body = f"({body} * x + ({ctype}){c!r})"
        src = (f'extern "C" __device__ {ctype} {self._symbol(t)}({ctype} x) {{\n'
               f"    {ctype} r = ({ctype}){self.coefficients[-1]!r};\n"
               f"    return {body};\n}}\n")
        return [CUSource(src, name=f"{self._symbol(t)}.cu")]

    def __call__(self, x):  # on the host: the same polynomial in Python
        r = self.coefficients[-1]
        for c in reversed(self.coefficients[:-1]):
            r = r * x + c
        return r


horner = Polynomial("horner", [1.0, -2.0, 0.5, 3.0])  # 1 - 2x + 0.5x^2 + 3x^3
