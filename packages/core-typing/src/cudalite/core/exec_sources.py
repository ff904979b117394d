"""The text of functions made by ``exec()``/``compile()`` of a string.

The frontend compiles a function from its source, proved equal to the code
Python runs (``frontend._identity``).  For a function defined in a string given
to ``exec`` (how code-generating libraries and numba-cuda's own tests build
kernels) Python keeps no copy of the text, so :func:`install` adds an audit hook
(PEP 578; once per process, when ``cudalite.core`` is imported) that keeps the
most recent texts compiled under pseudo-file names such as ``<string>``: every
``compile`` event (``exec``/``eval``/``compile`` of a ``str`` or ``bytes``) whose
name starts with ``<`` appends ``(name, text)`` to a bounded window; the hook does
nothing else, so creating dataclasses and namedtuples (which exec strings: a
pytest run with cudalite makes hundreds) stays cheap.  Two windows: texts that
mention ``cuda`` (kernels and most device code) keep the last 2,048 (16 MiB at
most), other texts the last 1,024 (8 MiB), so library-generated texts do not push
kernels out; the methods ``dataclasses`` generates (``def __create_fn__``: the first
compile imports hundreds) are not kept.

:func:`candidates` returns the remembered texts compiled under a code object's
file name, newest first.  They are candidates only: the frontend proves one of
them compiles to that code object, so a wrong text is never compiled.  A text
that left the window, or was exec'd before cudalite was imported, must be
registered in ``linecache`` (docs/language.md; the error says how) -- except the
program of ``python -c TEXT``, read from ``sys.orig_argv`` when the hook is installed.
"""

from __future__ import annotations

import collections
import sys
import threading
from typing import Any

__all__ = ["install", "candidates", "command_text"]

_MAX_TEXT = 1 << 20


class _Window:
    """The last texts compiled under pseudo-file names, oldest first."""

    def __init__(self, max_texts: int, max_chars: int) -> None:
        self.lock = threading.Lock()
        self.texts: collections.deque = collections.deque()   # (name, text)
        self.chars = 0
        self.max_texts, self.max_chars = max_texts, max_chars

    def add(self, source, filename) -> None:
        if isinstance(source, (bytes, bytearray)):
            if len(source) > _MAX_TEXT:
                return
            try:
                source = bytes(source).decode("utf-8")
            except UnicodeDecodeError:
                return
        if not isinstance(source, str) or len(source) > _MAX_TEXT:
            return
        with self.lock:
            self.texts.append((filename, source))
            self.chars += len(source)
            while len(self.texts) > self.max_texts or self.chars > self.max_chars:
                self.chars -= len(self.texts.popleft()[1])

    def matching(self, filename) -> list:
        with self.lock:
            return [text for name, text in reversed(self.texts) if name == filename]


def _pseudo(name) -> bool:
    return isinstance(name, str) and name.startswith("<") and name.endswith(">")


class _Windows:
    def __init__(self) -> None:
        self.cuda = _Window(2048, 16 << 20)
        self.other = _Window(1024, 8 << 20)

    def add(self, source, filename) -> None:
        raw = isinstance(source, bytes)
        if source.startswith(b"def __create_fn__(" if raw else "def __create_fn__("):
            return  # a dataclass method made by the dataclasses module: never a kernel
        mentions = b"cuda" in source if raw else "cuda" in source
        (self.cuda if mentions else self.other).add(source, filename)

    def matching(self, filename) -> list:
        return self.cuda.matching(filename) + self.other.matching(filename)


def _make_hook(windows: _Windows):
    def hook(event, args) -> None:
        # Called for every audit event of the process: keep the common path short.
        if event == "compile" and len(args) == 2 and _pseudo(args[1]) and isinstance(args[0], (str, bytes)):
            windows.add(args[0], args[1])
    return hook


# process-wide, as the audit hook itself (it cannot be removed)
_STATE: dict[str, Any] = {"window": None, "command": None}
_STATE_LOCK = threading.Lock()


def install() -> None:
    """Start remembering exec'd texts (idempotent; an audit hook cannot be removed)."""
    with _STATE_LOCK:
        if _STATE["window"] is None:
            window = _Windows()
            sys.addaudithook(_make_hook(window))
            _STATE["command"] = command_text()  # compiled before cudalite was imported: read now
            _STATE["window"] = window


def command_text(argv: Any = None, orig_argv: Any = None) -> Any:
    """The program text of ``python -c TEXT`` (Python compiles it as ``<string>``
    before any import, so the audit hook never sees it), from ``sys.orig_argv``;
    None for another kind of program."""
    argv = sys.argv if argv is None else argv
    orig = getattr(sys, "orig_argv", None) if orig_argv is None else orig_argv
    if not argv or argv[0] != "-c" or not orig:
        return None
    args = iter(orig[1:])
    for arg in args:
        if arg in ("-W", "-X"):  # options that take the next argument
            next(args, None)
        elif arg.startswith("-") and not arg.startswith("--") and arg.endswith("c") and arg[1:].isalpha():
            return next(args, None)  # ``-c TEXT``, or a cluster such as ``-Ic TEXT``
        elif not arg.startswith("-"):
            return None
    return None


def candidates(code: Any) -> list:
    """Remembered texts compiled under ``code.co_filename`` that may define it
    (they name it and reach its first line), newest first; [] when none."""
    window = _STATE["window"]
    if window is None:
        return []
    name = code.co_name
    needle = "lambda" if name == "<lambda>" else name
    first = code.co_firstlineno
    found = [t for t in window.matching(code.co_filename) if needle in t and t.count("\n") + 1 >= first]
    command = _STATE["command"]
    if command is not None and code.co_filename == "<string>":
        lines = command.splitlines()  # python -c's text: where the def/lambda (or its decorators) starts there
        head = lines[first - 1].lstrip() if 0 < first <= len(lines) else ""
        if needle in head or (head.startswith("@") and needle in "\n".join(lines[first:first + 50])):
            found.append(command)
    return found
