"""Source capture: find the exact AST of a function or lambda, and its free names.

Source is read with ``linecache`` (files, IPython cells, ``exec``'d text
registered there), or for text given to ``exec`` after cudalite was imported,
from :mod:`cudalite.core.exec_sources`; and the node is *proved* to be the code object's source
(``_identity``): the frontend compiles the function Python runs, or raises a
located :class:`~cudalite.core.errors.SourceError` -- never a guess.  Columns in
error messages are those of the user's file.  A wrapper whose own source cannot
be read (a C wrapper, code made from a string) is compiled as the function it
wraps (``__wrapped__``), with a :class:`~cudalite.core.errors.SourceWarning`; a
wrapper with Python source is compiled as itself.  Globals and closure cells are
read here once: they become compile-time constants.
"""

from __future__ import annotations

import builtins
import importlib.machinery as m
import linecache
import sys
import types
import warnings

from ..errors import Loc, SourceError, SourceWarning
from ..exec_sources import candidates
from ..types import BrokenDeviceArray, device_array_ref
from . import _identity

__all__ = ["python_function", "SourceInfo", "capture", "free_values", "lookup_free"]


class SourceInfo:
    """Where a function's AST came from, and how to map its positions.
    ``func`` is the function whose source it is (the wrapped function when a
    wrapper without source was given)."""

    def __init__(self, node, filename, lines, line_offset=0, col_offset=0, func=None):
        self.node = node
        self.filename = filename
        self.lines = lines
        self.line_offset = line_offset
        self.col_offset = col_offset
        self.func = func

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


class _NoSource(Exception):
    """The function's own source cannot be read (a wrapper may still be unwrapped)."""


def python_function(obj, what="compile", stacklevel=2):
    """``obj`` if it is a Python function; else the first Python function down its
    ``__wrapped__`` chain (a C-level wrapper such as ``functools.lru_cache(f)``),
    with a :class:`SourceWarning` naming both (``stacklevel``: the caller's frame to
    blame, as for ``warnings.warn``); else ``TypeError``."""
    target, seen = obj, set()
    while not isinstance(getattr(target, "__code__", None), types.CodeType):
        wrapped = getattr(target, "__wrapped__", None)
        if wrapped is None or id(target) in seen:
            raise TypeError(f"cannot {what} {obj!r}: expected a Python function")
        seen.add(id(target))
        target = wrapped
    if target is not obj:
        warnings.warn(f"cudalite compiles {getattr(target, '__qualname__', repr(target))} (its __wrapped__) in "
                      f"place of the wrapper {obj!r}, which is not a Python function", SourceWarning,
                      stacklevel=stacklevel + 1)
    return target


def capture(func) -> SourceInfo:
    """The proved ``ast.FunctionDef``/``ast.Lambda`` of ``func`` in its source.

    Raises :class:`SourceError` at the function's ``file:line`` when the source is
    not available, is not Python, changed after import, or cannot tell two
    lambdas apart."""
    target, seen = func, set()
    while True:
        code = getattr(target, "__code__", None)
        if isinstance(code, types.CodeType):
            try:
                return _capture(target, code)
            except _NoSource as e:
                reason, err = e.args
            name = f"{getattr(code, 'co_qualname', code.co_name)} ({code.co_filename}:{code.co_firstlineno})"
        else:
            reason, err, name = "it is not a Python function", None, repr(target)
        wrapped = getattr(target, "__wrapped__", None)
        if wrapped is None or id(wrapped) in seen:
            if err is not None:
                raise err
            raise SourceError(f"cannot compile {target!r}: it is not a Python function and wraps none")
        seen.add(id(target))
        warnings.warn(f"cudalite compiles {getattr(wrapped, '__qualname__', repr(wrapped))} (its __wrapped__) "
                      f"in place of the wrapper {name}, which cannot be compiled: {reason}",
                      SourceWarning, stacklevel=2)
        target = wrapped


