"""``f(a, *t, b)`` in device code: a tuple unpacked into a call's arguments
(numba's rule: ``t`` must be a tuple, whose length is known when typing).

Typing replaces each :class:`~cudalite.core.ir.Starred` argument of the call
by one :class:`~cudalite.core.ir.StarItem` per tuple item, so every call form
(device functions, built-ins, casts such as ``complex(*cmath.polar(z))``) sees
ordinary positional arguments; lowering evaluates ``t`` once, at its first item.  An
empty ``*args`` of the function's own ``*args`` parameter expands to nothing."""

from __future__ import annotations

from .. import ir
from ..errors import TypingError
from ..types import Tuple

__all__ = ["expand_starred", "star_item_type"]


def _tuple_of(tc, value, loc):
    t = tc.expr(value)
    if not isinstance(t, Tuple):
        raise TypingError(f"*args in a call must be a tuple in device code, not {t}", loc)
    return t


def expand_starred(tc, call):
    """Replace the call's ``*t`` arguments by the items of ``t`` (in place)."""
    if not any(isinstance(a, ir.Starred) for a in call.args):
        return
    out = []
    for a in call.args:
        if not isinstance(a, ir.Starred):
            out.append(a)
            continue
        n = len(_tuple_of(tc, a.value, a.loc).types)
        if n == 0 and not _own_varargs(tc, a.value):
            raise TypingError("*args of an empty tuple is not supported in device code", a.loc)
        out.extend(ir.StarItem(a.loc, a.value, i, n) for i in range(n))
    call.args = out


def _own_varargs(tc, value) -> bool:
    """Whether ``value`` reads the function's own ``*args`` parameter as passed: its IR
    is built per length of that tuple, so an empty one expands to no argument for
    good (numba's ``consumer(func, *args)`` called with ``func`` alone); any other
    empty tuple keeps the refusal (its expression would not be evaluated)."""
    fir = tc.fir
    if fir.vararg is None or not isinstance(value, ir.Var) or value.name != fir.vararg:
        return False
    version = tc.ssa.uses.get(value)
    return version is not None and version.kind == "param"


def star_item_type(tc, item):
    t = _tuple_of(tc, item.value, item.loc)
    if len(t.types) != item.count:  # the same call typed again with another tuple length
        raise TypingError(f"*args: this call unpacks a tuple of {item.count} items here and of "
                          f"{len(t.types)} items elsewhere; cudalite needs one length", item.loc)
    return t.types[item.index]
