"""Struct values of cuda.compute operators, as named tuples.

cuda.compute describes a struct (a ``gpu_struct`` class, a ZipIterator's values, a
NumPy structured dtype) by an aligned structured dtype.  Inside an operator cudalite
gives such a value *value semantics*, as cuda.compute's own compiler does: a named
tuple whose fields are the dtype's fields (``p.first``, ``p[0]``), nested for nested
structs.  The operator's C-ABI wrapper loads each struct argument from memory into
one (``load_expression``) and stores the result's fields, converted to the field
types, back (``store_lines``).  A struct *class* the operator calls (``Pair(a, b)``,
keywords too) is replaced by a device function that converts each argument to its
field's type and builds the named tuple (``constructor``).

One named-tuple class per structured dtype (``struct_class``): two structs of the
same layout and field names are one type, as cuda.compute's struct-to-struct
conversion treats them.
"""

from __future__ import annotations

import functools
import keyword
import linecache
import types as pytypes

import numpy as np

from cudalite.core.types import NamedTuple, from_dtype

from .._dispatch.decorator import jit

__all__ = ["is_record_class", "struct_class", "value_type", "storage_type", "record_dtype", "load_expression",
           "store_lines", "constructor", "with_record_constructors"]


def is_record_class(obj) -> bool:
    """A struct class: a class whose ``dtype`` is a structured NumPy dtype (what
    ``cuda.compute.gpu_struct`` makes)."""
    return isinstance(obj, type) and isinstance(getattr(obj, "dtype", None), np.dtype) and obj.dtype.names is not None


@functools.lru_cache(maxsize=256)
def struct_class(dtype: np.dtype):
    """The named-tuple class of the values of structured ``dtype``: a tuple class with
    ``_fields`` (what cudalite's named tuples are), without ``collections.namedtuple``'s
    rules on names (a struct field may start with ``_``)."""
    return type("Struct", (tuple,), {"__slots__": (), "_fields": tuple(dtype.names), "record_dtype": dtype})


def value_type(dtype):
    """The cudalite type of a value of NumPy ``dtype`` inside an operator."""
    dtype = np.dtype(dtype)
    if dtype.names is None:
        return from_dtype(dtype)
    return NamedTuple(tuple(value_type(dtype.fields[n][0]) for n in dtype.names), struct_class(dtype))


def record_dtype(t):
    """The structured dtype of a struct value type, else None."""
    return getattr(getattr(t, "cls", None), "record_dtype", None) if isinstance(t, NamedTuple) else None


def storage_type(t):
    """How a value of type ``t`` lies in memory: a record for a struct, else ``t``."""
    dtype = record_dtype(t)
    return t if dtype is None else from_dtype(dtype)


def _check_fields(t):
    bad = [f for f in t.fields if keyword.iskeyword(f) or not f.isidentifier()]
    if bad:
        raise TypeError(f"cccl.op(): the struct field {bad[0]!r} is not a Python identifier that an operator "
                        "can name")


def load_expression(path: str, t, names: dict) -> str:
    """Source text building the value of type ``t`` from the record at ``path``;
    ``names`` (class -> name) collects the named-tuple classes it uses."""
    if record_dtype(t) is None:
        return path
    _check_fields(t)
    name = names.setdefault(t.cls, f"_cudalite_struct{len(names)}")
    parts = (load_expression(f"{path}.{field}", ft, names) for field, ft in zip(t.fields, t.types))
    return f"{name}({', '.join(parts)})"


def store_lines(target: str, value: str, t) -> list:
    """Source lines storing ``value`` (a tuple or named tuple, items in field order)
    into the record at ``target``, field by field (converted to the fields' types)."""
    if record_dtype(t) is None:
        return [f"{target} = {value}"]
    _check_fields(t)
    lines = []
    for k, (field, ft) in enumerate(zip(t.fields, t.types)):
        lines += store_lines(f"{target}.{field}", f"{value}[{k}]", ft)
    return lines


@functools.lru_cache(maxsize=256)
def constructor(dtype: np.dtype):
    """A device function building the struct value of ``dtype`` from its fields
    (positional or keyword), each converted to its field's type; a struct field
    takes a struct value or a tuple of its fields."""
    fields = dtype.names
    bad = [f for f in fields if keyword.iskeyword(f) or not f.isidentifier() or f.startswith("_cudalite_")]
    if bad:
        raise TypeError(f"cccl.op(): a struct with the field name {bad[0]!r} cannot be built in an operator "
                        "(a field passed by keyword needs a Python identifier that is not a keyword)")
    params = list(fields)
    namespace = {"_cudalite_struct": struct_class(dtype)}
    items = []
    for k, f in enumerate(fields):
        fdt = dtype.fields[f][0]
        if fdt.names is not None:
            namespace[f"_cudalite_make{k}"] = constructor(fdt)
            items.append(f"_cudalite_make{k}(*{f})")
        else:
            namespace[f"_cudalite_type{k}"] = from_dtype(fdt)
            items.append(f"_cudalite_type{k}({f})")
    name = "make_struct_" + "_".join(fields)
    text = f"def {name}({', '.join(params)}):\n    return _cudalite_struct({', '.join(items)})\n"
    filename = f"<cudalite.cccl struct {'/'.join(fields)} {abs(hash(dtype)):x}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - generated from a dtype's field names
    return jit(device=True)(namespace[name])


def with_record_constructors(func):
    """``func`` with the struct classes it reads (globals or closure variables)
    replaced by their ``constructor`` -- ``func`` itself when it reads none."""
    code = func.__code__
    glob = {n: func.__globals__[n] for n in code.co_names if is_record_class(func.__globals__.get(n))}
    cells = list(func.__closure__ or ())
    swapped = False
    for i, cell in enumerate(cells):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if is_record_class(value):
            cells[i] = pytypes.CellType(constructor(value.dtype))
            swapped = True
    if not glob and not swapped:
        return func
    namespace = dict(func.__globals__)
    namespace.update({n: constructor(cls.dtype) for n, cls in glob.items()})
    out = pytypes.FunctionType(code, namespace, func.__name__, func.__defaults__, tuple(cells) or None)
    out.__kwdefaults__, out.__qualname__, out.__module__ = func.__kwdefaults__, func.__qualname__, func.__module__
    return out
