"""Typing of NumPy's whole-array reductions in device code, as numba-cuda: the
functions ``np.sum``, ``np.prod``, ``np.min``/``np.amin``, ``np.max``/``np.amax``,
``np.argmin``, ``np.argmax``, ``np.mean``, ``np.var``, ``np.std``, their ``nan``
variants (``np.nansum``, ``np.nanprod``, ``np.nanmin``, ``np.nanmax``,
``np.nanmean``, ``np.nanvar``, ``np.nanstd``), ``np.count_nonzero``, ``np.all``,
``np.any`` on one array, and the array methods ``a.sum()``, ``a.prod()``,
``a.min()``, ``a.max()``, ``a.argmin()``, ``a.argmax()``, ``a.mean()``,
``a.var()``, ``a.std()``, ``a.all()``, ``a.any()``.

The calling thread loops over every element (nothing is allocated).  Result types
are numba's: sums and products of booleans and signed integers are int64, of
unsigned integers uint64, of floats the float type; ``min``/``max`` keep the
dtype; ``mean``/``var``/``std`` of integers and booleans are float64;
``argmin``/``argmax``/``count_nonzero`` give int64 and ``all``/``any`` bool.
Reductions along an axis (or with ``dtype=``/``out=``) would allocate an array
and are refused with a located error; so are complex arrays (not yet lowered).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...registry import registry
from ...types import Array, Boolean, Float, Integer, Signature, boolean, float64, int64, uint64
from .._records import Resolved

__all__ = ["REDUCTIONS", "REDUCTION_METHODS", "Reduction", "reduction_functions", "register_reductions",
           "reduction_result"]

# NumPy function name -> reduction kind (what the backend lowers)
REDUCTIONS = {
    "sum": "sum", "prod": "prod", "min": "min", "amin": "min", "max": "max", "amax": "max",
    "argmin": "argmin", "argmax": "argmax", "mean": "mean", "var": "var", "std": "std",
    "nansum": "nansum", "nanprod": "nanprod", "nanmin": "nanmin", "nanmax": "nanmax",
    "nanmean": "nanmean", "nanvar": "nanvar", "nanstd": "nanstd", "count_nonzero": "count_nonzero",
    "all": "all", "any": "any",
}
# array methods numba-cuda supports (the method name is the kind)
REDUCTION_METHODS = ("sum", "prod", "min", "max", "argmin", "argmax", "mean", "var", "std", "all", "any")


@dataclass(frozen=True, slots=True)
class Reduction:
    """The payload of a reduction call: its kind (``"sum"``, ``"nanmax"`` ...)."""

    kind: str


def reduction_result(kind: str, dtype):
    """The result type of reduction ``kind`` over elements of ``dtype``, or None
    when it is not supported for that dtype."""
    if not isinstance(dtype, (Boolean, Integer, Float)):
        return None
    if kind in ("all", "any"):
        return boolean
    if kind in ("count_nonzero", "argmin", "argmax"):
        return int64
    if kind in ("sum", "prod", "nansum", "nanprod"):
        if isinstance(dtype, Float):
            return dtype
        return uint64 if isinstance(dtype, Integer) and not dtype.signed else int64
    if kind in ("min", "max", "nanmin", "nanmax"):
        return dtype
    # mean, var, std and their nan variants
    return dtype if isinstance(dtype, Float) else float64


def _typer(kind, label):
    def typer(site):
        args = site.args
        if site.recv is not None:
            arr = site.recv
            if args:
                raise site.error(f"reductions along an axis are not supported in device code (they would "
                                 f"allocate an array): call {label}() without arguments")
        else:
            if len(args) != 1:
                raise site.error(f"takes one array in device code ({len(args)} arguments given; reductions "
                                 "along an axis would allocate an array)")
            arr = args[0]
        if not isinstance(arr, Array):
            raise site.error(f"expects an array, not {arr}")
        rt = reduction_result(kind, arr.dtype)
        if rt is None:
            raise site.error(f"is not supported for arrays of {arr.dtype} in device code")
        return Resolved(Signature(rt, tuple(args)), Reduction(kind))

    return typer


for _name in REDUCTION_METHODS:
    registry.method(Array, _name)(_typer(_name, _name))


def reduction_functions(np) -> dict:
    """{numpy function: reduction kind} of the reductions NumPy ``np`` has."""
    return {getattr(np, n): kind for n, kind in REDUCTIONS.items() if hasattr(np, n)}


def register_reductions(np, reg=registry) -> dict:
    """Register the typers of NumPy's reductions in ``reg``; returns {function: kind}."""
    table = reduction_functions(np)
    for fn, kind in table.items():
        name = f"numpy.{getattr(fn, '__name__', kind)}"
        reg.call(fn, params=("a",), name=name)(_typer(kind, name))
    return table
