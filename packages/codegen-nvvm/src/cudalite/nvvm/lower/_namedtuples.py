"""Lowering of named tuples' field access: the item at the field's position."""

from __future__ import annotations

from cudalite.core.types import NamedTuple

from ._registry import lowerings

__all__ = []


@lowerings.attr(NamedTuple, "*")
def _field(lc, value, info):
    t = info.sig.args[0]
    return lc.builder.extract_value(value, t.fields.index(info.name))
