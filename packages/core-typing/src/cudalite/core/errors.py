"""The cudalite error family and source-location rendering.

Every user-facing compile error carries a ``Loc`` and renders as::

    path/to/file.py:12:8: TypingError: cannot add Tuple(int64, int64) and float64
        y = t + 1.5
            ^^^^^^^
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Loc", "CudaliteError", "CompilerError", "TypingError", "UnsupportedError",
    "SignatureError", "NvvmError", "LoweringError", "SourceError", "SourceWarning", "NestingError",
    "InternalCompilerError", "AlignmentError", "KernelReturnError", "NumbaWarning", "NumbaPerformanceWarning",
    "NumbaDeprecationWarning",
    "NumbaPendingDeprecationWarning", "NumbaParallelSafetyWarning", "NumbaTypeSafetyWarning",
    "NumbaExperimentalFeatureWarning", "NumbaInvalidConfigWarning", "NumbaPedanticWarning",
    "NumbaIRAssumptionWarning", "NumbaDebugInfoWarning", "NumbaSystemWarning",
]


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Loc:
    """A source location: file, 1-based line, 0-based column, optional end
    (immutable; compared by identity like the IR nodes that carry it)."""

    filename: str | None
    line: int | None
    col: int | None = 0
    end_line: int | None = None
    end_col: int | None = None
    source_line: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "filename", self.filename or "<unknown>")
        object.__setattr__(self, "col", self.col or 0)

    def text(self) -> str | None:
        if self.source_line is not None:
            return self.source_line
        line = linecache.getline(self.filename or "", self.line) if self.line else ""  # filename: never None
        return line.rstrip("\n") or None

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{(self.col or 0) + 1}"  # col: never None (__post_init__)

    __repr__ = __str__

    def render(self) -> str:
        """The location, the source line and a caret under the columns."""
        head = str(self)
        src = self.text()
        if not src:
            return head
        width, col = 1, self.col or 0
        if self.end_line == self.line and self.end_col and self.end_col > col:
            width = self.end_col - col
        stripped = src.lstrip()
        indent = len(src) - len(stripped)
        caret = " " * (4 + max(col - indent, 0)) + "^" * width
        return f"{head}\n    {stripped}\n{caret}"


class CudaliteError(Exception):
    """Base of every error cudalite raises on purpose."""


class CompilerError(CudaliteError):
    """An error in user code found while compiling, with a location.

    Base of :class:`TypingError`, :class:`UnsupportedError`, :class:`SignatureError`
    and the other compile errors; ``str(err)`` renders the location, the kind and
    the message, then the notes.

    Parameters
    ----------
    msg : str
        What is wrong.
    loc : Loc, optional
        Where, in the user's source.
    notes : iterable of str, optional
        Context lines appended to the message (e.g. the call chain).
    """

    kind = "CompilerError"

    def __init__(self, msg: str, loc: Loc | None = None, notes: Any = ()) -> None:
        self.msg = msg
        self.loc = loc
        self.notes = list(notes)
        super().__init__(self._render())

    def _render(self) -> str:
        lines = [self.msg]
        if self.loc is not None:
            lines = [f"{self.loc.render()}\n{self.kind}: {self.msg}"]
        lines.extend(self.notes)
        return "\n".join(lines)

    def add_note_loc(self, note: str, loc: Loc | None = None) -> CompilerError:
        """Append context, e.g. 'while compiling call to f at file:line'.

        Parameters
        ----------
        note : str
            The context line.
        loc : Loc, optional
            A location rendered under the note.

        Returns
        -------
        CompilerError
            This error.
        """
        self.notes.append(note + (f"\n{loc.render()}" if loc else ""))
        self.args = (self._render(),)
        return self

    def with_default_loc(self, loc: Loc | None) -> CompilerError:
        """Give an error found without a source position (a bad signature, a kernel
        declared to return a value) the location of the function being compiled.

        Parameters
        ----------
        loc : Loc or None
            The location to use when the error has none.

        Returns
        -------
        CompilerError
            This error.
        """
        if self.loc is None and loc is not None:
            self.loc = loc
            self.args = (self._render(),)
        return self

    def __str__(self) -> str:
        return self.args[0] if self.args else self.msg


class TypingError(CompilerError):
    """Types that do not fit: bad operands, unknown names, wrong arity."""

    kind = "TypingError"


class AlignmentError(TypingError, ValueError):
    """An invalid ``alignment=`` of ``cuda.local.array``/``cuda.shared.array`` (not a
    positive power of two): a ValueError, as numba-cuda raises."""

    kind = "TypingError"


class KernelReturnError(TypingError, TypeError):
    """A kernel that returns a value: a TypeError too, as numba-cuda raises ("CUDA
    kernel must have void return type")."""

    kind = "TypingError"


class UnsupportedError(CompilerError):
    """Python syntax or a feature cudalite does not compile (try, with, yield...)."""

    kind = "UnsupportedError"


class SourceError(UnsupportedError):
    """The source of the function to compile cannot be proved to be the code Python
    runs: not available, not Python, changed after import, or two lambdas on one
    line that cannot be told apart.  Located at the function's first line."""

    kind = "SourceError"


# -- warnings: numba's public warning classes, with numba's names and hierarchy, so a
# numba.cuda program filtering or asserting them sees cudalite's warnings as numba's.
class NumbaWarning(UserWarning):
    """Base of every warning cudalite issues about user code or options (numba's
    name; also a ``UserWarning``, so a plain ``UserWarning`` filter still sees it)."""


class NumbaPerformanceWarning(NumbaWarning):
    """Code or a launch that works but is slow (host arrays copied, low occupancy)."""


class NumbaDeprecationWarning(NumbaWarning, DeprecationWarning):
    """A deprecated feature is used."""


class NumbaPendingDeprecationWarning(NumbaWarning, PendingDeprecationWarning):
    """A feature that will be deprecated is used."""


class NumbaParallelSafetyWarning(NumbaWarning):
    """numba's parallel-safety warning (never issued by cudalite; for filters)."""


class NumbaTypeSafetyWarning(NumbaWarning):
    """A conversion that may lose information."""


class NumbaExperimentalFeatureWarning(NumbaWarning):
    """An experimental feature is used."""


class NumbaInvalidConfigWarning(NumbaWarning):
    """A combination of options that does not work as asked (``debug=True`` with
    ``opt=True``, ``debug=True`` with ``lineinfo=True``)."""


class NumbaPedanticWarning(NumbaWarning):
    """A warning about something that may be a mistake in user code."""


class NumbaIRAssumptionWarning(NumbaPedanticWarning):
    """An assumption about the user's code that the compiler relied on."""


class NumbaDebugInfoWarning(NumbaWarning):
    """Debug information that cannot be emitted as asked."""


class NumbaSystemWarning(NumbaWarning):
    """A problem with the system (toolkit, driver) that cudalite works around."""


class SourceWarning(NumbaWarning):
    """cudalite compiles something other than the object it was given (the
    function a source-less wrapper wraps)."""


class SignatureError(CompilerError, TypeError):
    """A malformed or inapplicable signature."""

    kind = "SignatureError"


class LoweringError(CompilerError):
    """A typed construct that the backend cannot lower."""

    kind = "LoweringError"


class NestingError(UnsupportedError):
    """An expression nested more deeply than the compiler can follow (or a function
    too large to compile); located at the statement holding it."""

    kind = "NestingError"


class InternalCompilerError(CudaliteError):
    """A bug in cudalite: an unexpected exception while compiling.  The message names
    the function compiled and the original exception (also its ``__cause__``);
    please report it."""


class NvvmError(CudaliteError):
    """libNVVM rejected the module; carries libNVVM's log.

    Parameters
    ----------
    msg : str
        What failed.
    log : str, optional
        libNVVM's log (``log``), appended to the message.
    ir_text : str, optional
        The NVVM IR that was rejected (``ir_text``).
    """

    def __init__(self, msg: str, log: str = "", ir_text: str | None = None) -> None:
        self.log = log
        self.ir_text = ir_text
        super().__init__(f"{msg}\n{log}".rstrip())
