"""Typing of ``datetime64`` / ``timedelta64`` operators (numba's rules, one unit).

* ``timedelta ± timedelta -> timedelta``; ``datetime ± timedelta -> datetime``
  (and ``timedelta + datetime``); ``datetime - datetime -> timedelta``;
* ``timedelta * int`` / ``int * timedelta`` / ``timedelta // int -> timedelta``;
  unary ``-`` / ``+`` / ``abs`` of a timedelta;
* comparisons between two datetimes or two timedeltas (a boolean; NaT compares
  unequal to everything, as in NumPy).

Both operands must have the same unit (NumPy would convert to the finer one;
cudalite refuses mixed units with a TypingError).  NaT propagates through ``+``,
``-`` and ``*`` (lowering: ``_arith``).
"""

from __future__ import annotations

from ..._compat import numeric_kind
from ...types import NPDatetime, NPTimedelta, Signature, boolean

__all__ = ["is_datetime_like", "datetime_binop_signature", "datetime_compare_signature",
           "datetime_unary_signature"]


def is_datetime_like(t) -> bool:
    return isinstance(t, (NPDatetime, NPTimedelta))


def _td(unit):
    return NPTimedelta(unit)


def datetime_binop_signature(op, a, b):
    """The signature of ``a op b`` when either operand is a datetime/timedelta, or None."""
    da, db = isinstance(a, NPDatetime), isinstance(b, NPDatetime)
    ta, tb = isinstance(a, NPTimedelta), isinstance(b, NPTimedelta)
    ia, ib = numeric_kind(a) in ("b", "i"), numeric_kind(b) in ("b", "i")
    if (da or ta) and (db or tb) and a.unit != b.unit:
        return None
    if op == "+":
        if ta and tb:
            return Signature(a, (a, b))
        if da and tb:
            return Signature(a, (a, b))
        if ta and db:
            return Signature(b, (a, b))
        return None
    if op == "-":
        if (ta and tb) or (da and tb):
            return Signature(a, (a, b))
        if da and db:
            return Signature(_td(a.unit), (a, b))
        return None
    if op == "*":
        if ta and ib:  # the integer is computed as a timedelta of the same unit
            return Signature(a, (a, a))
        if ia and tb:
            return Signature(b, (b, b))
        return None
    if op == "//" and ta and ib:
        return Signature(a, (a, a))
    return None


def datetime_compare_signature(op, a, b):
    if type(a) is type(b) and a.unit == b.unit:
        return Signature(boolean, (a, a))
    return None


def datetime_unary_signature(op, a):
    if isinstance(a, NPTimedelta) and op in ("-", "+"):
        return Signature(a, (a,))
    return None
