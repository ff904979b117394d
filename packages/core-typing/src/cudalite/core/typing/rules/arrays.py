"""Typing of arrays, tuples, pointers and records: attributes (``shape``,
``size``, ``ndim``, ``strides``, ``itemsize``, ``dtype``), indexing (ints, tuples of ints,
negative indices, partial indexing giving views) and stores."""

from __future__ import annotations

from ...registry import registry
from ...types import (
    Array, Boolean, CPointer, DType, Integer, NestedArray, NoneType, Record, Signature, SliceType, StringLiteral, Tuple,
    UniTuple, int64, none,
)
from .._records import ArrayView, RecordField, Resolved, TupleIndex, TupleSlice
from .casts import can_convert
from .fp8conv import fp8_hint

__all__ = ["array_index_result"]


@registry.attr(Array, "shape")
@registry.attr(Array, "strides")
def _shape(t):
    return UniTuple(int64, t.ndim)


@registry.attr(Array, "dtype")
def _dtype(t):
    """``a.dtype``: the element type as a compile-time dtype (``cuda.local.array(n,
    a.dtype)``, ``a.dtype.type(x)``... as numba)."""
    return DType(t.dtype)


@registry.attr(Array, "size")
@registry.attr(Array, "ndim")
@registry.attr(Array, "itemsize")
def _size(t):
    return int64


def _is_index(t):
    return isinstance(t, (Integer, Boolean))


def _is_array_index(t):
    """An integer index of an array: an integer, a boolean, or a 0-d integer array (its
    element, as NumPy and numba index with ``a[np.array(1)]``)."""
    return _is_index(t) or (isinstance(t, Array) and t.ndim == 0 and isinstance(t.dtype, Integer))


def array_index_result(arr: Array, index):
    """Result type of ``arr[index]`` (an element, or a view for partial indexing and
    slices) and an error text or None."""
    items = index.types if isinstance(index, Tuple) else (index,)
    bad = [i for i in items if not (_is_array_index(i) or isinstance(i, SliceType))]
    if bad:
        return None, f"array index must be integers, slices or a tuple of them, not {bad[0]}"
    if len(items) > arr.ndim:
        return None, f"too many indices ({len(items)}) for a {arr.ndim}-d array"
    n_ints = sum(1 for i in items if _is_array_index(i))
    if n_ints == arr.ndim:  # also a[()] on a 0-d array: its element
        return arr.dtype, None
    if not items:  # a[()] on an n-d array: the whole array, as NumPy and numba
        return arr, None
    # a view stays C-contiguous when integers lead and every slice is a full ':'
    slices = [i for i in items if isinstance(i, SliceType)]
    leading_ints = all(_is_array_index(i) for i in items[:n_ints])
    contiguous = arr.layout == "C" and leading_ints and all(s.is_full for s in slices)
    return arr.copy(ndim=arr.ndim - n_ints, layout="C" if contiguous else "A"), None


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
    if isinstance(rt, Array):  # a[1:3] = 0, a[i] = row, a[:, j] = other[...]: elementwise
        if isinstance(value, Array):
            if value.ndim != rt.ndim or not can_convert(value.dtype, rt.dtype):
                raise site.error(f"cannot store a {value} into a {rt.ndim}-d view of {rt.dtype}")
            return Resolved(Signature(none, (index, value)), ArrayView(rt))
        if not can_convert(value, rt.dtype):
            raise site.error(f"cannot store a {value} into an array of {rt.dtype}{fp8_hint(value, rt.dtype)}")
        return Resolved(Signature(none, (index, rt.dtype)), ArrayView(rt))
    if not can_convert(value, rt):
        raise site.error(f"cannot store a {value} into an array of {rt}{fp8_hint(value, rt)}")
    return Signature(none, (index, rt))


