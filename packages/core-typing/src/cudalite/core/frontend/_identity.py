"""Prove that an AST node is the source of a live code object.

The frontend compiles a function from its source text while Python runs its code
object; they are the same function only if that text still holds the code's
source.  It may not: the file was edited after import (linecache then holds the
new text, or an old text after a reload), the code was made by ``exec`` with a
real file's name, a decorator replaced the function.  So the node is never
guessed: it is *proved*.

1. Candidates: the ``def``/``lambda`` nodes of the parsed text with the code's
   name, first line (a decorated def starts at its first decorator) and parameter
   names.
2. Proof: the candidate's top-level statement (with the file's ``__future__``
   imports, so the scopes, closures and name mangling are exactly those of the
   real module) is compiled by this interpreter; the code object built for the
   candidate must equal the live one: bytecode, names, constants (nested code
   objects recursively), flags, line table and, where Python has them (3.11+),
   every instruction's ``co_positions``.  Compiled code is cached per parsed text
   and statement, so a module's functions share one compile.
3. Two lambdas on one line with the same parameters: ``co_positions`` tells
   which one the code is (3.11+); without positions each candidate is compiled
   alone and the one that gives the live code is it.  Candidates that compile to
   equal code from equal ASTs are the same function (either is right); anything
   else that cannot be told apart is :class:`Ambiguous`.

Modules whose asserts pytest rewrote at import (loaded by its
``AssertionRewritingHook``): the caller passes pytest's own ``rewrite_asserts``
and the hook's config; the text is rewritten exactly as pytest did it, the proof
above runs against the rewritten module (so the rewritten asserts must match
too), and the node returned is the one at the same place in the text as
written: the user's ``assert`` is what cudalite compiles.

This module is pure: it reads no files (the caller passes the text) and raises
:class:`NotFound`, :class:`Mismatch` or :class:`Ambiguous` for the caller to
turn into a located error.  The caches are bounded ``lru_cache``\\ s.
"""

from __future__ import annotations

import __future__
import ast
import copy
import functools
import types

__all__ = ["HAS_POSITIONS", "Parsed", "parse_lines", "parse_source", "prove", "prove_rewritten", "NotFound",
           "Mismatch", "Ambiguous"]

HAS_POSITIONS = hasattr(types.CodeType, "co_positions")  # Python 3.11+: columns of every instruction
_FUTURE_FLAGS = functools.reduce(
    lambda acc, name: acc | getattr(__future__, name).compiler_flag, __future__.all_feature_names, 0)
_CODE_ATTRS = ("co_name", "co_qualname", "co_argcount", "co_posonlyargcount", "co_kwonlyargcount",
               "co_firstlineno", "co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars",
               "co_exceptiontable")
_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)  # what holds module-scope statements
_OPTIMIZE = (-1, 0, 1, 2)  # this interpreter's level first; then code compiled with another one


class NotFound(Exception):
    """No node of the text has the code's name, first line and parameters."""


class Mismatch(Exception):
    """Nodes are where the code says, but none of them compiles to the code."""


class Ambiguous(Exception):
    """Several nodes could be the code and nothing tells which one it is."""


class Parsed:
    """A parsed source text and its function nodes indexed by (name, first line).
    Hashed by identity: the caches below key on the object :func:`parse_source`
    returns for one text."""

    __slots__ = ("filename", "tree", "futures", "imports", "index", "__weakref__")

    def __init__(self, text: str, filename: str, tree=None):
        self.filename = filename
        self.tree = ast.parse(text, filename) if tree is None else tree
        body = self.tree.body
        self.futures = tuple(s for s in body if isinstance(s, ast.ImportFrom) and s.module == "__future__")
        self.imports = tuple(_module_imports(body))
        index: dict = {}
        for top, stmt in enumerate(body):
            for node in ast.walk(stmt):
                if isinstance(node, ast.Lambda):
                    key = ("<lambda>", node.lineno)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    key = (node.name, min([node.lineno] + [d.lineno for d in node.decorator_list]))
                else:
                    continue
                index.setdefault(key, []).append((node, top))
        self.index = index


