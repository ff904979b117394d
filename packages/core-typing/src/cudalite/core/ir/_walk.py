"""Walking the IR: every statement of a body, every expression under a node.

``walk_stmts(fir.body)`` yields each statement in source order, nested
statements (``if``/``else``, loop bodies) right after the statement holding
them; ``walk_exprs(node)`` yields each expression under a statement, target or
expression (the node itself first when it is one), without entering nested
statement bodies.  Analyses that depend on control flow (can the end of a body
be reached? does a loop ``break``?) are not plain walks and stay hand-written.
"""

from __future__ import annotations

from dataclasses import fields

from ._nodes import Expr, Node, Stmt

__all__ = ["walk_stmts", "walk_exprs", "STMT_BODIES"]

STMT_BODIES = ("body", "orelse")  # the statement-list fields of If / While / ForRange / ForIter


def walk_stmts(stmts):
    """Every statement of ``stmts`` and of the bodies nested in them (pre-order)."""
    for s in stmts:
        yield s
        for attr in STMT_BODIES:
            inner = getattr(s, attr, None)
            if isinstance(inner, list):
                yield from walk_stmts(inner)


def walk_exprs(node):
    """Every expression in ``node`` (pre-order), not entering nested statements."""
    if isinstance(node, Expr):
        yield node
    for f in fields(node):
        yield from _exprs_in(getattr(node, f.name))


def _exprs_in(value):
    if isinstance(value, Stmt):
        return
    if isinstance(value, Node):
        yield from walk_exprs(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _exprs_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _exprs_in(item)
