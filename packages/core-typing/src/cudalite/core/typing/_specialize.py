"""Device functions specialized on call-site constants (numba's literal arguments).

A call is typed by its argument types; when that fails and some arguments are
compile-time constants (ints, bools, strings, tuples of them), the callee is typed
again with those values bound to its parameters, so a helper can take the shape and
dtype of the array it makes.  In a specialized function a condition that is such a
constant keeps only its live branch (numba's dead-branch pruning); typing records
the choice in ``TypedFunction.pruned`` and lowering follows it.  Recursive functions
are never retried (their errors come from the recursion, not from a constant).
"""

from __future__ import annotations

from .. import ir
from ..errors import TypingError
from ._recursion import is_recursion_error

__all__ = ["type_call", "live_branch"]


def type_call(ctx, pyfunc, argtypes, arg_consts, loc=None, return_type=None):
    """``pyfunc`` typed for a device call, specialized on ``arg_consts`` only when needed."""
    try:
        return ctx.type_function(pyfunc, argtypes, return_type, loc=loc)
    except TypingError as e:
        consts = tuple(c if _specializable(c) else ir.NOTCONST for c in arg_consts)
        if all(c is ir.NOTCONST for c in consts) or is_recursion_error(e):
            raise
    return ctx.type_function(pyfunc, argtypes, return_type, loc=loc, arg_consts=consts)


def live_branch(inference, s):
    """The one branch of ``if`` statement ``s`` to type when its condition is a
    compile-time constant (a specialized argument, ``len`` of a tuple, a frozen
    global...), recorded for lowering; None: type both.  numba prunes such branches
    too (its dead-branch pruning after rewriting semantic constants), so code in the
    branch that never runs is not typed."""
    value = inference.const_of(s.test)
    if not (value is None or isinstance(value, (bool, int, str))):
        return None
    inference.tf.pruned[s] = bool(value)
    return s.body if value else s.orelse


def _specializable(value) -> bool:
    if isinstance(value, tuple):
        return all(_specializable(v) for v in value)
    return isinstance(value, (bool, int, str))