def parse_lines(lines: list, filename: str) -> Parsed:
    """:func:`parse_source` of ``"".join(lines)``, looked up by the list's identity
    first (``linecache`` hands out the same list until the file is read again), so
    a warm lookup neither joins nor hashes the text."""
    return _parse_lines(_Same(lines), filename)


class _Same:
    """A cache key equal only to a key for the same object (held, so its id stays unique)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __hash__(self):
        return id(self.obj)

    def __eq__(self, other):
        return isinstance(other, _Same) and other.obj is self.obj


@functools.lru_cache(maxsize=16)
def _parse_lines(key, filename):
    return parse_source("".join(key.obj), filename)


@functools.lru_cache(maxsize=16)
def parse_source(text: str, filename: str) -> Parsed:
    """Parse a whole source text once per content (a module with many kernels is
    parsed once).  Raises ``SyntaxError`` for text that is not Python.  The trees
    are never mutated."""
    return Parsed(text, filename)


def prove_rewritten(code: types.CodeType, lines: list, parsed: Parsed, rewrite, config,
                    positions: bool | None = None) -> ast.AST:
    """:func:`prove` for a module whose asserts pytest rewrote: ``rewrite`` is
    pytest's ``rewrite_asserts(tree, source_bytes, filename, config)``.  The
    proof runs on the rewritten text; the node returned is ``parsed``'s (the
    text as written) at the same place."""
    rewritten = _parse_rewritten(_Same(lines), parsed.filename, rewrite, config)
    if rewritten is None:
        raise Mismatch
    node = prove(code, rewritten, positions)
    key = ("<lambda>", node.lineno) if isinstance(node, ast.Lambda) else (
        node.name, min([node.lineno] + [d.lineno for d in node.decorator_list]))
    for cand, _ in parsed.index.get(key, ()):
        if (cand.lineno, cand.col_offset, type(cand)) == (node.lineno, node.col_offset, type(node)) \
                and _node_params(cand) == _node_params(node):
            return cand
    raise Mismatch


@functools.lru_cache(maxsize=16)
def _parse_rewritten(key, filename, rewrite, config):
    text = "".join(key.obj)
    try:
        tree = ast.parse(text, filename)
        rewrite(tree, text.encode("utf-8"), filename, config)
    except Exception:  # pytest's rewriter refused the text: nothing to prove against
        return None
    return Parsed(text, filename, tree)


def prove(code: types.CodeType, parsed: Parsed, positions: bool | None = None) -> ast.AST:
    """The ``FunctionDef``/``Lambda`` node of ``parsed`` whose compiled code is
    ``code``.  ``positions``: use ``co_positions`` (default: where Python has
    them, :data:`HAS_POSITIONS`; ``False`` proves as on Python 3.10)."""
    return _prove(code, parsed, HAS_POSITIONS if positions is None else positions and HAS_POSITIONS)


@functools.lru_cache(maxsize=256)
def _prove(code, parsed, positions):
    key = (code.co_name, code.co_firstlineno)
    params = _code_params(code)
    found = [(n, top) for n, top in parsed.index.get(key, ()) if _node_params(n) == params]
    if not found:
        raise NotFound
    if len(found) == 1 or positions:
        node, top = found[0] if len(found) == 1 else _by_positions(found, code)
        if node is not None and any(_same(code, c, positions) for c in _built(parsed, top, key)):
            return node
        raise Mismatch
    return _by_compiling_each(code, parsed, found, key)


def _code_params(code):
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # CO_VARARGS, CO_VARKEYWORDS
    return tuple(code.co_varnames[:n])


def _node_params(node):
    a = node.args
    names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return tuple(names)


def _by_positions(found, code):
    """The innermost candidate whose span holds every instruction's span."""
    spans = [((ln, col), (eln, ecol)) for ln, eln, col, ecol in code.co_positions()
             if None not in (ln, eln, col, ecol) and (eln, ecol) > (ln, col)]
    inside = [(n, top) for n, top in found
              if spans and all((n.lineno, n.col_offset) <= s and e <= (n.end_lineno, n.end_col_offset)
                               for s, e in spans)]
    if not inside:
        return None, None
    return min(inside, key=lambda f: (f[0].end_lineno - f[0].lineno, f[0].end_col_offset - f[0].col_offset))


