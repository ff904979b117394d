"""Lowering of arrays, tuples, pointers and records: attributes, indexing
(negative indices wrap like Python), partial indexing (views), stores."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.types import (
    Array, Boolean, CPointer, Record, SliceType, Tuple,
)

from ._abi import itemsize
from ._constants import array_struct
from ._irtypes import I8, I64, memory_type, ptr, value_type
from ._registry import lowerings
from ._slices import slice_view

__all__ = ["element_pointer", "load_mem", "store_mem", "wrap_index"]


def load_mem(b, p, ty):
    """Load a value of type ``ty`` from memory (bools are bytes, records stay pointers)."""
    if isinstance(ty, Record):
        return b.bitcast(p, ptr(I8))
    v = b.load(p)
    if isinstance(ty, Boolean):
        return b.icmp_unsigned("!=", v, ir.Constant(I8, 0))
    return v


def store_mem(b, p, v, ty):
    if isinstance(ty, Boolean):
        v = b.zext(v, I8)
    b.store(v, p)


def wrap_index(b, idx, ity, extent):
    """Index as i64, with Python's negative-index wraparound for signed indices."""
    if isinstance(ity, Boolean):
        return b.zext(idx, I64)
    if ity.bitwidth < 64:
        idx = (b.sext if ity.signed else b.zext)(idx, I64)
    if not ity.signed:
        return idx
    neg = b.icmp_signed("<", idx, ir.Constant(I64, 0))
    return b.select(neg, b.add(idx, extent), idx)


def _index_items(b, idx, ity):
    if isinstance(ity, Tuple):
        return [(b.extract_value(idx, i), t) for i, t in enumerate(ity.types)]
    return [(idx, ity)]


def _offset_pointer(b, data, byte_offset, elem_ptr_type):
    raw = b.bitcast(data, ptr(I8, elem_ptr_type.addrspace))
    return b.bitcast(b.gep(raw, [byte_offset]), elem_ptr_type)


def element_pointer(b, aty: Array, arr, items):
    """Pointer to the element (or sub-array start) at the given leading indices."""
    data = b.extract_value(arr, 0)
    shape = [b.extract_value(arr, [1, k]) for k in range(aty.ndim)]
    idxs = [wrap_index(b, v, t, shape[k]) for k, (v, t) in enumerate(items)]
    full = len(idxs) == aty.ndim
    if aty.layout == "C" and full:
        lin = idxs[0]
        for k in range(1, aty.ndim):
            lin = b.add(b.mul(lin, shape[k]), idxs[k])
        return b.gep(data, [lin], inbounds=True)
    if aty.layout == "F" and full:
        lin = idxs[-1]
        for k in range(aty.ndim - 2, -1, -1):
            lin = b.add(b.mul(lin, shape[k]), idxs[k])
        return b.gep(data, [lin], inbounds=True)
    off = None
    for k, i in enumerate(idxs):
        term = b.mul(i, b.extract_value(arr, [2, k]))
        off = term if off is None else b.add(off, term)
    return _offset_pointer(b, data, off, data.type)


@lowerings.method(Array, "__getitem__")
def _array_getitem(lc, node, args, info):
    b = lc.builder
    arr, idx = args
    aty = info.site.recv
    ity = info.sig.args[0]
    items = _index_items(b, idx, ity)
    rt = info.sig.return_type
    if any(isinstance(t, SliceType) for _, t in items):
        return slice_view(b, aty, arr, items, rt)
    p = element_pointer(b, aty, arr, items)
    if isinstance(rt, Array):
        k = len(items)
        shape = [b.extract_value(arr, [1, j]) for j in range(k, aty.ndim)]
        strides = [b.extract_value(arr, [2, j]) for j in range(k, aty.ndim)]
        return array_struct(b, rt, p, shape, strides)
    return load_mem(b, p, rt)


@lowerings.method(Array, "__setitem__")
def _array_setitem(lc, node, args, info):
    b = lc.builder
    arr, idx, val = args
    aty = info.site.recv
    view_ty = info.site.data.get("view")
    if view_ty is not None:  # slice / partial-index store: elementwise over the view
        from ._slices import store_into_view

        view = _array_getitem(lc, node, [arr, idx], _ViewInfo(info, view_ty))
        store_into_view(lc, view, view_ty, val, info.sig.args[1])
        return
    p = element_pointer(b, aty, arr, _index_items(b, idx, info.sig.args[0]))
    store_mem(b, p, val, aty.dtype)


