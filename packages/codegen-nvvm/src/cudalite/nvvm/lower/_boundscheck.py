"""Bounds checking of array indices (``@cuda.jit(boundscheck=True)``).

:func:`check_indices` is called by every lowering that turns integer indices into
an element address: ``a[i]``, ``a[i, j] = v``, the integer items of a partial or
sliced index (``a[i, :]``), ``cuda.atomic.*`` and the cache-hinted loads and
stores.  :func:`check_same_shape` checks that an array stored into a slice
(``a[1:] = b``) has the slice's shape, as NumPy's ``ValueError: could not
broadcast`` does, so the copy reads nothing past ``b``.  For each integer index it compares the index, after Python's
negative-index wraparound, with the axis' extent (one unsigned compare: a
negative index still negative after wraparound is huge unsigned).  A failing
check records an ``IndexError`` in the module's exception record -- the
mechanism of ``raise`` under ``debug=True`` (``_exceptions.py``), first thread
wins -- with the index as written and the array's shape as runtime values, and
returns from the function, so the access never happens; the launching host
raises it after the launch.

Without ``boundscheck`` nothing is emitted: the IR is the same as before bounds
checking existed.  Slice bounds need no check (they are clamped as Python
clamps them).
"""

from __future__ import annotations

from cudalite.core.types import Array, Boolean, Integer

from ..artifacts import EXC_RECORD_VALUES
from ._elements import wrap_index
from ._exceptions import record_exception
from ._irtypes import I64

__all__ = ["check_indices", "check_same_shape", "bounds_message"]


def bounds_message(axis: int, ndim: int, unsigned: bool, full_shape: bool) -> str:
    """The message template of a failed check on ``axis`` (NumPy's wording): value 0
    is the index; values 1.. the shape (``full_shape``) or only the axis' extent."""
    index = "{0u}" if unsigned else "{0}"
    size = f"{{{axis + 1}}}" if full_shape else "{1}"
    msg = f"index {index} is out of bounds for axis {axis} with size {size}"
    if full_shape:
        dims = ", ".join(f"{{{k + 1}}}" for k in range(ndim))
        msg += f" (array shape ({dims}{',' if ndim == 1 else ''}))"
    return msg


def _as_i64(b, v, t):
    """The index as written, widened to i64 (sign-extended when signed)."""
    if isinstance(t, Boolean) or v.type.width < 64 and not t.signed:
        return b.zext(v, I64)
    if v.type.width < 64:
        return b.sext(v, I64)
    return v


def check_indices(lc, aty: Array, arr, items, loc):
    """Under ``boundscheck``: check each integer item ``(value, type)`` of ``items``
    (item k indexes axis k; slice items are skipped) against ``arr``'s shape."""
    if not lc.module.options.boundscheck:
        return
    b = lc.builder
    ndim = aty.ndim
    full_shape = ndim + 1 <= EXC_RECORD_VALUES
    for k, (v, t) in enumerate(items):
        if not isinstance(t, (Integer, Boolean)):
            continue
        shape = [b.extract_value(arr, [1, j]) for j in range(ndim)]
        i = wrap_index(b, v, t, shape[k])
        bad = b.icmp_unsigned(">=", i, shape[k])
        unsigned = isinstance(t, Integer) and not t.signed
        values = [_as_i64(b, v, t), *(shape if full_shape else [shape[k]])]
        record_exception(lc, bad, IndexError, bounds_message(k, ndim, unsigned, full_shape), values, loc)


def check_same_shape(lc, vty: Array, view, value_ty: Array, value, loc):
    """Under ``boundscheck``: ``view[...] = value`` needs ``value``'s shape to be the
    view's (else a ``ValueError``, NumPy's wording, with both shapes)."""
    if not lc.module.options.boundscheck:
        return
    b = lc.builder
    ndim = vty.ndim
    src = [b.extract_value(value, [1, k]) for k in range(ndim)]
    dst = [b.extract_value(view, [1, k]) for k in range(ndim)]
    bad = None
    for s_, d in zip(src, dst):
        ne = b.icmp_unsigned("!=", s_, d)
        bad = ne if bad is None else b.or_(bad, ne)
    if bad is None:
        return
    if 2 * ndim <= EXC_RECORD_VALUES:
        def shape(first):
            return ", ".join(f"{{{first + k}}}" for k in range(ndim)) + ("," if ndim == 1 else "")

        template = f"could not broadcast input array from shape ({shape(0)}) into shape ({shape(ndim)})"
        values = src + dst
    else:
        template, values = "could not broadcast input array into a slice of another shape", []
    record_exception(lc, bad, ValueError, template, values, loc)
