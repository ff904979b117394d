"""Source capture: find the exact AST of a function or lambda, and its free names.

Source is read with ``linecache`` (files, IPython cells) and located by the code
object's first line (functions) or ``co_positions()`` (lambdas), so columns in
error messages are those of the user's file.  Globals and closure cells are
read here once: they become compile-time constants.
"""

from __future__ import annotations

import ast
import functools
import builtins
import inspect
import linecache
import textwrap

from ..errors import Loc, UnsupportedError

__all__ = ["SourceInfo", "capture"]


class SourceInfo:
    """Where a function's AST came from, and how to map its positions."""

    def __init__(self, node, filename, lines, line_offset=0, col_offset=0):
        self.node = node
        self.filename = filename
        self.lines = lines
        self.line_offset = line_offset
        self.col_offset = col_offset

    def loc(self, node) -> Loc:
        line = getattr(node, "lineno", None) or self.node.lineno
        col = getattr(node, "col_offset", 0)
        end_line = getattr(node, "end_lineno", None)
        end_col = getattr(node, "end_col_offset", None)
        shift = self.col_offset if self.col_offset else 0
        src = self.lines[line - 1].rstrip("\n") if 0 < line <= len(self.lines) else None
        if src is not None and shift:
            src = " " * shift + src
        return Loc(
            self.filename,
            line + self.line_offset,
            col + shift,
            None if end_line is None else end_line + self.line_offset,
            None if end_col is None else end_col + shift,
            src,
        )


@functools.lru_cache(maxsize=16)
def _parse_file(text: str, filename: str):
    """Parse a whole source file once per content (a module with many kernels is
    parsed once, not once per kernel).  The trees are never mutated."""
    return ast.parse(text, filename)


def capture(func) -> SourceInfo:
    """Locate the ``ast.FunctionDef``/``ast.Lambda`` of ``func`` in its source."""
    code = func.__code__
    filename = code.co_filename
    lines = linecache.getlines(filename, func.__globals__)
    if lines:
        try:
            tree = _parse_file("".join(lines), filename)
        except SyntaxError:
            tree = None
        if tree is not None:
            node = _find(tree, func)
            if node is not None:
                return SourceInfo(node, filename, lines)
    try:
        src = inspect.getsource(func)
    except (OSError, TypeError) as e:
        raise UnsupportedError(
            f"cannot compile {func.__qualname__}: its source code is not available ({e})",
            Loc(filename, code.co_firstlineno),
        ) from None
    dedented = textwrap.dedent(src)
    shift = _indent(src) - _indent(dedented)
    tree = ast.parse(dedented, filename)
    node = _find(tree, func, first_line=1, col_shift=shift) or next(
        (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))), None
    )
    return SourceInfo(node, filename, dedented.splitlines(True), code.co_firstlineno - 1, shift)


def _indent(text):
    first = text.splitlines()[0] if text else ""
    return len(first) - len(first.lstrip())


def _find(tree, func, first_line=None, col_shift=0):
    code = func.__code__
    first = code.co_firstlineno if first_line is None else first_line
    if func.__name__ == "<lambda>":
        return _find_lambda(tree, code, first, code.co_firstlineno - first, col_shift)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == func.__name__:
            starts = [node.lineno] + [d.lineno for d in node.decorator_list]
            if first in starts:
                return node
    return None


def _find_lambda(tree, code, first, line_offset=0, col_shift=0):
    """The Lambda node of ``code``: the smallest lambda whose span holds every
    instruction's source span (``co_positions``, Python 3.11+), so two lambdas on
    one line are told apart.  ``line_offset``/``col_shift`` map file positions to
    those of ``tree`` (parsed from a dedented snippet)."""
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
    positions = []
    if hasattr(code, "co_positions"):
        for ln, eln, col, ecol in code.co_positions():
            if None in (ln, eln, col, ecol) or (eln, ecol) <= (ln, col):
                continue  # no position, or an empty span (RESUME and implicit returns: col 0..0)
            positions.append(((ln - line_offset, col - col_shift), (eln - line_offset, ecol - col_shift)))
    if positions:
        inside = [
            n for n in lambdas
            if all((n.lineno, n.col_offset) <= start and end <= (n.end_lineno, n.end_col_offset)
                   for start, end in positions)
        ]
        if inside:
            return min(inside, key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset - n.col_offset))
    argnames = list(code.co_varnames[: code.co_argcount])
    for n in lambdas:
        if n.lineno == first and [a.arg for a in n.args.args] == argnames:
            return n
    return None


def free_values(func) -> tuple[dict, dict]:
    """(closure cell values, globals) as seen now: they are frozen at compile time."""
    cells = {}
    if func.__closure__:
        for name, cell in zip(func.__code__.co_freevars, func.__closure__):
            try:
                cells[name] = cell.cell_contents
            except ValueError:  # empty cell
                pass
    return cells, func.__globals__


def lookup_free(name, cells, globs):
    """Resolve a free name: closure cell, then globals, then builtins."""
    if name in cells:
        return True, cells[name]
    if name in globs:
        return True, globs[name]
    if hasattr(builtins, name):
        return True, getattr(builtins, name)
    return False, None
