"""Constant folding of integer arithmetic: what ``cuda.shared.array(TPB * 2, ...)``
and ``cuda.local.array((N // 4, 2**5), ...)`` need to see a compile-time shape.

Pure functions of Python values (no IR): :func:`fold_binop` and :func:`fold_unary`
return the value of an operation on compile-time integers with Python's semantics
(``//`` and ``%`` floor, ``**`` exact), or ``NOTCONST`` when the operation is left to
run time (an operand that is not an integer, a division by zero, a negative exponent
or shift).  A result that does not fit in 64 bits is refused with
:class:`ConstantRangeError` only where numba refuses it: when CPython's own compiler
folds the expression into one too-big literal (its limit is 128 bits: ``1 << 64``,
``2**64``, ``(1 << 40) * (1 << 40)``, ``-(2**64)``).  Larger expressions CPython leaves
to run time (``10**100``, ``(-2**62) ** 4``, ``6364136223846793005 ** 3``) are not folded
either: they run with numba's wrapping int64 arithmetic, and a consumer that needs the
value at compile time (a shape) reports a runtime value.  So do operations whose
operands are constant but not literals (:func:`literal_operands` is false: a tuple
item, a variable or a global holding a constant): CPython folds none of them, numba
types them as int64 and computes them at run time, so ``t = (2**62, 4); t[0] * t[1]``
compiles and wraps.  Sizes are decided before
computing, so ``10**10**10`` costs nothing.
"""

from __future__ import annotations

import operator

from .. import ir
from ..ir import NOTCONST
from ..numpy_support import is_numpy_integer

__all__ = [
    "constant_comparison",
    "ConstantRangeError", "fold_binop", "fold_unary", "fold_literals", "literal_operands", "INT_MIN", "INT_LIMIT",
]

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


_CPYTHON_MAX_INT_BITS = 128  # CPython's AST optimizer folds integer results up to this size


def _cpython_folds(op, x, y) -> bool:
    """Whether CPython's compiler folds ``x op y`` (two int literals) into one constant:
    the ``safe_multiply``/``safe_power``/``safe_lshift`` limits of its AST optimizer."""
    limit = _CPYTHON_MAX_INT_BITS
    if op == "*":
        return not (x and y) or x.bit_length() + y.bit_length() <= limit
    if op == "**":
        return not (x and y > 0) or x.bit_length() <= limit // y
    if op == "<<":
        return not (x and y) or (y <= limit and x.bit_length() <= limit - y)
    return True


def _binop_overflow(op, x, y):
    """A ConstantRangeError when ``x op y`` does not fit in 64 bits, else None."""
    text = f"{x} {op} {y}"
    if op == "**" and abs(x) > 1 and y * (abs(x).bit_length() - 1) > 64:
        return _too_big(text, y * (abs(x).bit_length() - 1))  # at least that many bits
    if op == "<<" and x != 0 and y > 64:
        return _too_big(text, x.bit_length() + y)
    try:
        _check(_BINOPS[op](x, y), text)
    except ConstantRangeError as err:
        return err
    return None


def _literal(node) -> bool:
    """Whether ``node`` is what CPython's compiler sees as a literal: a constant written
    in the source (not a named global), or ``-``/``+``/``~`` or an operation of literals."""
    if isinstance(node, ir.Const):
        return node.name is None
    if isinstance(node, ir.UnaryOp):
        return node.op in ("-", "+", "~") and _literal(node.operand)
    if isinstance(node, ir.BinOp):
        return _literal(node.left) and _literal(node.right)
    return False


def literal_operands(node) -> bool:
    """Whether both operands of the ``ir.BinOp`` ``node`` are literals, so that CPython
    folds it into one constant (and numba refuses one that is too big)."""
    return _literal(node.left) and _literal(node.right)


def fold_binop(op: str, a, b, literals: bool = True):
    """``a op b`` for integers ``a`` and ``b``, or NOTCONST (also when the value needs more
    than 64 bits and CPython would not fold it: it runs, and wraps, as in numba).
    ``literals`` false: the operands are constants but not literals (a tuple item, a
    variable); a value that does not fit is then never refused, it runs and wraps."""
    x, y = _as_int(a), _as_int(b)
    fn = _BINOPS.get(op)
    if x is None or y is None or fn is None:
        return NOTCONST
    if op in ("//", "%") and y == 0:
        return NOTCONST  # ZeroDivisionError is the running code's to raise
    if op == "**" and y < 0:
        return NOTCONST  # a float in Python: not an integer constant
    if op in ("<<", ">>") and y < 0:
        return NOTCONST  # ValueError in Python
    err = _binop_overflow(op, x, y)
    if err is not None:
        if literals and _cpython_folds(op, x, y):
            raise err  # numba sees one literal too big for any integer type
        return NOTCONST
    return fn(x, y)


def fold_unary(op: str, a):
    """``op a`` for an integer ``a`` (``-``, ``+``, ``~``), or NOTCONST."""
    x = _as_int(a)
    fn = _UNARY.get(op)
    if x is None or fn is None:
        return NOTCONST
    return _check(fn(x), f"{op}{x}")  # CPython folds it: numba sees the literal


def fold_literals(op: str, *operands):
    """What CPython's compiler makes of ``op`` on integer *literals* (numba sees the
    folded literal, so its type follows the value: ``65535 ** 4`` is a uint64 and
    ``-9223372036854775808`` an int64): the value, or NOTCONST where CPython does not
    fold, or where the value needs more than 64 bits (then :func:`fold_binop` decides)."""
    xs = [v if isinstance(v, int) and not isinstance(v, bool) else None for v in operands]
    if None in xs:
        return NOTCONST
    try:
        v = fold_unary(op, *xs) if len(xs) == 1 else fold_binop(op, *xs)
    except ConstantRangeError:
        return NOTCONST
    if v is NOTCONST or (len(xs) == 2 and not _cpython_folds(op, *xs)):
        return NOTCONST
    return v


_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _constant_identity(a, b):
    """``a is b`` of two constants where typing's rule decides it (see
    ``_membership.identity_comparison``): booleans and None are singletons, values of
    different types are different objects; two numbers of one type: NOTCONST."""
    singletons = (bool, type(None))
    if isinstance(a, singletons) and isinstance(b, singletons):
        return a is b
    if type(a) is not type(b) and all(isinstance(v, (bool, int, float, type(None))) for v in (a, b)):
        return False
    return ir.NOTCONST


def constant_comparison(node, values):
    """The value of comparison chain ``node`` whose operands are the constants
    ``values`` (ints, bools, strings of one kind), or NOTCONST."""
    if any(v is ir.NOTCONST for v in values):
        return ir.NOTCONST
    if len(node.ops) == 1 and node.ops[0] in ("is", "is not"):
        same = _constant_identity(*values)
        return same if same is ir.NOTCONST else same == (node.ops[0] == "is")
    if any(op not in _COMPARE for op in node.ops):
        return ir.NOTCONST
    kinds = {str if isinstance(v, str) else int if isinstance(v, (bool, int)) else None for v in values}
    if None in kinds or len(kinds) != 1:
        return ir.NOTCONST
    return all(_COMPARE[op](a, b) for op, a, b in zip(node.ops, values, values[1:]))
