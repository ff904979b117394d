"""Typing of CUDA vector types: constructors, component reads, and the refusals.

``cuda.float32x4(...)`` takes, in order, numbers (each converted to the base type,
as numba's constructor overloads do) and vectors of the same base type (each adding
its components), ``count`` components in all: ``float32x4(f32x2, z, w)``.  The
components ``.x .y .z .w`` read as the base type.  Components are immutable, as in
numba-cuda: an attribute store is refused with what to write instead.
"""

from __future__ import annotations

from ..._compat import is_number
from ... import device_api as api
from ...registry import registry
from ...types import Signature, VectorType
from .casts import can_convert

__all__ = []


def _components(t) -> int:
    return t.count if isinstance(t, VectorType) else 1


def _construct(site):
    vty = site.callee.vector_type
    name = vty.name
    want = []
    for i, a in enumerate(site.args, 1):
        if isinstance(a, VectorType):
            if a.base_type != vty.base_type:
                raise site.error(f"argument {i} is a {a}; a {name} is built from {vty.base_type} numbers and "
                                 f"vectors of {vty.base_type} ({vty.base_type}x1 ... {vty.base_type}x{vty.count})")
            want.append(a)
        elif is_number(a) and can_convert(a, vty.base_type):
            want.append(vty.base_type)
        else:
            raise site.error(f"argument {i} is {a}; a {name} is built from {vty.base_type} numbers and "
                             f"vectors of {vty.base_type}")
    got = sum(_components(t) for t in want)
    if got != vty.count:
        given = ", ".join(map(str, site.args)) or "no arguments"
        raise site.error(f"a {name} has {vty.count} component(s), but ({given}) give {got}")
    return Signature(vty, tuple(want))


for _name in api.VECTOR_TYPE_NAMES:  # one entry per type (its aliases are the same object)
    registry.call(getattr(api, _name), name=f"cuda.{_name}")(_construct)
del _name


@registry.attr(VectorType, "*")
def _component(t, name):
    return t.base_type if name in t.attr_names else None


@registry.method(VectorType, "__setattr__")
def _store_component(site):
    vty = site.recv
    attr = site.consts[0] if site.consts else "?"
    rebuilt = ", ".join(f"<new {a}>" if a == attr else f"v.{a}" for a in vty.attr_names)
    raise site.error(f"the components of a {vty} are read-only (as in numba-cuda): build a new vector instead, "
                     f"e.g. v = cuda.{vty}({rebuilt})")
