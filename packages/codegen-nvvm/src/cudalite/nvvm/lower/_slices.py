"""Array slicing in device code: ``a[1:n]``, ``a[::2]``, ``a[i, :]``, ``a[:, j]``.

A slice value is ``{i64 start, i64 stop, i64 step}``; which parts were written is
static (:class:`~cudalite.core.types.SliceType`), so a full ``:`` costs nothing
and an absent step needs no sign test.  Bounds are clamped exactly as Python's
``slice.indices`` does; the view shares the data with new extents and strides.
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.types import Array, Boolean, Integer, SliceType, int64

from ._boundscheck import check_same_shape
from ._constants import array_struct
from ._elements import element_pointer, load_mem, store_mem, wrap_index
from ._irtypes import I8, I64, ptr
from ._loops import counted_loop

__all__ = ["lower_slice", "slice_view", "store_into_view"]


def lower_slice(lc, e):
    """The ``{start, stop, step}`` value of a slice expression (absent parts are 0)."""
    b = lc.builder
    v = ir.Constant(ir.LiteralStructType([I64, I64, I64]), ir.Undefined)
    for k, part in enumerate((e.lower, e.upper, e.step)):
        if part is None:
            val = ir.Constant(I64, 0)
        else:
            val = lc.cast(lc.expr(part), lc.typeof(part), Integer(64, True))
        v = b.insert_value(v, val, k)
    return v


def _clamp(b, x, n, lo, hi):
    """Python's slice.indices clamping of one bound ``x`` against extent ``n``."""
    zero = ir.Constant(I64, 0)
    x = b.select(b.icmp_signed("<", x, zero), b.add(x, n), x)
    x = b.select(b.icmp_signed("<", x, zero), lo, x)
    return b.select(b.icmp_signed(">", x, hi), hi, x)


def _resolve(b, sv, sty: SliceType, n):
    """(start, length, step) of slice value ``sv`` over extent ``n``."""
    zero, one, mone = ir.Constant(I64, 0), ir.Constant(I64, 1), ir.Constant(I64, -1)
    has_start, has_stop, has_step = sty.present
    if not has_step:
        start = _clamp(b, b.extract_value(sv, 0), n, zero, n) if has_start else zero
        stop = _clamp(b, b.extract_value(sv, 1), n, zero, n) if has_stop else n
        length = b.sub(stop, start)
        length = b.select(b.icmp_signed("<", length, zero), zero, length)
        return start, length, one
    step = b.extract_value(sv, 2)
    step = b.select(b.icmp_signed("==", step, zero), one, step)  # Python raises; never divide by 0
    up = b.icmp_signed(">", step, zero)
    nm1 = b.sub(n, one)
    lo = b.select(up, zero, mone)
    hi = b.select(up, n, nm1)
    start = _clamp(b, b.extract_value(sv, 0), n, lo, hi) if has_start else b.select(up, zero, nm1)
    stop = _clamp(b, b.extract_value(sv, 1), n, lo, hi) if has_stop else b.select(up, n, mone)
    # length = ceil((stop - start) / step) when positive, else 0 (step may be negative)
    span = b.sub(stop, start)
    adj = b.select(up, b.sub(step, one), b.add(step, one))
    length = b.sdiv(b.add(span, adj), step)
    length = b.select(b.icmp_signed("<", length, zero), zero, length)
    return start, length, step


def slice_view(b, aty, arr, items, rty):
    """The view ``arr[items]`` where items mix integers ``(value, type)`` and slices."""
    data = b.extract_value(arr, 0)
    raw = b.bitcast(data, ptr(I8, data.type.addrspace))
    offset = ir.Constant(I64, 0)
    shape, strides = [], []
    for k in range(aty.ndim):
        n = b.extract_value(arr, [1, k])
        stride = b.extract_value(arr, [2, k])
        if k < len(items):
            v, t = items[k]
            if isinstance(t, (Integer, Boolean)):
                offset = b.add(offset, b.mul(wrap_index(b, v, t, n), stride))
                continue
            start, length, step = _resolve(b, v, t, n)
            offset = b.add(offset, b.mul(start, stride))
            shape.append(length)
            strides.append(b.mul(stride, step) if t.present[2] else stride)
        else:
            shape.append(n)
            strides.append(stride)
    new_data = b.bitcast(b.gep(raw, [offset]), data.type)
    return array_struct(b, rty, new_data, shape, strides)


def store_into_view(lc, view, vty, value, value_ty, loc=None):
    """``view[...] = value``: a scalar broadcast to every element, or an array of the
    same shape copied element by element (converted to the view's dtype; the shapes
    are compared under ``boundscheck``, at ``loc``)."""
    b = lc.builder
    src_is_array = isinstance(value_ty, Array)
    if src_is_array:
        check_same_shape(lc, vty, view, value_ty, value, loc)

    def level(k, idx):
        if k == vty.ndim:
            items = [(i, int64) for i in idx]
            if src_is_array:
                v = load_mem(b, element_pointer(b, value_ty, value, items), value_ty.dtype)
                v = lc.cast(v, value_ty.dtype, vty.dtype)
            else:
                v = value
            store_mem(b, element_pointer(b, vty, view, items), v, vty.dtype)
            return
        extent = b.extract_value(view, [1, k])
        slot = {}
        loop = counted_loop(lc, f"store{k}", extent, I64, lambda j: slot.__setitem__("j", j))
        level(k + 1, idx + [slot["j"]])
        loop.body([])

    level(0, [])