def _by_compiling_each(code, parsed, found, key):
    """No positions: compile each candidate with the others replaced by ``None``
    and keep those that give the live code."""
    nodes = [n for n, _ in found]
    if any(a is not b and any(x is b for x in ast.walk(a)) for a in nodes for b in nodes):
        raise Ambiguous  # same-parameter lambdas nested in one another
    matches = []
    for node, top in found:
        others = [n for n in nodes if n is not node]
        if any(_same(code, c, False) for c in _built(parsed, top, key, others)):
            matches.append(node)
    if not matches:
        raise Mismatch
    first = ast.dump(matches[0])
    if any(ast.dump(m) != first for m in matches[1:]):
        raise Ambiguous  # different ASTs, equal code: cannot tell which one Python runs
    return matches[0]  # equal code from equal ASTs: the same function


def _built(parsed, top, key, stubbed=()):
    """Every code object named ``key`` that compiling statement ``top`` gives, in
    each way Python compiles a module's statement (lazily: the first is the usual
    one): with the module's imports (``import``, ``exec`` of a file), alone (IPython
    compiles each statement of a cell on its own), at each optimization level."""
    for imports in (True, False):
        for opt in _OPTIMIZE:
            if stubbed:
                codes = _collect(_compile_top(parsed, top, opt, imports, tuple(stubbed)))
            else:
                codes = _compiled(parsed, top, opt, imports)
            yield from codes.get(key, ())


@functools.lru_cache(maxsize=64)
def _compiled(parsed, top, optimize, imports):
    return _collect(_compile_top(parsed, top, optimize, imports))


def _compile_top(parsed, top, optimize, imports, stubbed=()):
    stmt = parsed.tree.body[top]
    if stubbed:  # a copy with the stubbed nodes replaced by ``None``
        memo = {id(n): ast.copy_location(ast.Constant(None), n) for n in stubbed}
        stmt = copy.deepcopy(stmt, memo)
    # The module's imports matter: CPython compiles ``mod.f()`` differently when
    # ``mod`` is a name the module imports (3.11+: LOAD_ATTR, not LOAD_METHOD).
    body = [*parsed.futures, *(parsed.imports if imports else ()), stmt]
    try:
        return compile(ast.Module(body=body, type_ignores=[]), parsed.filename, "exec",
                       dont_inherit=True, optimize=optimize)
    except (SyntaxError, ValueError, TypeError):
        return None


def _module_imports(body):
    """The import statements that bind names in module scope (in ``if``/``try``
    blocks too; not in function or class bodies), ``__future__`` aside."""
    stack = list(reversed(body))
    while stack:
        s = stack.pop()
        if isinstance(s, ast.Import) or (isinstance(s, ast.ImportFrom) and s.module != "__future__"):
            yield s
        elif not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack.extend(reversed([c for c in ast.iter_child_nodes(s) if isinstance(c, _BLOCKS)]))


def _collect(code):
    out: dict = {}
    stack = [code] if code is not None else []
    while stack:
        c = stack.pop()
        out.setdefault((c.co_name, c.co_firstlineno), []).append(c)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return out


def _same(a, b, positions):
    """Whether code objects ``a`` (live) and ``b`` (built) are the same code."""
    if a is b:
        return True
    for attr in _CODE_ATTRS:
        if getattr(a, attr, None) != getattr(b, attr, None):
            return False
    if (a.co_flags ^ b.co_flags) & ~_FUTURE_FLAGS:
        return False
    if list(a.co_lines()) != list(b.co_lines()):
        return False
    if positions and list(a.co_positions()) != list(b.co_positions()):
        return False
    return len(a.co_consts) == len(b.co_consts) and all(
        _same_const(x, y, positions) for x, y in zip(a.co_consts, b.co_consts))


def _same_const(x, y, positions):
    if type(x) is not type(y):
        return False
    if isinstance(x, types.CodeType):
        return _same(x, y, positions)
    if isinstance(x, tuple):
        return len(x) == len(y) and all(_same_const(p, q, positions) for p, q in zip(x, y))
    if isinstance(x, (float, complex)):
        return repr(x) == repr(y)  # -0.0 and nan
    return x == y
