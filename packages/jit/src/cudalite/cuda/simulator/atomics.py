"""``cuda.atomic.*``: read-modify-write of one array element under the simulator's
one atomic lock (``SIM.atomic_lock``), returning the old value."""

from __future__ import annotations

import math

from ._state import SIM

__all__ = ["atomic"]


def _rmw(ary, idx, update):
    with SIM.atomic_lock:
        old = ary[idx]
        ary[idx] = update(old)
        return old


def add(ary, idx, val):
    return _rmw(ary, idx, lambda old: old + val)


def sub(ary, idx, val):
    return _rmw(ary, idx, lambda old: old - val)


def and_(ary, idx, val):
    return _rmw(ary, idx, lambda old: old & val)


def or_(ary, idx, val):
    return _rmw(ary, idx, lambda old: old | val)


def xor(ary, idx, val):
    return _rmw(ary, idx, lambda old: old ^ val)


def _isnan(x):
    try:
        return math.isnan(x)
    except TypeError:
        return False


def max(ary, idx, val):  # noqa: A001  (numba's name)
    # numba: a NaN in memory or operand makes the result NaN for floats
    return _rmw(ary, idx, lambda old: old if _isnan(old) else val if _isnan(val) or val > old else old)


def min(ary, idx, val):  # noqa: A001
    return _rmw(ary, idx, lambda old: old if _isnan(old) else val if _isnan(val) or val < old else old)


def nanmax(ary, idx, val):
    return _rmw(ary, idx, lambda old: val if _isnan(old) or (not _isnan(val) and val > old) else old)


def nanmin(ary, idx, val):
    return _rmw(ary, idx, lambda old: val if _isnan(old) or (not _isnan(val) and val < old) else old)


def exch(ary, idx, val):
    return _rmw(ary, idx, lambda old: val)


def inc(ary, idx, val):
    return _rmw(ary, idx, lambda old: 0 if old >= val else old + 1)


def dec(ary, idx, val):
    return _rmw(ary, idx, lambda old: val if old == 0 or old > val else old - 1)


def compare_and_swap(ary, old, val):
    """numba's ``compare_and_swap(ary, old, val)`` on ``ary[0]``."""
    return cas(ary, 0, old, val)


def cas(ary, idx, old, val):
    return _rmw(ary, idx, lambda cur: val if cur == old else cur)


class _Atomic:
    """The ``cuda.atomic`` namespace."""

    add = staticmethod(add)
    sub = staticmethod(sub)
    and_ = staticmethod(and_)
    or_ = staticmethod(or_)
    xor = staticmethod(xor)
    max = staticmethod(max)
    min = staticmethod(min)
    nanmax = staticmethod(nanmax)
    nanmin = staticmethod(nanmin)
    exch = staticmethod(exch)
    inc = staticmethod(inc)
    dec = staticmethod(dec)
    cas = staticmethod(cas)
    compare_and_swap = staticmethod(compare_and_swap)

    def __repr__(self):
        return "<cudalite simulator namespace cuda.atomic>"


atomic = _Atomic()
