"""Typing of NumPy's scalar math in device code: ``np.sqrt(x)``, ``np.arctan2(y, x)``,
``np.floor(x)``, ``np.abs(x)``, ``np.maximum(a, b)``, ``np.isnan(x)`` ...

They follow NumPy's scalar rules: integers compute in float64, float32 stays
float32, and unlike ``math.floor`` the rounding functions keep the float type.
The table maps each NumPy function to the ``math`` function (or builtin) whose
lowering it shares; importing NumPy here is deferred to registration, which
happens only where NumPy is installed (it is a dependency of cudalite.core).
"""

from __future__ import annotations

from ..._compat import numeric_kind
from ...registry import registry
from ...types import Signature, boolean
from .arithmetic import promote
from .builtins import abs_signature, minmax_signature
from .mathfuncs import float_of

__all__ = ["NUMPY_UNARY", "NUMPY_BINARY", "register_numpy", "numpy_table"]

# NumPy name -> libdevice-backed math stem (same type in, same type out)
NUMPY_UNARY = {
    "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh", "arccosh": "acosh",
    "arctanh": "atanh", "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log2": "log2",
    "log10": "log10", "log1p": "log1p", "sqrt": "sqrt", "cbrt": "cbrt", "floor": "floor", "ceil": "ceil",
    "trunc": "trunc", "rint": "rint", "fabs": "fabs", "deg2rad": "radians", "radians": "radians",
    "rad2deg": "degrees", "degrees": "degrees",
}
NUMPY_BINARY = {
    "arctan2": "atan2", "hypot": "hypot", "power": "pow", "fmod": "fmod", "copysign": "copysign",
}
NUMPY_PREDICATES = ("isnan", "isinf", "isfinite")


def _unary(site):
    if len(site.args) != 1:
        raise site.error("takes exactly one argument in device code (no out=/where=)")
    f = float_of(site.args[0])
    return None if f is None else Signature(f, (f,))


def _binary(site):
    if len(site.args) != 2:
        raise site.error("takes exactly two arguments in device code")
    fs = [float_of(a) for a in site.args]
    if None in fs:
        return None
    f = promote(*fs)
    return Signature(f, (f, f))


def _predicate(site):
    if len(site.args) != 1 or numeric_kind(site.args[0]) not in ("b", "i", "f"):
        return None
    return Signature(boolean, site.args)


def _abs(site):
    return abs_signature(site.args[0]) if len(site.args) == 1 else None


def _minmax(site):
    if len(site.args) != 2:
        raise site.error("takes exactly two arguments in device code")
    return minmax_signature(site.args)


def _square(site):
    if len(site.args) != 1 or not numeric_kind(site.args[0]):
        return None
    t = site.args[0]
    return Signature(t, (t,))


def numpy_table(np) -> dict:
    """{numpy function: (kind, stem)}: what the backend lowers each one as."""
    table = {getattr(np, n): ("unary", s) for n, s in NUMPY_UNARY.items()}
    table.update({getattr(np, n): ("binary", s) for n, s in NUMPY_BINARY.items()})
    table.update({getattr(np, n): ("predicate", n) for n in NUMPY_PREDICATES})
    table.update({np.abs: ("abs", "abs"), np.absolute: ("abs", "abs"), np.square: ("square", "square"),
                  np.minimum: ("minimum", "minimum"), np.maximum: ("maximum", "maximum")})
    return table


def register_numpy(np, reg=registry) -> dict:
    """Register the typers in ``reg``; returns {numpy function: (kind, stem)} for the backend."""
    table = {}
    for name, stem in NUMPY_UNARY.items():
        table[getattr(np, name)] = ("unary", stem)
        reg.call(getattr(np, name), name=f"numpy.{name}")(_unary)
    for name, stem in NUMPY_BINARY.items():
        table[getattr(np, name)] = ("binary", stem)
        reg.call(getattr(np, name), name=f"numpy.{name}")(_binary)
    for name in NUMPY_PREDICATES:
        table[getattr(np, name)] = ("predicate", name)
        reg.call(getattr(np, name), name=f"numpy.{name}")(_predicate)
    for fn in (np.abs, np.absolute):
        table[fn] = ("abs", "abs")
        reg.call(fn, name="numpy.abs")(_abs)
    for name in ("minimum", "maximum"):
        table[getattr(np, name)] = (name, name)
        reg.call(getattr(np, name), name=f"numpy.{name}")(_minmax)
    table[np.square] = ("square", "square")
    reg.call(np.square, name="numpy.square")(_square)
    return table


def _register():
    import numpy as np  # already imported: one of its functions is being compiled

    register_numpy(np)


registry.lazy("numpy", _register)
