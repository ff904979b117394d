"""CUDA vector types (numba-cuda's ``float32x4``, ``int2``, ``uchar4`` ...).

A :class:`VectorType` is ``count`` (1 to 4) components of one integer or float
``base_type``, named ``x``, ``y``, ``z``, ``w``.  Its values are immutable (as in
numba-cuda): built by the constructor (``cuda.float32x4(...)``), read by attribute.
The canonical name is ``<base>x<count>`` (``float32x4``); :data:`VECTOR_ALIASES`
gives the CUDA C names (``float4``, ``int2``, ``ulonglong3`` ...) of each, with
numba-cuda's platform rule for ``long``/``ulong`` (NumPy's ``int_``/``uint``).

:func:`cuda_alignment` is CUDA C's alignment of the type (``float4``: 16 bytes),
which the foreign-function ABI must honour.
"""

from __future__ import annotations

import struct
from types import MappingProxyType

from ._base import Type
from ._scalar import Float, Integer, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64

__all__ = ["VectorType", "vector_types", "VECTOR_ALIASES", "VECTOR_BASES", "cuda_alignment", "vector_type_named"]

ATTR_NAMES = ("x", "y", "z", "w")

#: the base types of numba-cuda's vector types, in its order
VECTOR_BASES = (int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64)


class VectorType(Type):
    """``count`` components of ``base_type`` (``float32x4``); immutable values."""

    __slots__ = ("base_type", "count")

    def __init__(self, base_type: Type, count: int):
        if not isinstance(base_type, (Integer, Float)) or base_type.bitwidth == 16 and isinstance(base_type, Float):
            raise ValueError(f"a vector type's base is an integer, float32 or float64 type, not {base_type}")
        if count not in (1, 2, 3, 4):
            raise ValueError(f"a vector type has 1 to 4 components, not {count}")
        super().__init__((base_type, count), f"{base_type}x{count}")
        self.base_type, self.count = base_type, count

    @property
    def num_elements(self) -> int:
        """numba-cuda's name of :attr:`count`."""
        return self.count

    @property
    def user_facing_object(self):
        """numba-cuda's name for the constructor users call (``cuda.float32x4``; its
        ``aliases`` are the CUDA C names).  Looked up by name in the device API, which
        builds its stubs from these types (a lazy lookup, not an import cycle)."""
        import importlib

        return getattr(importlib.import_module("cudalite.core.device_api"), self.name)

    @property
    def attr_names(self) -> tuple:
        """The component names: ``("x", "y")`` for a 2-vector."""
        return ATTR_NAMES[:self.count]


def cuda_alignment(t: VectorType) -> int:
    """CUDA C's alignment of the vector type in bytes (vector_types.h): 1 and 3
    components align as one component, 2 as two, 4 as four (at most 16 bytes)."""
    size = t.base_type.bitwidth // 8
    return {1: size, 2: 2 * size, 3: size, 4: min(4 * size, 16)}[t.count]


def _c_aliases() -> dict:
    """alias (``float4``) -> canonical name (``float32x4``): numba-cuda's table, which
    sizes ``long``/``ulong`` as NumPy's ``int_``/``uint`` (pointer-sized with NumPy 2
    and on 64-bit Linux; read here without importing NumPy)."""
    word = struct.calcsize("P") * 8
    bits = {
        "char": "int8", "short": "int16", "int": "int32", "long": f"int{word}", "longlong": "int64",
        "uchar": "uint8", "ushort": "uint16", "uint": "uint32", "ulong": f"uint{word}", "ulonglong": "uint64",
        "float": "float32", "double": "float64",
    }
    return {f"{c}{n}": f"{base}x{n}" for c, base in bits.items() for n in (1, 2, 3, 4)}


#: canonical name -> VectorType, all 40 of numba-cuda (read-only)
vector_types = MappingProxyType({
    f"{b}x{n}": VectorType(b, n) for b in VECTOR_BASES for n in (1, 2, 3, 4)
})

#: CUDA C alias -> canonical name (``"float4": "float32x4"``; read-only)
VECTOR_ALIASES = MappingProxyType(_c_aliases())


def vector_type_named(name: str):
    """The VectorType called ``name`` (canonical or alias), or None."""
    return vector_types.get(VECTOR_ALIASES.get(name, name))
