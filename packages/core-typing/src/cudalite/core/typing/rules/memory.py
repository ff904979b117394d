"""Typing of the memory-space array constructors: ``cuda.shared.array``,
``cuda.local.array`` and ``cuda.const.array_like``.

``shape`` must be a compile-time int or tuple of ints; ``dtype`` a cudalite
type, a NumPy scalar type/dtype or a dtype string.  The result is a C-layout
array.  ``cuda.shared.array(0, dtype)`` is the dynamic shared-memory array (1-d,
its length set at launch).  ``cuda.const.array_like(a)`` copies the global NumPy
array ``a`` into constant memory (a read-only array).
"""

from __future__ import annotations

from ...numpy_support import is_ndarray, is_numpy_integer

from ... import device_api as api
from ...registry import registry
from ...types import Array, Record, Signature, type_from_dtype
from ...types._containers import MAX_NDIM
from .._records import ArraySpec, ConstArray, Resolved
from .intrinsics import check_arity

__all__ = ["const_shape", "const_dtype"]


def const_shape(site, allow_zero=False):
    """The constant shape as a tuple of ints (``shape=0`` -> ``()`` when allowed)."""
    if not site.is_const(0):
        raise site.error(f"the shape must be a compile-time constant int or tuple of ints, "
                         f"not a runtime {site.args[0]}")
    shape = site.consts[0]
    items = shape if isinstance(shape, tuple) else (shape,)
    if not items or not all((isinstance(n, int) or is_numpy_integer(n)) and not isinstance(n, bool) for n in items):
        raise site.error(f"the shape must be an int or a tuple of ints, not {shape!r}")
    items = tuple(int(n) for n in items)
    if allow_zero and items == (0,):
        return ()
    if any(n <= 0 for n in items):
        raise site.error(f"the shape must have positive extents, not {shape!r}")
    if len(items) > MAX_NDIM:
        raise site.error(f"arrays have at most {MAX_NDIM} dimensions")
    return items


def const_dtype(site, i=1):
    """The constant element type of argument ``i``."""
    if not site.is_const(i):
        raise site.error(f"the dtype must be a compile-time constant, not a runtime {site.args[i]}")
    value = site.consts[i]
    t = None
    try:
        t = type_from_dtype(value)
    except Exception:  # noqa: BLE001 - NumPy raises several kinds for junk
        t = None
    if t is None or not (t.is_scalar or isinstance(t, Record)):
        raise site.error(f"{value!r} is not a supported array dtype")
    return t


def _array_typer(dynamic_ok):
    def typer(site):
        check_arity(site, 2)
        shape = const_shape(site, allow_zero=dynamic_ok)
        dtype = const_dtype(site)
        return Resolved(Signature(Array(dtype, max(len(shape), 1), "C"), tuple(site.args)),
                        ArraySpec(shape, dtype))

    return typer


registry.call(api.shared.array, params=("shape", "dtype"), name="cuda.shared.array")(_array_typer(True))
registry.call(api.local.array, params=("shape", "dtype"), name="cuda.local.array")(_array_typer(False))


@registry.call(api.const.array_like, params=("ndarray",), name="cuda.const.array_like")
def _array_like(site):
    check_arity(site, 1)
    value = site.consts[0] if site.is_const(0) else None
    if not is_ndarray(value):
        raise site.error("the argument must be a global NumPy array (a compile-time constant), "
                         f"not {site.args[0]}")
    dtype = type_from_dtype(value.dtype)
    if dtype is None or value.ndim == 0 or value.size == 0:
        raise site.error(f"cannot place an array of dtype {value.dtype} and shape {value.shape} "
                         "in constant memory")
    return Resolved(Signature(Array(dtype, value.ndim, "C", readonly=True), tuple(site.args)),
                    ConstArray(value))
