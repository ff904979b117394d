"""Lowering of arrays, tuples, pointers and records: attributes, indexing
(negative indices wrap like Python), partial indexing (views), stores."""

from __future__ import annotations

from dataclasses import replace

from llvmlite import ir

from cudalite.core.types import (
    Array, CPointer, NestedArray, Record, Signature, SliceType, Tuple,
)
from cudalite.core.typing import ArrayView, TupleIndex, TupleSlice

from ._abi import itemsize
from ._boundscheck import check_indices
from ._constants import array_struct
from ._elements import element_pointer, load_mem, store_mem, wrap_index
from ._exceptions import raise_if
from ._intrinsics import tuple_value
from ._irtypes import EMPTY, I64, memory_type, ptr, value_type
from ._registry import lowerings
from ._slices import slice_view, store_into_view

__all__ = []


def _index_items(b, idx, ity):
    """(value, type) of each index item; a 0-d integer array index is its element."""
    items = [(b.extract_value(idx, i), t) for i, t in enumerate(ity.types)] if isinstance(ity, Tuple) \
        else [(idx, ity)]
    return [(load_mem(b, element_pointer(b, t, v, []), t.dtype), t.dtype) if isinstance(t, Array) else (v, t)
            for v, t in items]


@lowerings.method(Array, "__getitem__")
def _array_getitem(lc, node, args, info):
    b = lc.builder
    arr, idx = args
    aty = info.recv
    ity = info.sig.args[0]
    items = _index_items(b, idx, ity)
    rt = info.sig.return_type
    check_indices(lc, aty, arr, items, node.loc)
    if any(isinstance(t, SliceType) for _, t in items):
        return slice_view(b, aty, arr, items, rt)
    if not items and isinstance(rt, Array):  # a[()] of an n-d array: the array itself
        return arr
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
    aty = info.recv
    if isinstance(info.payload, ArrayView):  # slice / partial-index store: elementwise over the view
        view_ty = info.payload.view
        view_info = replace(info, sig=Signature(view_ty, (info.sig.args[0],)), payload=None)
        view = _array_getitem(lc, node, [arr, idx], view_info)
        store_into_view(lc, view, view_ty, val, info.sig.args[1], node.loc)
        return
    items = _index_items(b, idx, info.sig.args[0])
    check_indices(lc, aty, arr, items, node.loc)
    p = element_pointer(b, aty, arr, items)
    store_mem(b, p, val, aty.dtype)


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


@lowerings.attr(Array, "dtype")
def _array_dtype(lc, arr, info):  # a compile-time dtype: no runtime value
    return ir.Constant(EMPTY, None)


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
@lowerings.call(tuple)
def _tuple(lc, node, args, info):  # tuple(t) is t; tuple() the empty tuple
    return args[0] if args else ir.Constant(value_type(info.sig.return_type), None)


@lowerings.method(Tuple, "__getitem__")
def _tuple_getitem(lc, node, args, info):
    b = lc.builder
    tup, idx = args
    if isinstance(info.payload, TupleIndex):
        return b.extract_value(tup, info.payload.index)
    if isinstance(info.payload, TupleSlice):
        return tuple_value(lc, info.sig.return_type, [b.extract_value(tup, i) for i in info.payload.indices])
    tty = info.recv
    n = len(tty.types)
    elem = value_type(tty.types[0])
    slot = lc.alloca(ir.ArrayType(elem, n))
    if tup.type == slot.type.pointee:  # a uniform tuple is already an [n x T] array: one store
        b.store(tup, slot)
    else:
        for i in range(n):
            b.store(b.extract_value(tup, i), b.gep(slot, [ir.Constant(I64, 0), ir.Constant(I64, i)]))
    i = wrap_index(b, idx, info.sig.args[0], ir.Constant(I64, n))
    out_of_range = b.icmp_unsigned(">=", i, ir.Constant(i.type, n))
    raise_if(lc, out_of_range, IndexError, ("tuple index out of range",), node.loc, boundscheck=True)
    return b.load(b.gep(slot, [ir.Constant(I64, 0), i]))


# -- pointers --------------------------------------------------------------------------------------
@lowerings.method(CPointer, "__getitem__")
def _ptr_getitem(lc, node, args, info):
    p, idx = args
    return load_mem(lc.builder, lc.builder.gep(p, [idx]), info.recv.dtype)


@lowerings.method(CPointer, "__setitem__")
def _ptr_setitem(lc, node, args, info):
    p, idx, val = args
    store_mem(lc.builder, lc.builder.gep(p, [idx]), val, info.recv.dtype)


# -- records ---------------------------------------------------------------------------------------
def _field_pointer(b, rec, rty: Record, name):
    fty, off = rty.field(name)
    p = b.gep(rec, [ir.Constant(I64, off)])
    target = fty.dtype if isinstance(fty, NestedArray) else fty
    return b.bitcast(p, ptr(memory_type(target))), fty


def _nested_view(b, p, fty: NestedArray):
    """The C-contiguous array value viewing the sub-array field at ``p``."""
    strides, acc = [], itemsize(fty.dtype)
    for n in reversed(fty.shape):
        strides.append(acc)
        acc *= n
    return array_struct(b, fty.view_type(), p, [ir.Constant(I64, n) for n in fty.shape],
                        [ir.Constant(I64, s) for s in reversed(strides)])


def _read_field(b, p, fty):
    return _nested_view(b, p, fty) if isinstance(fty, NestedArray) else load_mem(b, p, fty)


@lowerings.attr(Record, "*")
def _record_attr(lc, rec, info):
    p, fty = _field_pointer(lc.builder, rec, info.sig.args[0], info.name)
    return _read_field(lc.builder, p, fty)


@lowerings.method(Record, "__getitem__")
def _record_getitem(lc, node, args, info):
    p, fty = _field_pointer(lc.builder, args[0], info.recv, info.payload.name)
    return _read_field(lc.builder, p, fty)


@lowerings.method(Record, "__setitem__", "__setattr__")
def _record_setfield(lc, node, args, info):
    p, fty = _field_pointer(lc.builder, args[0], info.recv, info.payload.name)
    if isinstance(fty, NestedArray):  # copied (an array) or filled (a scalar) element by element
        store_into_view(lc, _nested_view(lc.builder, p, fty), fty.view_type(), args[2], info.sig.args[1],
                        node.loc)
        return
    store_mem(lc.builder, p, args[2], fty)
