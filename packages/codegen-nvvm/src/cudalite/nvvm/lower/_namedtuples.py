"""Lowering of named tuples: field access (the item at the field's position) and
construction (``Point(x, y)``: a tuple value of the bound arguments)."""

from __future__ import annotations

from cudalite.core.types import NamedTuple
from cudalite.core.typing.rules.namedtuples import NAMEDTUPLE_NEW

from ._intrinsics import tuple_value
from ._registry import lowerings

__all__ = []


@lowerings.attr(NamedTuple, "*")
def _field(lc, value, info):
    t = info.sig.args[0]
    return lc.builder.extract_value(value, t.fields.index(info.name))


@lowerings.call(NAMEDTUPLE_NEW)
def _new(lc, node, args, info):
    """``Point(x, y)``: the tuple of the bound arguments (already of the item types)."""
    return tuple_value(lc, info.sig.return_type, args)
