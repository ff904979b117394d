"""Lowering of the ``operator`` module's number functions (``operator.truediv``...):
the operator each names, as ``_arith`` lowers it (debug-mode ZeroDivisionError and
fastmath division included)."""

from __future__ import annotations

from cudalite.core.typing.rules.operators import BINARY, COMPARE, UNARY

from . import _arith
from ._registry import lowerings

__all__ = []


@lowerings.call(*BINARY)
def _binary(lc, node, args, info):
    return _arith.checked_binop(lc, info.payload, args[0], args[1], info.sig.args[0], node.loc)


@lowerings.call(*COMPARE)
def _compare(lc, node, args, info):
    return _arith.compare(lc, info.payload, args[0], args[1], info.sig.args[0])


@lowerings.call(*UNARY)
def _unary(lc, node, args, info):
    target = info.sig.args[0]
    return lc.cast(_arith.unaryop(lc, info.payload, args[0], target), target, info.sig.return_type)
