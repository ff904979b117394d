"""Typing of NumPy's ufuncs in device code: on scalars (``np.sqrt(x)``,
``np.arctan2(y, x)``, ``np.floor(x)``, ``np.maximum(a, b)``, ``np.greater(a, b)``,
``np.bitwise_and(a, b)`` ...) and on arrays with an output array, as numba-cuda:
``np.sin(x, out)``, ``np.add(a, b, out)`` loop over ``out``'s elements in the calling
thread, inputs (arrays or scalars) broadcast onto it by NumPy's rules; the result is
``out``.  A ufunc on arrays without an output array is refused (it would allocate).

Scalars follow NumPy's rules: integers compute in float64 for the math functions,
float32 stays float32, and (like ``math.floor`` in numba-cuda) the rounding functions keep the
float type; comparisons give bool (int64 against uint64 compares exactly, as NumPy
1.25+); bitwise and shift functions use NumPy's integer promotion.  The table maps
each NumPy function to the ``math`` function (or builtin) whose lowering it shares;
importing NumPy here is deferred to registration, which happens only where NumPy is
installed (it is a dependency of cudalite.core).
"""

from __future__ import annotations

from dataclasses import replace

from ..._compat import numeric_kind
from ...registry import registry
from ...types import Array, Integer, Signature, boolean, float64
from .._records import Resolved, UfuncLoop
from .arithmetic import promote
from .builtins import abs_signature, minmax_signature
from .casts import can_convert
from .mathfuncs import float_of
from .reductions import register_reductions

__all__ = ["NUMPY_UNARY", "NUMPY_BINARY", "NUMPY_COMPARISONS", "NUMPY_LOGICAL", "NUMPY_BITWISE", "NUMPY_ARITH",
           "register_numpy", "numpy_table"]

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
# NumPy name -> comparison operator (bool result)
NUMPY_COMPARISONS = {
    "greater": ">", "greater_equal": ">=", "less": "<", "less_equal": "<=", "equal": "==", "not_equal": "!=",
}
# NumPy name -> number of inputs (bool result, operands by truth)
NUMPY_LOGICAL = {"logical_and": 2, "logical_or": 2, "logical_xor": 2, "logical_not": 1}
# NumPy name -> Python operator (NumPy's promotion: int32 + int32 -> int32)
NUMPY_ARITH = {"add": "+", "subtract": "-", "multiply": "*", "true_divide": "/", "floor_divide": "//",
               "remainder": "%", "negative": "neg"}
# NumPy name -> number of inputs (integers and bools, NumPy's promotion)
NUMPY_BITWISE = {"bitwise_and": 2, "bitwise_or": 2, "bitwise_xor": 2, "invert": 1, "left_shift": 2,
                 "right_shift": 2}


# NumPy ufuncs with complex loops (complex in, complex out), lowered through cmath
COMPLEX_UNARY = frozenset({"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
                           "atanh", "exp", "log", "log2", "log10", "sqrt"})


def _unary(stem):
    def typer(site):
        if len(site.args) != 1:
            raise site.error("takes exactly one argument in device code (no out=/where=)")
        a = site.args[0]
        if numeric_kind(a) == "c":
            return Signature(a, (a,)) if stem in COMPLEX_UNARY else None
        f = float_of(a)
        return None if f is None else Signature(f, (f,))

    return typer


def _complex_pair(args):
    """Two numbers of which one is complex: their common complex type (None otherwise)."""
    if len(args) == 2 and all(numeric_kind(a) in ("b", "i", "f", "c") for a in args) \
            and "c" in (numeric_kind(args[0]), numeric_kind(args[1])):
        t = promote(*args)
        return t if numeric_kind(t) == "c" else None
    return None


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
    c = _complex_pair(site.args)  # NumPy orders complex numbers lexicographically
    return Signature(c, (c, c)) if c is not None else minmax_signature(site.args)


def _square(site):
    if len(site.args) != 1 or not numeric_kind(site.args[0]):
        return None
    t = site.args[0]
    return Signature(t, (t,))


def _comparison(site):
    c = _complex_pair(site.args)
    if c is not None:  # lexicographic, as NumPy's complex loops
        return Signature(boolean, (c, c))
    if len(site.args) != 2 or not all(numeric_kind(a) in ("b", "i", "f") for a in site.args):
        return None
    return Signature(boolean, tuple(site.args))


def _logical(site):
    if not all(numeric_kind(a) for a in site.args):
        return None
    return Signature(boolean, tuple(site.args))


def _fminmax(site):
    if len(site.args) != 2:
        raise site.error("takes exactly two arguments in device code")
    c = _complex_pair(site.args)
    return Signature(c, (c, c)) if c is not None else minmax_signature(site.args)


def _int_result(args):
    """NumPy's result type of integer/bool operands (None if there is none: int64 with
    uint64 promotes to float64, which the bitwise functions refuse, as NumPy)."""
    if not all(numeric_kind(a) in ("b", "i") for a in args):
        return None
    t = args[0]
    for a in args[1:]:
        t = promote(t, a)
    return t if numeric_kind(t) in ("b", "i") else None


def _bitwise(site):
    t = _int_result(site.args)
    if t is None:
        return None
    return Signature(t, (t,) * len(site.args))


