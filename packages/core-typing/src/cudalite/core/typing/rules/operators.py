"""Typing of the ``operator`` module's number functions called in device code
(``operator.truediv(x, y)``, ``operator.add``, ``operator.lt``, ``operator.neg``...):
each types exactly as the operator it names (:mod:`.arithmetic`)."""

from __future__ import annotations

import operator

from ...registry import registry
from .._records import Resolved
from .arithmetic import binop_signature, compare_signature, unary_signature
from .intrinsics import check_arity

__all__ = ["BINARY", "COMPARE", "UNARY"]

#: operator function -> the Python operator it performs
BINARY = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
    operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.lshift: "<<",
    operator.rshift: ">>", operator.and_: "&", operator.or_: "|", operator.xor: "^",
}
COMPARE = {
    operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">=", operator.eq: "==",
    operator.ne: "!=",
}
UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}


def _typer(op, rule, arity):
    def typer(site):
        check_arity(site, arity)
        sig = rule(op, *site.args)
        if sig is None:
            raise site.error(f"unsupported operand types for {op}: {', '.join(map(str, site.args))}")
        return Resolved(sig, op)

    return typer


for _table, _rule, _arity in ((BINARY, binop_signature, 2), (COMPARE, compare_signature, 2),
                              (UNARY, unary_signature, 1)):
    for _fn, _op in _table.items():
        registry.call(_fn, params=("a", "b")[:_arity], name=f"operator.{_fn.__name__}")(_typer(_op, _rule, _arity))