@registry.method(Tuple, "__getitem__")
def _tuple_getitem(site):
    tup, (index,) = site.recv, site.args
    if isinstance(index, SliceType):  # t[1:], t[::2]: with constant bounds, a tuple of those items
        s = site.consts[0] if site.is_const(0) else None
        if not isinstance(s, slice):
            raise site.error(f"a tuple can only be sliced with constant bounds, not {index}")
        picked = tuple(range(*s.indices(len(tup.types))))
        return Resolved(Signature(Tuple(tup.types[i] for i in picked), (index,)), TupleSlice(picked))
    if not _is_index(index):
        raise site.error(f"tuple indices must be integers, not {index}")
    if site.is_const(0):
        i = site.consts[0]
        n = len(tup.types)
        if not -n <= i < n:
            raise site.error(f"tuple index {i} is out of range for a tuple of length {n}")
        return Resolved(Signature(tup.types[i], (index,)), TupleIndex(i % n))
    if tup.is_uniform:
        return Signature(tup.types[0], (int64,))
    raise site.error(f"a heterogeneous tuple ({tup}) can only be indexed by a constant")


def _check_typed(site):
    if isinstance(site.recv.dtype, NoneType):
        raise site.error("a voidptr points at untyped memory and cannot be indexed: view it as an array with "
                         "cuda.carray(ptr, shape, dtype)")


@registry.method(CPointer, "__getitem__")
def _ptr_getitem(site):
    _check_typed(site)
    (index,) = site.args
    return Signature(site.recv.dtype, (int64,)) if _is_index(index) else None


@registry.method(CPointer, "__setitem__")
def _ptr_setitem(site):
    _check_typed(site)
    index, value = site.args
    if not _is_index(index) or not can_convert(value, site.recv.dtype):
        return None
    return Signature(none, (int64, site.recv.dtype))


# -- records ------------------------------------------------------------------------------
def _read_type(ft):
    """The type a field reads as: a sub-array field is a C-contiguous view of it."""
    return ft.view_type() if isinstance(ft, NestedArray) else ft


@registry.attr(Record, "*")
def _record_field(t, name):
    f = t.field(name)
    return None if f is None else _read_type(f[0])


@registry.method(Record, "__getitem__")
def _record_getitem(site):
    name = _field_name(site.recv, site.const(0, "field name"))
    f = site.recv.field(name) if isinstance(name, str) else None
    if f is None:
        raise site.error(f"record has no field {name!r}")
    key = StringLiteral(name) if isinstance(site.const(0, "field name"), str) else site.args[0]
    return Resolved(Signature(_read_type(f[0]), (key,)), RecordField(name))


def _field_name(rec, key):
    """A record is indexed by field name or, like a NumPy void scalar, by the constant
    position of a field (negative counts from the end)."""
    if isinstance(key, int) and not isinstance(key, bool) and -len(rec.fields) <= key < len(rec.fields):
        return rec.fields[key][0]
    return key


@registry.method(Record, "__setitem__")
@registry.method(Record, "__setattr__")
def _record_setfield(site):
    name = _field_name(site.recv, site.const(0, "field name"))
    f = site.recv.field(name) if isinstance(name, str) else None
    if f is None:
        raise site.error(f"record has no field {name!r}")
    value, ft = site.args[1], f[0]
    if isinstance(ft, NestedArray):  # rec['d'] = array (copied element by element) or a scalar (filled)
        if isinstance(value, Array):
            if value.ndim != ft.ndim or not can_convert(value.dtype, ft.dtype):
                raise site.error(f"cannot store a {value} into record field {name!r} of type {ft}")
            return Resolved(Signature(none, (site.args[0], value)), RecordField(name))
        if not can_convert(value, ft.dtype):
            raise site.error(f"cannot store a {value} into record field {name!r} of type {ft}")
        return Resolved(Signature(none, (site.args[0], ft.dtype)), RecordField(name))
    if not can_convert(value, ft):
        raise site.error(f"cannot store a {value} into record field {name!r} of type {ft}")
    return Resolved(Signature(none, (site.args[0], ft)), RecordField(name))
