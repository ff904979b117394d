"""Typing of named tuples' field access (``p.x``: the item at the field's
position); everything else about them is the tuple's."""

from __future__ import annotations

from ...registry import registry
from ...types import NamedTuple

__all__ = []


@registry.attr(NamedTuple, "*")
def _field(t, name):
    if name in t.fields:
        return t.types[t.fields.index(name)]
    return None
