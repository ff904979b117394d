"""Room for deeply nested expressions: a stage that overflows Python's stack runs again on a big one.

The compiler's passes (the frontend, inference, lowering, the AST dump, and
Python's own ``ast.parse`` on 3.11) recurse once or a few times per level of
expression nesting, so ``a + a + ... + a`` with a few hundred terms -- generated
code such as SymPy output -- exceeds the default recursion limit (1000 frames).

:func:`call_deep` runs a function as is (ordinary code pays nothing), and only
when it raises ``RecursionError`` runs it once more in a worker thread with a
large C stack (:data:`STACK_BYTES`, reserved virtual memory, touched only as
deep as the recursion goes) while the interpreter's recursion limit is raised to
:data:`FRAME_LIMIT`.  The recursion limit is process-wide, so one
:class:`_Headroom` counts the deep runs in flight: the first raises the limit,
the last puts back the value it found; a concurrent compile in another thread
meanwhile only gets more room, never less.  What does not fit even then raises
``RecursionError`` (or, from CPython's parser, ``MemoryError``) again, which the
pipeline turns into a located :class:`cudalite.core.errors.NestingError`.

:func:`nesting_depth` measures the deepest expression of a statement without
recursing, for that error's message and location.
"""

from __future__ import annotations

import ast
import contextvars
import sys
import threading
from dataclasses import fields

from cudalite.core import ir

__all__ = ["STACK_BYTES", "FRAME_LIMIT", "call_deep", "on_big_stack", "deepest_statement", "ast_depth"]

#: the worker thread's stack: 2.6 KiB per allowed frame (Python 3.10 puts every
#: Python call on the C stack, ~0.5 KiB; 3.11+ only the calls made through C)
STACK_BYTES = 256 * 2**20
#: the recursion limit while a deep run is in flight (~25 frames per level of
#: nesting across the passes: about 4,000 levels of nesting per 100,000 frames)
FRAME_LIMIT = 100_000


class _Headroom:
    """The raised recursion limit, shared by the deep runs in flight."""

    def __init__(self):
        self._lock = threading.Lock()
        self._users = 0
        self._saved = None

    def __enter__(self):
        with self._lock:
            if self._users == 0:
                self._saved = sys.getrecursionlimit()
                if self._saved < FRAME_LIMIT:
                    sys.setrecursionlimit(FRAME_LIMIT)
            self._users += 1
        return self

    def __exit__(self, *exc):
        with self._lock:
            self._users -= 1
            if self._users == 0 and sys.getrecursionlimit() == max(FRAME_LIMIT, self._saved):
                try:
                    sys.setrecursionlimit(self._saved)
                except RecursionError:  # this thread is itself deeper than the old limit
                    pass
        return False


#: the one guard of the process-wide recursion limit (its state mirrors that limit)
_HEADROOM = _Headroom()
#: serializes changing threading.stack_size(), which is process-wide too
_STACK_SIZE_LOCK = threading.Lock()


def _start(work) -> threading.Thread:
    with _STACK_SIZE_LOCK:
        try:
            old = threading.stack_size(STACK_BYTES)
        except (ValueError, RuntimeError):  # a platform that cannot size thread stacks
            old = None
        try:
            t = threading.Thread(target=work, name="cudalite-deep-compile", daemon=True)
            try:
                t.start()
            except RuntimeError:  # no memory for the big stack: the default one, and the raised limit
                if old is None:
                    raise
                threading.stack_size(old)
                old = None
                t = threading.Thread(target=work, name="cudalite-deep-compile", daemon=True)
                t.start()
        finally:
            if old is not None:
                threading.stack_size(old)
    return t


def on_big_stack(fn, *args):
    """``fn(*args)`` in a worker thread with a big stack and the raised recursion
    limit (its context variables copied); its result, or its exception re-raised."""
    box = {}
    ctx = contextvars.copy_context()

    def work():
        try:
            box["value"] = ctx.run(fn, *args)
        except BaseException as e:  # noqa: BLE001 - handed to the calling thread
            box["error"] = e

    with _HEADROOM:
        _start(work).join()
    if "error" in box:
        err = box.pop("error")
        try:
            raise err
        finally:
            del err
    return box["value"]


def call_deep(fn, *args):
    """``fn(*args)``; if it overflows the recursion limit, again on a big stack."""
    try:
        return fn(*args)
    except RecursionError:
        pass  # the frames are gone now; nothing of the first try is kept
    return on_big_stack(fn, *args)


def _children(value, out):
    """The expression nodes directly under ``value`` (not entering statements)."""
    if isinstance(value, ir.Stmt):
        return
    if isinstance(value, ir.Node):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _children(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            _children(item, out)


def _ir_depth(stmt) -> int:
    best, stack = 0, [(stmt, 0)]
    while stack:
        node, depth = stack.pop()
        best = max(best, depth)
        kids = []
        for f in fields(node):
            _children(getattr(node, f.name), kids)
        stack.extend((k, depth + 1) for k in kids)
    return best


def ast_depth(node, *, statements=True) -> int:
    """How deep the Python AST under ``node`` goes (iterative); ``statements=False``
    does not enter nested statements."""
    best, stack = 0, [(node, 0)]
    while stack:
        node, depth = stack.pop()
        best = max(best, depth)
        stack.extend((k, depth + 1) for k in ast.iter_child_nodes(node) if statements or not isinstance(k, ast.stmt))
    return best


def _ast_depth(stmt) -> int:
    """Levels of expressions under ``stmt`` (operators and contexts not counted)."""
    best, stack = 0, [(stmt, 0)]
    while stack:
        node, depth = stack.pop()
        best = max(best, depth)
        for k in ast.iter_child_nodes(node):
            if not isinstance(k, ast.stmt):
                stack.append((k, depth + isinstance(k, ast.expr)))
    return best


def deepest_statement(body):
    """``(statement, depth)``: the statement of ``body`` (IR statements, or the
    ``ast.stmt`` list of a Python function) holding the most deeply nested
    expression, and that depth; ``(None, 0)`` for an empty body.  Iterative."""
    best, best_depth = None, -1
    if body and isinstance(body[0], ast.AST):
        stmts = [s for top in body for s in ast.walk(top) if isinstance(s, ast.stmt)]
        depth_of = _ast_depth
    else:
        stmts, depth_of = list(ir.walk_stmts(body)), _ir_depth
    for s in stmts:
        d = depth_of(s)
        if d > best_depth:
            best, best_depth = s, d
    return best, max(best_depth, 0)
