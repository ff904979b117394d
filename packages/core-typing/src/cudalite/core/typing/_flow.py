"""Control-flow facts of the structured IR that typing needs: whether a statement
list can fall off its end (a function with a return value must not), and whether a
loop body holds a ``break`` of its own loop."""

from __future__ import annotations

from .. import ir

__all__ = ["falls_through"]


def falls_through(stmts) -> bool:
    """Whether control can reach the end of ``stmts`` (conservatively: every
    ``if`` branch is assumed reachable; ``while True`` without ``break`` never ends)."""
    for s in stmts:
        if isinstance(s, (ir.Return, ir.Raise)):
            return False
        if isinstance(s, ir.If) and not falls_through(s.body) and not falls_through(s.orelse):
            return False
        if (isinstance(s, ir.While) and isinstance(s.test, ir.Const) and s.test.value is not None
                and _truthy_const(s.test.value) and not _breaks(s.body)):
            return False
    return True


def _truthy_const(v) -> bool:
    try:
        return bool(v)
    except Exception:  # an object without a truth value
        return False


def _breaks(stmts) -> bool:
    """Whether ``stmts`` hold a ``break`` of the enclosing loop (not of a nested one)."""
    for s in stmts:
        if isinstance(s, ir.Break):
            return True
        if isinstance(s, ir.If) and (_breaks(s.body) or _breaks(s.orelse)):
            return True
    return False
