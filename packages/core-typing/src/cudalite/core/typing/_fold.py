"""Constant folding of integer arithmetic: what ``cuda.shared.array(TPB * 2, ...)``
and ``cuda.local.array((N // 4, 2**5), ...)`` need to see a compile-time shape.

Pure functions of Python values (no IR): :func:`fold_binop` and :func:`fold_unary`
return the value of an operation on compile-time integers with Python's semantics
(``//`` and ``%`` floor, ``**`` exact), or ``NOTCONST`` when the operation is left to
run time (an operand that is not an integer, a division by zero, a negative exponent
or shift).  A result that does not fit in 64 bits (``10**100``, ``1 << 64``) raises
:class:`ConstantRangeError` -- device integers have 64 bits -- and is decided before
it is computed, so ``10**10**10`` fails at once instead of hanging.
"""

from __future__ import annotations

import operator

from ..ir import NOTCONST
from ..numpy_support import is_numpy_integer

__all__ = ["ConstantRangeError", "fold_binop", "fold_unary", "INT_MIN", "INT_LIMIT"]

INT_MIN = -(1 << 63)  # the smallest int64
INT_LIMIT = 1 << 64  # one more than the largest uint64

_BINOPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "<<": operator.lshift, ">>": operator.rshift,
    "&": operator.and_, "|": operator.or_, "^": operator.xor,
}
_UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert}


class ConstantRangeError(ValueError):
    """A folded integer constant does not fit in 64 bits."""


def _as_int(v):
    """``v`` as a Python int when it is a (non-bool) integer, else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if is_numpy_integer(v):
        return int(v)
    return None


def _check(value, text):
    if not INT_MIN <= value < INT_LIMIT:
        raise ConstantRangeError(f"the constant expression {text} does not fit in 64 bits "
                                 f"(its value has {abs(value).bit_length()} bits)")
    return value


def _too_big(text, bits):
    return ConstantRangeError(f"the constant expression {text} does not fit in 64 bits "
                              f"(its value would have about {bits} bits)")


def fold_binop(op: str, a, b):
    """``a op b`` for integers ``a`` and ``b``, or NOTCONST."""
    x, y = _as_int(a), _as_int(b)
    fn = _BINOPS.get(op)
    if x is None or y is None or fn is None:
        return NOTCONST
    text = f"{x} {op} {y}"
    if op in ("//", "%") and y == 0:
        return NOTCONST  # ZeroDivisionError is the running code's to raise
    if op == "**":
        if y < 0:
            return NOTCONST  # a float in Python: not an integer constant
        if abs(x) > 1 and y * (abs(x).bit_length() - 1) > 64:  # at least that many bits
            raise _too_big(text, y * (abs(x).bit_length() - 1))
    if op in ("<<", ">>") and y < 0:
        return NOTCONST  # ValueError in Python
    if op == "<<" and x != 0 and y > 64:
        raise _too_big(text, x.bit_length() + y)
    return _check(fn(x, y), text)


def fold_unary(op: str, a):
    """``op a`` for an integer ``a`` (``-``, ``+``, ``~``), or NOTCONST."""
    x = _as_int(a)
    fn = _UNARY.get(op)
    if x is None or fn is None:
        return NOTCONST
    return _check(fn(x), f"{op}{x}")
