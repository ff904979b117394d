"""Addressing array elements: the pointer to ``arr[i, j, ...]`` for C, F and
strided layouts (negative indices wrap like Python), and loads/stores of
element values (bools are bytes in memory, records stay pointers).  Shared by
indexing, slicing, iteration and atomics."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.types import Array, Boolean, Record

from ._irtypes import I8, I64, ptr

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
    """Store a value of type ``ty`` at ``p`` (bools as bytes; a record value, held as a
    pointer to the source record, is copied byte for byte into the record at ``p``)."""
    if isinstance(ty, Boolean):
        v = b.zext(v, I8)
    elif isinstance(ty, Record) and isinstance(v.type, ir.PointerType):
        src = v if v.type.addrspace == p.type.addrspace else b.addrspacecast(v, ptr(I8, p.type.addrspace))
        v = b.load(src if src.type == p.type else b.bitcast(src, p.type))
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


def _offset_pointer(b, data, byte_offset, elem_ptr_type):
    raw = b.bitcast(data, ptr(I8, elem_ptr_type.addrspace))
    return b.bitcast(b.gep(raw, [byte_offset]), elem_ptr_type)


def element_pointer(b, aty: Array, arr, items):
    """Pointer to the element (or sub-array start) at the given leading indices (no
    indices: the data pointer, e.g. the one element of a 0-d array)."""
    data = b.extract_value(arr, 0)
    if not items:
        return data
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
