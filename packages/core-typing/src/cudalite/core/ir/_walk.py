"""Walking the IR: every statement of a body, every expression under a node.

``walk_stmts(fir.body)`` yields each statement in source order, nested
statements (``if``/``else``, loop bodies) right after the statement holding
them; ``walk_exprs(node)`` yields each expression under a statement, target or
expression (the node itself first when it is one), without entering nested
statement bodies or the Python value of a ``Const``.  Analyses that depend on
control flow (can the end of a body be reached? does a loop ``break``?) are not
plain walks and stay hand-written.
"""

from __future__ import annotations

from dataclasses import fields

from ._nodes import Const, Expr, Node, Stmt

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
    """Every expression in ``node`` (pre-order), not entering nested statements.

    Iterative (an explicit stack), so expressions nested thousands deep walk
    without recursion."""
    stack = [node]
    while stack:
        value = stack.pop()
        if isinstance(value, Node):
            if isinstance(value, Stmt) and value is not node:
                continue
            if isinstance(value, Expr):
                yield value
            if isinstance(value, Const):  # its value is the user's object (a frozen global may
                continue  # be huge or contain itself): never walked
            stack.extend(reversed([getattr(value, f.name) for f in fields(value)]))
        elif isinstance(value, (list, tuple)):
            stack.extend(reversed(value))
        elif isinstance(value, dict):
            stack.extend(reversed(list(value.values())))
