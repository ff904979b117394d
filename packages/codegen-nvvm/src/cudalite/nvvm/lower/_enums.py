"""Lowering of ``Color["red"]``: the member, a compile-time constant (an int for
an ``IntEnum``; a plain ``Enum`` member has no runtime value)."""

from __future__ import annotations

from cudalite.core.types import EnumClass

from ._constants import lower_constant
from ._registry import lowerings

__all__ = []


@lowerings.method(EnumClass, "__getitem__")
def _member_by_name(lc, node, args, info):
    return lower_constant(lc, info.payload, info.sig.return_type)
