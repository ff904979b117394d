"""Typing of ``x in t`` / ``x not in t`` where ``t`` is a tuple (as Python and numba):
``x`` is compared with ``==`` to each item in turn; the result is a bool.  Also
``is`` / ``is not`` (:func:`identity_comparison`).

The link is a :class:`Comparison` whose ``items`` are the per-item equality links
(an item whose type never compares equal with ``x`` is a constant ``False``; an empty
tuple makes the whole link constant).  Lowering ORs the items (and negates for ``not in``).
"""

from __future__ import annotations

from .._compat import is_number
from ..errors import TypingError
from ..types import NoneType, Signature, Tuple, boolean
from ._records import Comparison
from .rules.arithmetic import compare_signature

__all__ = ["membership", "identity_comparison", "tuple_equality"]


def tuple_equality(a, b) -> Comparison:
    """``a == b`` of two tuple types, item by item (the signature of each item's
    comparison is decided here, so lowering never asks the typing rules again)."""
    sig = Signature(boolean, (a, b))
    if len(a) != len(b):
        return Comparison("==", sig, constant=False)
    return Comparison("==", sig, items=tuple(_equality(x, y) for x, y in zip(a.types, b.types)))


def _equality(x, y) -> Comparison:
    """The link for ``x == y`` of two items: tuples item by item, types that never
    compare equal a constant False."""
    if isinstance(x, Tuple) and isinstance(y, Tuple):
        return tuple_equality(x, y)
    sig = compare_signature("==", x, y)
    return Comparison("==", Signature(boolean, (x, y)), constant=False) if sig is None else Comparison("==", sig)


def membership(op, a, b, loc) -> Comparison:
    """The link for ``a op b`` (``op`` is "in" or "not in")."""
    if not isinstance(b, Tuple):
        raise TypingError(f"the '{op}' operator is supported with a tuple on its right, not {a} and {b}", loc)
    sig = Signature(boolean, (a, b))
    items = [_equality(a, y) for y in b.types]
    if all(i.constant is False for i in items):
        return Comparison(op, sig, constant=op == "not in", items=tuple(items))
    return Comparison(op, sig, items=tuple(items))


def identity_comparison(op, a, b, loc) -> Comparison:
    """The link for ``a is b`` / ``a is not b``.

    - None on either side: a constant (identical only when both are None);
    - two booleans: ``==`` / ``!=`` (``True`` and ``False`` are singletons, so identity is
      equality, as in CPython and numba);
    - two scalars of different types (say ``int64`` and ``bool``, ``float32`` and
      ``float64``): a constant, never identical (numba's rule, and CPython's: values of
      different types are different objects).
    Two numbers of one type are refused: numba compares them with ``==``, but an
    ``IntEnum`` member reaches device code as a plain int here, so two members of
    different classes with one value would silently compare identical (CPython and numba
    say they are not)."""
    sig = Signature(boolean, (a, b))
    if isinstance(a, NoneType) or isinstance(b, NoneType):
        same = isinstance(a, NoneType) and isinstance(b, NoneType)
        return Comparison(op, sig, constant=same == (op == "is"))
    eq = "==" if op == "is" else "!="
    if a == boolean and b == boolean:
        return Comparison(eq, compare_signature(eq, a, b))
    if _scalar(a) and _scalar(b) and a != b:
        return Comparison(op, sig, constant=op == "is not")
    hint = " (compare numbers with == / !=)" if is_number(a) and is_number(b) else ""
    raise TypingError(f"'{op}' is supported only to compare with None, not {a} and {b}{hint}", loc)


def _scalar(t) -> bool:
    return t == boolean or is_number(t)