def _capture(func, code) -> SourceInfo:
    filename = code.co_filename
    globs = getattr(func, "__globals__", None)
    lines = linecache.getlines(filename, globs)
    if not lines and _is_pseudo(filename):
        return _prove_remembered(func, code)
    try:
        return _prove(func, code, lines)
    except (SourceError, _NoSource) as e:
        # linecache may hold an old text (the module was edited and reloaded
        # since it was read): read the file again and prove against that.
        if _is_pseudo(filename):  # or another text under a reused name such as <string>
            try:
                return _prove_remembered(func, code)
            except (SourceError, _NoSource):
                raise e from None
        linecache.checkcache(filename)
        fresh = linecache.getlines(filename, globs)
        if fresh == lines:
            raise
    return _prove(func, code, fresh)


def _prove_remembered(func, code) -> SourceInfo:
    """Texts exec'd under the code's pseudo-file name since cudalite was imported
    (:mod:`cudalite.core.exec_sources`), newest first: the first one proved to be
    the code's source; else the newest one's error (or the no-source error)."""
    first_error = None
    for text in candidates(code):
        try:
            return _prove(func, code, text.splitlines(True))
        except (SourceError, _NoSource) as e:
            first_error = first_error or e
    if first_error is not None:
        raise first_error
    return _prove(func, code, [])


def _prove(func, code, lines) -> SourceInfo:
    filename, first = code.co_filename, code.co_firstlineno
    if not lines:
        raise _NoSource(f"no source text for {filename}", _error(
            func, code, "cannot compile {}: its source code is not available " + _no_source_hint(filename)))
    try:
        parsed = _identity.parse_lines(lines, filename)
    except SyntaxError as e:
        raise _NoSource(f"{filename} is not Python source", _error(
            func, code, "cannot compile {}: " f"{filename} is not Python source ({e.msg}, line {e.lineno})")) from None
    rewriter = _assert_rewriter(func)
    try:
        if rewriter is None:
            node = _identity.prove(code, parsed)
        else:
            node = _identity.prove_rewritten(code, lines, parsed, *rewriter)
    except _identity.NotFound:
        kind = "lambda" if code.co_name == "<lambda>" else f"def {code.co_name}"
        if _is_pseudo(filename):
            raise _error(func, code, "cannot find the source of {}: " f"line {first} of the text known as {filename} "
                         f"(registered in linecache, or remembered from exec) has no '{kind}' with its parameters; "
                         + _REGISTER_EXACT.format(name=filename)) from None
        raise _error(func, code, "cannot find the source of {}: " f"line {first} of {filename} has no '{kind}' "
                     "with its parameters (the file changed after import, or the function was made by "
                     "exec/compile with this file's name); reload the module") from None
    except _identity.Mismatch:
        if _is_pseudo(filename):
            raise _error(func, code, "the text known as " f"{filename} (registered in linecache, or remembered from "
                         "exec: several texts compiled under one name) is not the source of "
                         "{}" f": line {first} does not compile to the code Python runs; "
                         + _REGISTER_EXACT.format(name=filename)) from None
        hook = _import_hook(func, code)
        if hook is not None:
            raise _error(func, code, "the source of {} " f"does not compile to the code Python runs: its module was "
                         f"loaded by {hook}, an import hook that rewrites code, which cudalite cannot prove "
                         "equal to the source (only pytest's assertion rewriting is understood); import the "
                         "module without that hook to compile its functions") from None
        raise _error(func, code, "the source of {} changed after import: " f"{filename}:{first} no longer compiles "
                     "to the code Python runs (or the function was made by exec/compile with this file's "
                     "name); reload the module") from None
    except _identity.Ambiguous:
        raise _error(func, code, "cannot tell which lambda is {}: " f"several lambdas on line {first} could be it "
                     "and this Python has no co_positions to tell which; put them on separate lines") from None
    return SourceInfo(node, filename, lines, func=func)


_REGISTER = ("register the text in linecache before compiling, under the exact name given to compile(): "
             "linecache.cache[{name!r}] = (len(src), None, src.splitlines(True), {name!r})")
_REGISTER_EXACT = ("register exactly the text compiled under that name (one unique '<...>' name per text): "
                   "linecache.cache[{name!r}] = (len(src), None, src.splitlines(True), {name!r})")