def _shift(site):
    t = _int_result(site.args)
    if t is None:
        return None
    if numeric_kind(t) == "b":  # NumPy shifts bools as int8
        t = Integer(8, True)
    return Signature(t, (t, t))


def _arith(op):
    def typer(site):
        args = site.args
        if not args or not all(numeric_kind(a) in ("i", "f", "c") for a in args):
            return None
        t = args[0]
        for a in args[1:]:
            t = promote(t, a)
        if op == "/" and numeric_kind(t) == "i":
            t = float64
        if op in ("//", "%") and numeric_kind(t) == "c":
            return None
        return Signature(t, (t,) * len(args))

    return typer


def _ufunc(scalar, nin, name):
    """The typer of ufunc ``np.<name>`` with ``nin`` inputs: ``scalar`` types calls on
    numbers; with one more argument, an output array, the call is an elementwise loop
    over it (numba-cuda's ufunc-with-output form)."""

    def typer(site):
        args = tuple(site.args)
        if len(args) == nin and not any(isinstance(a, Array) for a in args):
            return scalar(site)
        ins = ", ".join("x" if nin == 1 else f"x{i + 1}" for i in range(nin))
        if len(args) == nin:
            raise site.error(f"on arrays needs an output array in device code, where nothing can be "
                             f"allocated: write np.{name}({ins}, out)")
        if len(args) != nin + 1:
            raise site.error(f"takes {nin} input(s) and an optional output array, not {len(args)} arguments")
        out, inputs = args[-1], args[:nin]
        if not isinstance(out, Array):
            raise site.error(f"the output argument must be an array, not {out}")
        if out.readonly:
            raise site.error(f"cannot write into a read-only array ({out})")
        for i, a in enumerate(inputs, 1):
            if isinstance(a, Array) and a.ndim > out.ndim:
                raise site.error(f"input {i} ({a}) has more dimensions than the output array ({out}): "
                                 "it cannot be broadcast onto it")
            if not isinstance(a, Array) and not numeric_kind(a):
                raise site.error(f"input {i} must be an array or a number, not {a}")
        elems = tuple(a.dtype if isinstance(a, Array) else a for a in inputs)
        r = scalar(replace(site, args=elems, consts=tuple(site.consts[:nin])))
        if r is None:
            raise site.error(f"has no loop for inputs of type ({', '.join(map(str, elems))})")
        sig, payload = (r.sig, r.payload) if isinstance(r, Resolved) else (r, None)
        if not can_convert(sig.return_type, out.dtype):
            raise site.error(f"cannot store its {sig.return_type} results into an array of {out.dtype}")
        return Resolved(Signature(out, args), UfuncLoop(sig, payload, nin))

    return typer


def numpy_table(np) -> dict:
    """{numpy function: (kind, stem)}: what the backend lowers each one as."""
    table = {getattr(np, n): ("unary", s) for n, s in NUMPY_UNARY.items()}
    table.update({getattr(np, n): ("binary", s) for n, s in NUMPY_BINARY.items()})
    table.update({getattr(np, n): ("predicate", n) for n in NUMPY_PREDICATES})
    table.update({np.abs: ("abs", "abs"), np.absolute: ("abs", "abs"), np.square: ("square", "square"),
                  np.minimum: ("minimum", "minimum"), np.maximum: ("maximum", "maximum"),
                  np.fmin: ("fmin", "fmin"), np.fmax: ("fmax", "fmax")})
    table.update({getattr(np, n): ("compare", op) for n, op in NUMPY_COMPARISONS.items()})
    table.update({getattr(np, n): ("logical", n) for n in NUMPY_LOGICAL})
    table.update({getattr(np, n): ("bitwise", n) for n in NUMPY_BITWISE})
    table.update({getattr(np, n): ("arith", op) for n, op in NUMPY_ARITH.items()})
    return table


def _typer_of(kind, stem):
    """(scalar typer, number of inputs) of a table entry."""
    if kind == "unary":
        return _unary(stem), 1
    if kind == "binary":
        return _binary, 2
    if kind == "predicate":
        return _predicate, 1
    if kind == "abs":
        return _abs, 1
    if kind in ("minimum", "maximum"):
        return _minmax, 2
    if kind in ("fmin", "fmax"):
        return _fminmax, 2
    if kind == "square":
        return _square, 1
    if kind == "compare":
        return _comparison, 2
    if kind == "logical":
        return _logical, NUMPY_LOGICAL[stem]
    if kind == "arith":
        return _arith(stem), 1 if stem == "neg" else 2
    if stem in ("left_shift", "right_shift"):
        return _shift, 2
    return _bitwise, NUMPY_BITWISE[stem]


def register_numpy(np, reg=registry) -> dict:
    """Register the typers in ``reg``; returns {numpy function: (kind, stem)} for the backend."""
    table = numpy_table(np)
    for fn, (kind, stem) in table.items():
        scalar, nin = _typer_of(kind, stem)
        name = getattr(fn, "__name__", stem)  # np.divide is true_divide, np.mod remainder
        reg.call(fn, name=f"numpy.{name}")(_ufunc(scalar, nin, name))
    return table


def _register():
    import numpy as np  # already imported: one of its functions is being compiled

    register_numpy(np)
    register_reductions(np)  # np.sum, np.mean ... (one lazy registration per module)


registry.lazy("numpy", _register)
