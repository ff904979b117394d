"""Aggregate types: arrays, tuples, C pointers and NumPy records."""

from __future__ import annotations

from ._base import Type

__all__ = [
    "Array", "ArrayCTypes", "Tuple", "NamedTuple", "UniTuple", "CPointer", "Record", "NestedArray",
    "array_from_subscript",
]

MAX_NDIM = 8


class Array(Type):
    """An n-d array view: ``dtype``, ``ndim`` (0 to 8), ``layout`` ('C', 'F' or 'A').
    A 0-d array (one element, ``a[()]``) is always 'C', as NumPy's are contiguous.

    ``readonly`` arrays (constant memory) reject stores at type-check time.
    """

    __slots__ = ("dtype", "ndim", "layout", "readonly")

    def __init__(self, dtype: Type, ndim: int, layout: str = "A", readonly: bool = False):
        if not 0 <= ndim <= MAX_NDIM:
            raise ValueError(f"arrays have 0 to {MAX_NDIM} dimensions, not {ndim}")
        if layout not in ("C", "F", "A"):
            raise ValueError(f"array layout must be 'C', 'F' or 'A', not {layout!r}")
        if ndim == 0 or (ndim == 1 and layout == "F"):
            layout = "C"
        ro = "readonly " if readonly else ""
        name = f"{ro}array({dtype}, {ndim}d, {layout})"
        super().__init__((dtype, ndim, layout, readonly), name)
        self.dtype, self.ndim, self.layout, self.readonly = dtype, ndim, layout, readonly

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None) -> "Array":
        return Array(
            self.dtype if dtype is None else dtype,
            self.ndim if ndim is None else ndim,
            self.layout if layout is None else layout,
            self.readonly if readonly is None else readonly,
        )


class ArrayCTypes(Type):
    """``arr.ctypes`` in device code: the array's data address (``.data``, a uint64),
    as NumPy's ``ndarray.ctypes.data``."""

    __slots__ = ("array",)

    def __init__(self, array: Array):
        super().__init__(("ctypes", array), f"ArrayCTypes({array})")
        self.array = array


def array_from_subscript(dtype: Type, spec) -> Array:
    """``float32[:, ::1]`` -> a 2-d C-contiguous array of float32; ``float32[()]`` -> a
    0-d array (numba spells it ``types.Array(float32, 0, 'C')``)."""
    if spec == ():
        return Array(dtype, 0, "C")
    items = spec if isinstance(spec, tuple) else (spec,)
    if not all(isinstance(s, slice) for s in items):
        raise TypeError(f"array type spec must be slices such as [:] or [:, ::1], not {spec!r}")
    for s in items:
        if s.start is not None or s.stop is not None or s.step not in (None, 1):
            raise TypeError(f"array type spec accepts only ':' and '::1', not {s!r}")
    contiguous = [s.step == 1 for s in items]
    if sum(contiguous) > 1:
        raise TypeError("only one dimension of an array type may be marked '::1'")
    layout = "A"
    if contiguous[-1]:
        layout = "C"
    elif contiguous[0] and len(items) > 1:
        layout = "F"
    elif any(contiguous):
        raise TypeError("'::1' may mark only the first (F) or last (C) dimension")
    return Array(dtype, len(items), layout)


class Tuple(Type):
    """A heterogeneous (or uniform) tuple of values."""

    __slots__ = ("types",)

    def __init__(self, types):
        types = tuple(types)
        if types and all(t == types[0] for t in types) and len(types) > 1:
            name = f"UniTuple({types[0]} x {len(types)})"
        else:
            name = f"Tuple({', '.join(map(str, types))})"
        super().__init__(types, name)
        self.types = types

    def __len__(self):
        return len(self.types)

    def __iter__(self):
        return iter(self.types)

    def __getitem__(self, i):
        return self.types[i]

    @property
    def is_uniform(self) -> bool:
        return bool(self.types) and all(t == self.types[0] for t in self.types)


class NamedTuple(Tuple):
    """A ``collections.namedtuple`` (or ``typing.NamedTuple``) class's instances: a
    tuple (same layout, indexing, iteration and kernel ABI) whose items are also
    read by field name (``p.x``).  Keyed by the class and the item types."""

    __slots__ = ("cls", "fields")

    def __init__(self, types, cls):
        types = tuple(types)
        fields = tuple(cls._fields)
        if len(fields) != len(types):
            raise ValueError(f"{cls.__qualname__} has {len(fields)} fields, not {len(types)}")
        shown = ", ".join(f"{n}: {t}" for n, t in zip(fields, types))
        Type.__init__(self, (cls, types), f"{cls.__qualname__}({shown})")
        self.types, self.cls, self.fields = types, cls, fields


def UniTuple(dtype: Type, count: int) -> Tuple:
    """A tuple of ``count`` values of ``dtype``."""
    return Tuple((dtype,) * count)


class CPointer(Type):
    """A raw pointer to ``dtype`` (``types.CPointer(types.float32)``)."""

    __slots__ = ("dtype", "addrspace")

    def __init__(self, dtype: Type, addrspace: int = 0):
        suffix = f" addrspace({addrspace})" if addrspace else ""
        super().__init__((dtype, addrspace), f"CPointer({dtype}){suffix}")
        self.dtype, self.addrspace = dtype, addrspace

    @property
    def is_scalar(self) -> bool:
        return True


class NestedArray(Type):
    """The type of a sub-array field of a record (``('h', '<f4', (3, 2))``): ``dtype``
    elements in a C-contiguous block of the constant ``shape`` inside the record.
    Only a record field has this type; reading the field (``rec.h``, ``rec['h']``)
    gives a view of it, :meth:`view_type` (numba's ``NestedArray``)."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype: Type, shape):
        shape = tuple(int(n) for n in (shape if isinstance(shape, tuple) else (shape,)))
        if not 1 <= len(shape) <= MAX_NDIM or any(n < 0 for n in shape):
            raise ValueError(f"a nested array has 1 to {MAX_NDIM} non-negative extents, not {shape}")
        super().__init__((dtype, shape), f"nestedarray({dtype}, {shape})")
        self.dtype, self.shape = dtype, shape

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for k in self.shape:
            n *= k
        return n

    def view_type(self) -> Array:
        """The array type of the field read as a value: a C-contiguous view."""
        return Array(self.dtype, self.ndim, "C")


class Record(Type):
    """A NumPy structured dtype: ordered ``(name, type, offset)`` fields and a size.
    A field's type is a scalar, a nested :class:`Record` or a :class:`NestedArray`
    (a sub-array field)."""

    __slots__ = ("fields", "size", "aligned")

    def __init__(self, fields, size: int, aligned: bool = False):
        fields = tuple((n, t, int(o)) for n, t, o in fields)
        desc = ", ".join(f"{n}:{t}@{o}" for n, t, o in fields)
        super().__init__((fields, size, aligned), f"Record({desc}; {size})")
        self.fields, self.size, self.aligned = fields, size, aligned

    def field(self, name):
        for n, t, o in self.fields:
            if n == name:
                return t, o
        return None

    def __getitem__(self, spec):
        return array_from_subscript(self, spec)