def _is_pseudo(filename) -> bool:
    return filename.startswith("<") and filename.endswith(">")


def _no_source_hint(filename) -> str:
    """What to do when linecache has no text for ``filename`` (the message's tail)."""
    if filename == "<stdin>":
        return ("(it was typed at the interactive prompt or read from standard input, and Python keeps no copy "
                "of that text): define it in a file, or in IPython/Jupyter, or on Python 3.13+'s prompt")
    if filename == "<string>":
        return ("(it was made by exec() or compile() of a string, or given with python -c, and Python keeps "
                "no copy of the text): compile the text under a unique name and register it: "
                "code = compile(src, '<mykernels-1>', 'exec'); "
                + _REGISTER.format(name="<mykernels-1>") + "; exec(code, namespace)")
    if _is_pseudo(filename):
        return ("(it was made by exec() or compile() of a string named " f"{filename}, and Python keeps no copy of "
                "the text): " + _REGISTER.format(name=filename))
    return f"(no file or linecache entry for {filename}: a .pyc without its .py, or a file removed since)"


_PYTEST_HOOK = ("_pytest.assertion.rewrite", "AssertionRewritingHook")


def _module_loader(func):
    globs = getattr(func, "__globals__", None)
    if not isinstance(globs, dict):
        return None
    loader = globs.get("__loader__")
    if loader is None:
        loader = getattr(globs.get("__spec__"), "loader", None)
    return loader


def _assert_rewriter(func):
    """``(rewrite_asserts, config)`` of pytest when ``func``'s module was loaded by
    pytest's AssertionRewritingHook (pytest is then imported: nothing is imported
    here), else None."""
    loader = _module_loader(func)
    cls = type(loader)
    if (cls.__module__, cls.__qualname__) != _PYTEST_HOOK:
        return None
    rewrite = getattr(sys.modules.get(_PYTEST_HOOK[0]), "rewrite_asserts", None)
    if not callable(rewrite):
        return None
    return rewrite, getattr(loader, "config", None)


def _import_hook(func, code):
    """The loader class (``module.Class``) of the function's module when it is an
    import hook other than Python's own file loaders, else None."""
    loader = _module_loader(func)
    if loader is None or type(loader) in (m.SourceFileLoader, m.SourcelessFileLoader, m.ExtensionFileLoader):
        return None
    if isinstance(loader, type):  # BuiltinImporter / FrozenImporter are classes used as loaders
        return None
    cls = type(loader)
    if (cls.__module__, cls.__qualname__) == _PYTEST_HOOK:
        return None  # understood: its rewriting is part of the proof
    return f"{cls.__module__}.{cls.__qualname__}"


def _error(func, code, template) -> SourceError:
    """A :class:`SourceError` located at the function's first line; ``{}`` in
    ``template`` is the function's qualified name (the code's own: a wrapper's
    ``__qualname__`` is that of the function it wraps)."""
    what = getattr(code, "co_qualname", None)
    if what is None:  # Python 3.10
        qual = getattr(func, "__qualname__", "")
        what = qual if qual.rpartition(".")[2] == code.co_name else code.co_name
    return SourceError(template.replace("{}", what, 1), Loc(code.co_filename, code.co_firstlineno))


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


def _freeze(value):
    try:
        ref = device_array_ref(value)
    except ValueError as exc:  # an unreadable __cuda_array_interface__: typing reports it where it is used
        return BrokenDeviceArray(value, str(exc))
    return value if ref is None else ref


def lookup_free(name, cells, globs):
    """Resolve a free name: closure cell, then globals, then builtins.  A device array
    (an object with ``__cuda_array_interface__``, on its class or itself) is frozen by reference,
    as numba-cuda does: its :class:`~cudalite.core.types.DeviceArrayRef` (pointer,
    shape, strides; the array kept alive), not a copy of its data."""
    if name in cells:
        return True, _freeze(cells[name])
    if name in globs:
        return True, _freeze(globs[name])
    if hasattr(builtins, name):
        return True, getattr(builtins, name)
    return False, None
