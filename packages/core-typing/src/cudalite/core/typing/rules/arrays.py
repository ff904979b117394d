"""Typing of arrays, tuples, pointers and records: attributes (``shape``,
``size``, ``ndim``, ``strides``, ``itemsize``), indexing (ints, tuples of ints,
negative indices, partial indexing giving views) and stores."""

from __future__ import annotations

from ...registry import registry
from ...types import (
    Array, Boolean, CPointer, Integer, Record, Signature, StringLiteral, Tuple, UniTuple, int64,
    none,
)
from .casts import can_convert

__all__ = ["array_index_result"]


@registry.attr(Array, "shape")
@registry.attr(Array, "strides")
def _shape(t):
    return UniTuple(int64, t.ndim)


@registry.attr(Array, "size")
@registry.attr(Array, "ndim")
@registry.attr(Array, "itemsize")
def _size(t):
    return int64


def _is_index(t):
    return isinstance(t, (Integer, Boolean))


def array_index_result(arr: Array, index):
    """Result type of ``arr[index]`` and the normalised index types, or an error text."""
    items = index.types if isinstance(index, Tuple) else (index,)
    if not all(_is_index(i) for i in items):
        bad = next(i for i in items if not _is_index(i))
        return None, f"array index must be an integer or a tuple of integers, not {bad}"
    if len(items) > arr.ndim:
        return None, f"too many indices ({len(items)}) for a {arr.ndim}-d array"
    if len(items) == arr.ndim:
        return arr.dtype, None
    layout = "C" if arr.layout == "C" else "A"
    return arr.copy(ndim=arr.ndim - len(items), layout=layout), None


@registry.method(Array, "__getitem__")
def _array_getitem(site):
    arr, (index,) = site.recv, site.args
    rt, err = array_index_result(arr, index)
    if rt is None:
        raise site.error(err)
    return Signature(rt, (index,))


@registry.method(Array, "__setitem__")
def _array_setitem(site):
    arr, (index, value) = site.recv, site.args
    if arr.readonly:
        raise site.error(f"cannot store into a read-only array ({arr}); global and constant arrays are "
                         "read-only in device code")
    rt, err = array_index_result(arr, index)
    if rt is None:
        raise site.error(err)
    if isinstance(rt, Array):
        raise site.error("storing into an array slice (partial index) is not supported; index every dimension")
    if not can_convert(value, rt):
        raise site.error(f"cannot store a {value} into an array of {rt}")
    return Signature(none, (index, rt))


@registry.method(Tuple, "__getitem__")
def _tuple_getitem(site):
    tup, (index,) = site.recv, site.args
    if not _is_index(index):
        raise site.error(f"tuple indices must be integers, not {index}")
    if site.is_const(0):
        i = site.consts[0]
        n = len(tup.types)
        if not -n <= i < n:
            raise site.error(f"tuple index {i} is out of range for a tuple of length {n}")
        site.data["index"] = i % n
        return Signature(tup.types[i], (index,))
    if tup.is_uniform:
        return Signature(tup.types[0], (int64,))
    raise site.error(f"a heterogeneous tuple ({tup}) can only be indexed by a constant")


@registry.method(CPointer, "__getitem__")
def _ptr_getitem(site):
    (index,) = site.args
    return Signature(site.recv.dtype, (int64,)) if _is_index(index) else None


@registry.method(CPointer, "__setitem__")
def _ptr_setitem(site):
    index, value = site.args
    if not _is_index(index) or not can_convert(value, site.recv.dtype):
        return None
    return Signature(none, (int64, site.recv.dtype))


# -- records ------------------------------------------------------------------------------
@registry.attr(Record, "*")
def _record_field(t, name):
    f = t.field(name)
    return None if f is None else f[0]


@registry.method(Record, "__getitem__")
def _record_getitem(site):
    name = site.const(0, "field name")
    f = site.recv.field(name) if isinstance(name, str) else None
    if f is None:
        raise site.error(f"record has no field {name!r}")
    site.data["field"] = name
    return Signature(f[0], (StringLiteral(name),))


@registry.method(Record, "__setitem__")
@registry.method(Record, "__setattr__")
def _record_setfield(site):
    name = site.const(0, "field name")
    f = site.recv.field(name) if isinstance(name, str) else None
    if f is None:
        raise site.error(f"record has no field {name!r}")
    value = site.args[1]
    if not can_convert(value, f[0]):
        raise site.error(f"cannot store a {value} into record field {name!r} of type {f[0]}")
    site.data["field"] = name
    return Signature(none, (site.args[0], f[0]))
