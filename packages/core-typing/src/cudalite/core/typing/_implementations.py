"""Calls answered by Python code: the extension API's overloads, typed as device functions.

A typer of the registry (``overload``, ``overload_method``, ``overload_attribute`` of
:mod:`cudalite.nvvm.extending`) may answer a call with an
:class:`~._records.Implementation`: a Python function to compile for the call's
argument types.  :func:`implementation_call` types it (defaults filled in, arity
checked against the implementation) and records the call as a
:attr:`~._records.CallKind.FUNCTION` call, so lowering, inlining, exceptions and error
locations treat it as any device function.
"""

from __future__ import annotations

import operator

from .. import ir
from ..errors import TypingError
from ..types import Signature
from ._binding import pack_varargs
from ._records import CallInfo, CallKind
from ._specialize import type_call

__all__ = ["implementation_call", "method_implementation_call", "operator_overload", "BINARY_OPERATORS",
           "UNARY_OPERATORS"]


def implementation_call(inf, node, impl, args, consts, arg_nodes, loc):
    """For inference ``inf``, record ``node`` as a device-function call of the extension
    code ``impl`` (an :class:`Implementation`) with the argument types ``args``
    (keywords already folded; ``arg_nodes``: the argument expressions); its result type."""
    fn = impl.pyfunc
    fir = inf.ctx.function_ir(fn)
    n = len(fir.params)
    if fir.vararg is not None:  # def impl(func, *args): the extra arguments as one tuple
        args, consts, arg_nodes = pack_varargs(inf, node, fir, args, consts, {}, list(arg_nodes))
    elif len(args) < n:  # the implementation's defaults fill the rest, as in a call of it
        missing = [p for p in fir.params[len(args):] if p not in fir.defaults]
        if missing:
            raise TypingError(f"{impl.name or fir.qualname}(): the implementation {fir.qualname} needs argument "
                              f"{missing[0]!r}, which the call does not give", loc)
        nodes = list(arg_nodes)
        for p in fir.params[len(args):]:
            d = ir.Const(loc, fir.defaults[p], f"default of {p}")
            args, consts = [*args, inf.expr(d)], [*consts, fir.defaults[p]]
            nodes.append(d)
        arg_nodes = tuple(nodes)
    elif len(args) > n:
        raise TypingError(f"{impl.name or fir.qualname}(): the implementation {fir.qualname} takes {n} "
                          f"argument(s) but the call gives {len(args)}", loc)
    callee = type_call(inf.ctx, fn, args, consts, loc=loc)
    sig = Signature(callee.return_type, tuple(args))
    inf.record_call(node, CallInfo(CallKind.FUNCTION, sig, fn, impl.name or fir.qualname, callee=callee,
                                    arg_nodes=tuple(arg_nodes), inline=impl.inline))
    return callee.return_type


def method_implementation_call(inf, node, impl, recv, name, args, consts, nodes, op, loc):
    """``value.name(...)`` answered by ``impl`` (``overload_method``): a call of it with
    the receiver first; its :class:`CallInfo`."""
    if op is not None or not isinstance(node, ir.Call) or not isinstance(node.func, ir.Attr):
        raise TypingError(f"{recv}: the overload_method implementation of {name!r} can only be called as a "
                          f"method, value.{name}(...)", loc)
    implementation_call(inf, node, impl, [recv, *args], [ir.NOTCONST, *consts],
                        (node.func.value, *(nodes or node.args)), loc)
    return inf.tf.calls[node]


#: an operator's symbol -> the ``operator`` function an extension overloads for it
BINARY_OPERATORS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "<<": operator.lshift, ">>": operator.rshift, "&": operator.and_,
    "|": operator.or_, "^": operator.xor, "@": operator.matmul,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
UNARY_OPERATORS = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "not": operator.not_}


def operator_overload(inf, node, op, types, arg_nodes):
    """``a op b`` (or ``op a``) where cudalite's own rules have none: an extension's
    ``overload(operator.add)`` (etc.) answering with an implementation; the result type,
    or None when no extension does."""
    from ..registry import CallSite
    from ._records import Implementation

    fn = (BINARY_OPERATORS if len(types) == 2 else UNARY_OPERATORS).get(op)
    entry = inf.reg.lookup_call(fn) if fn is not None else None
    ext = getattr(entry.typer, "extension_typer", None) if entry is not None else None  # an overload set
    if ext is None:
        return None  # no extension overloads it (cudalite's own operator typers keep their errors)
    consts = [inf.const_of(n) for n in arg_nodes]
    answer = ext(CallSite(entry.name, tuple(types), tuple(consts), node.loc, inf.ctx, callee=fn))
    if not isinstance(answer, Implementation):
        return None
    return implementation_call(inf, node, answer, list(types), consts, tuple(arg_nodes), node.loc)
