"""Typing of ``x in t`` / ``x not in t`` where ``t`` is a tuple (as Python and numba):
``x`` is compared with ``==`` to each item in turn; the result is a bool.

The link is a :class:`Comparison` whose ``items`` are the per-item equality links
(an item whose type never compares equal with ``x`` is a constant ``False``; an empty
tuple makes the whole link constant).  Lowering ORs the items (and negates for ``not in``).
"""

from __future__ import annotations

from ..errors import TypingError
from ..types import Signature, Tuple, boolean
from ._records import Comparison
from .rules.arithmetic import compare_signature

__all__ = ["membership"]


def membership(op, a, b, loc, tuple_equality) -> Comparison:
    """The link for ``a op b`` (``op`` is "in" or "not in"); ``tuple_equality(x, y)``
    gives the equality link of two tuple types."""
    if not isinstance(b, Tuple):
        raise TypingError(f"the '{op}' operator is supported with a tuple on its right, not {a} and {b}", loc)
    sig = Signature(boolean, (a, b))
    items = []
    for y in b.types:
        if isinstance(a, Tuple) and isinstance(y, Tuple):
            items.append(tuple_equality(a, y))
            continue
        item = compare_signature("==", a, y)
        items.append(Comparison("==", Signature(boolean, (a, y)), constant=False) if item is None
                     else Comparison("==", item))
    if all(i.constant is False for i in items):
        return Comparison(op, sig, constant=op == "not in", items=tuple(items))
    return Comparison(op, sig, items=tuple(items))
