"""Typing of ``enum`` constants in device code (numba-cuda's rules):
``Color["red"]`` (a constant member name), and comparisons of plain ``Enum``
members, decided at compile time by identity (``==``/``is`` are the same for
enum members, as in Python).  ``IntEnum`` members are ints and follow the
integer rules."""

from __future__ import annotations

from ...registry import registry
from ...types import EnumClass, EnumMember, Signature, StringLiteral, boolean, typeof_constant
from .._records import Comparison, Resolved

__all__ = ["enum_comparison"]

_OPS = {"==": True, "is": True, "!=": False, "is not": False}


def enum_comparison(op, a, b):
    """The compile-time :class:`Comparison` of two operands when one is a plain
    ``Enum`` member (a member of another class, or anything else, is unequal);
    None when neither is one, or for an ordering (``<``: Python's TypeError,
    which the caller reports as "cannot compare")."""
    if not (isinstance(a, EnumMember) or isinstance(b, EnumMember)):
        return None
    if op not in _OPS:
        return None  # the caller's "cannot compare" (Python raises TypeError too)
    same = isinstance(a, EnumMember) and isinstance(b, EnumMember) and a.obj is b.obj
    return Comparison(op, Signature(boolean, (a, b)), constant=same == _OPS[op])


@registry.method(EnumClass, "__getitem__")
def _member_by_name(site):
    cls = site.recv.obj
    (index,) = site.args
    name = site.consts[0] if site.is_const(0) else None
    if not isinstance(index, StringLiteral) or not isinstance(name, str):
        raise site.error(f"{cls.__qualname__}[...] needs a constant member name (a string), not {index}")
    try:
        member = cls[name]
    except KeyError:
        raise site.error(f"{cls.__qualname__} has no member {name!r}") from None
    return Resolved(Signature(typeof_constant(member), (index,)), member)