class _ViewInfo:
    """The CallInfo of ``arr[idx]`` read as the view a slice store writes into."""

    def __init__(self, info, view_ty):
        from cudalite.core.types import Signature

        self.site = info.site
        self.sig = Signature(view_ty, (info.sig.args[0],))


@lowerings.attr(Array, "shape", "strides")
def _array_shape(lc, arr, info):
    b = lc.builder
    field = 1 if info.key[1] == "shape" else 2
    rt = info.sig.return_type
    out = ir.Constant(value_type(rt), ir.Undefined)
    for k in range(len(rt.types)):
        out = b.insert_value(out, b.extract_value(arr, [field, k]), k)
    return out


@lowerings.attr(Array, "size")
def _array_size(lc, arr, info):
    b = lc.builder
    aty = info.sig.args[0]
    n = ir.Constant(I64, 1)
    for k in range(aty.ndim):
        n = b.mul(n, b.extract_value(arr, [1, k]))
    return n


@lowerings.attr(Array, "ndim")
def _array_ndim(lc, arr, info):
    return ir.Constant(I64, info.sig.args[0].ndim)


@lowerings.attr(Array, "itemsize")
def _array_itemsize(lc, arr, info):
    return ir.Constant(I64, itemsize(info.sig.args[0].dtype))


@lowerings.call(len)
def _len(lc, node, args, info):
    t = info.sig.args[0]
    if isinstance(t, Tuple):
        return ir.Constant(I64, len(t.types))
    return lc.builder.extract_value(args[0], [1, 0])


# -- tuples ---------------------------------------------------------------------------------------
@lowerings.method(Tuple, "__getitem__")
def _tuple_getitem(lc, node, args, info):
    b = lc.builder
    tup, idx = args
    if "index" in info.site.data:
        return b.extract_value(tup, info.site.data["index"])
    tty = info.site.recv
    n = len(tty.types)
    elem = value_type(tty.types[0])
    slot = lc.alloca(ir.ArrayType(elem, n))
    for i in range(n):
        b.store(b.extract_value(tup, i), b.gep(slot, [ir.Constant(I64, 0), ir.Constant(I64, i)]))
    i = wrap_index(b, idx, info.sig.args[0], ir.Constant(I64, n))
    return b.load(b.gep(slot, [ir.Constant(I64, 0), i]))


# -- pointers --------------------------------------------------------------------------------------
@lowerings.method(CPointer, "__getitem__")
def _ptr_getitem(lc, node, args, info):
    p, idx = args
    return load_mem(lc.builder, lc.builder.gep(p, [idx]), info.site.recv.dtype)


@lowerings.method(CPointer, "__setitem__")
def _ptr_setitem(lc, node, args, info):
    p, idx, val = args
    store_mem(lc.builder, lc.builder.gep(p, [idx]), val, info.site.recv.dtype)


# -- records ---------------------------------------------------------------------------------------
def _field_pointer(b, rec, rty: Record, name):
    fty, off = rty.field(name)
    p = b.gep(rec, [ir.Constant(I64, off)])
    return b.bitcast(p, ptr(memory_type(fty))), fty


@lowerings.attr(Record, "*")
def _record_attr(lc, rec, info):
    p, fty = _field_pointer(lc.builder, rec, info.sig.args[0], info.site.name)
    return load_mem(lc.builder, p, fty)


@lowerings.method(Record, "__getitem__")
def _record_getitem(lc, node, args, info):
    p, fty = _field_pointer(lc.builder, args[0], info.site.recv, info.site.data["field"])
    return load_mem(lc.builder, p, fty)


@lowerings.method(Record, "__setitem__", "__setattr__")
def _record_setfield(lc, node, args, info):
    p, fty = _field_pointer(lc.builder, args[0], info.site.recv, info.site.data["field"])
    store_mem(lc.builder, p, args[2], fty)

