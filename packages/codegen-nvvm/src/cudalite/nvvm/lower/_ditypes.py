"""DWARF type descriptions (``DIBasicType``/``DICompositeType``) of cudalite types,
named as numba names them, for the variables of a ``debug=True`` build.

Scalars are basic types (``int32`` ``DW_ATE_signed``, ``float64`` ``DW_ATE_float``,
``bool`` ``DW_ATE_boolean`` of 8 bits, as stored); complex numbers, arrays, tuples
and other aggregates are structures of their LLVM value's fields; the grid group
is the 64-bit handle numba describes.  Sizes follow the NVPTX data layout.
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.types import Array, Boolean, Complex, Float, Integer

from ._irtypes import value_type

__all__ = ["DITypes", "bits_of"]

_ARRAY_FIELDS = ("data", "shape", "strides")


def bits_of(lt) -> tuple:
    """``(size, align)`` in bits of LLVM type ``lt`` (NVPTX: natural alignment)."""
    if isinstance(lt, ir.IntType):
        size = max(8, 1 << (lt.width - 1).bit_length()) if lt.width > 1 else 8
        return size, size
    if isinstance(lt, ir.HalfType):
        return 16, 16
    if isinstance(lt, ir.FloatType):
        return 32, 32
    if isinstance(lt, ir.DoubleType):
        return 64, 64
    if isinstance(lt, ir.PointerType):
        return 64, 64
    if isinstance(lt, ir.ArrayType):
        size, align = bits_of(lt.element)
        return size * lt.count, align
    if isinstance(lt, ir.BaseStructType):
        off, align = 0, 8
        for e in lt.elements or ():
            s, a = bits_of(e)
            off = -(-off // a) * a + s
            align = max(align, a)
        return -(-off // align) * align, align
    return 64, 64


class DITypes:
    """The type metadata of one module (each type described once)."""

    def __init__(self, module: ir.Module):
        self.module = module
        self._cache: dict = {}

    def _md(self, kind, fields):
        return self.module.add_debug_info(kind, fields)

    def basic(self, name, size, encoding):
        return self._md("DIBasicType", {"name": name, "size": size, "encoding": ir.DIToken(encoding)})

    def of(self, t):
        """The DI type of a value of cudalite type ``t``."""
        md = self._cache.get(t)
        if md is None:
            md = self._cache[t] = self._make(t)
        return md

    def union(self, types, file):
        """A scalar variable assigned values of several ``types``: numba's
        ``dbg_poly_union`` of one ``_<type name>`` member per type (sorted by name),
        declared in DIFile ``file``."""
        key = ("union",) + tuple(sorted({str(t) for t in types}))
        md = self._cache.get(key)
        if md is not None:
            return md
        members, width = [], 0
        for t in sorted(set(types), key=str):
            size = 8 if isinstance(t, Boolean) else t.bitwidth
            width = max(width, size)
            members.append(self._md("DIDerivedType", {
                "tag": ir.DIToken("DW_TAG_member"), "name": "_" + str(t), "baseType": self.of(t),
                "size": size}))
        md = self._cache[key] = self.module.add_debug_info("DICompositeType", {
            "tag": ir.DIToken("DW_TAG_union_type"), "name": "dbg_poly_union", "file": file,
            "elements": self.module.add_metadata(members), "size": width}, is_distinct=True)
        return md

    def _make(self, t):
        if isinstance(t, Boolean):
            return self.basic("bool", 8, "DW_ATE_boolean")
        if isinstance(t, Integer):
            return self.basic(t.name, t.bitwidth, "DW_ATE_signed" if t.signed else "DW_ATE_unsigned")
        if isinstance(t, Float):
            return self.basic(t.name, t.bitwidth, "DW_ATE_float")
        if type(t).__name__ == "GridGroup":  # numba's grid group: a 64-bit handle
            return self.basic("GridGroup", 64, "DW_ATE_unsigned")
        lt = value_type(t)
        names = None
        if isinstance(t, Complex):
            names = ("real", "imag")
        elif isinstance(t, Array):
            names = _ARRAY_FIELDS
        return self._struct(str(t), lt, names)

    def _llvm(self, lt, name):
        """A DI type for an LLVM type with no cudalite type at hand (aggregate members)."""
        if isinstance(lt, ir.IntType):
            return self.basic(name or f"int{lt.width}", bits_of(lt)[0], "DW_ATE_unsigned"
                              if lt.width == 1 else "DW_ATE_signed")
        if isinstance(lt, (ir.HalfType, ir.FloatType, ir.DoubleType)):
            return self.basic(name or f"float{bits_of(lt)[0]}", bits_of(lt)[0], "DW_ATE_float")
        if isinstance(lt, ir.PointerType):
            return self._md("DIDerivedType", {
                "tag": ir.DIToken("DW_TAG_pointer_type"), "baseType": self._llvm(lt.pointee, None),
                "size": 64})
        if isinstance(lt, ir.ArrayType):
            sub = self._md("DISubrange", {"count": lt.count})
            return self._md("DICompositeType", {
                "tag": ir.DIToken("DW_TAG_array_type"), "baseType": self._llvm(lt.element, None),
                "size": bits_of(lt)[0], "elements": self.module.add_metadata([sub])})
        if isinstance(lt, ir.BaseStructType):
            return self._struct(name or str(lt), lt, None)
        return self.basic(name or str(lt), 64, "DW_ATE_unsigned")

    def _struct(self, name, lt, names):
        if not isinstance(lt, ir.BaseStructType) or not lt.elements:
            if isinstance(lt, ir.BaseStructType):  # no runtime value (a compile-time object)
                return self._md("DICompositeType", {
                    "tag": ir.DIToken("DW_TAG_structure_type"), "name": name, "size": 0,
                    "elements": self.module.add_metadata([])})
            return self._llvm(lt, name)
        members, off = [], 0
        for i, e in enumerate(lt.elements):
            s, a = bits_of(e)
            off = -(-off // a) * a
            members.append(self._md("DIDerivedType", {
                "tag": ir.DIToken("DW_TAG_member"),
                "name": names[i] if names and i < len(names) else f"f{i}",
                "baseType": self._llvm(e, None), "size": s, "offset": off}))
            off += s
        return self._md("DICompositeType", {
            "tag": ir.DIToken("DW_TAG_structure_type"), "name": name, "size": bits_of(lt)[0],
            "elements": self.module.add_metadata(members)})
