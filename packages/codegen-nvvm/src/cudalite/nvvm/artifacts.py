"""The values the compiler's stages hand on: stage artifacts, the lowered module,
and the debug exception table (with its device-side record layout).

Everything here is an immutable value.  :class:`ExceptionTable` is the one place
that knows the layout of the record a raising thread writes (the lowering in
``lower/_exceptions.py`` emits it from the constants below) and how a record
read back on the host decodes into the Python exception to raise.  Its stored
form (:meth:`ExceptionTable.to_payload`) is plain JSON-able data; decoding it
imports nothing and runs no user code: exception classes are found only among
the builtins and in modules that are already imported, by plain ``__dict__``
lookups.
"""

from __future__ import annotations

import builtins
import os
import sys
from dataclasses import dataclass, field

from cudalite.core.errors import Loc

__all__ = [
    "Artifact", "ExceptionInfo", "ExceptionTable", "LoweredModule", "EXC_RECORD_SREGS",
    "EXC_RECORD_WORDS", "PayloadError",
]

#: The debug status record of a module: ``[index, tid.x, tid.y, tid.z, ctaid.x, ctaid.y, ctaid.z]``
#: as int32, where ``index`` is the 1-based entry of the exception table (0: nothing raised).
EXC_RECORD_SREGS = ("tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z")
EXC_RECORD_WORDS = 1 + len(EXC_RECORD_SREGS)

_PLAIN = (str, int, float, bool, type(None))


class PayloadError(ValueError):
    """Stored data that is not a well-formed payload of the expected kind."""


@dataclass(frozen=True)
class Artifact:
    """One stage's output: ``kind`` (a stage name), ``data`` (str or bytes), ``name``.

    :func:`compile_stages` returns them; ``str(artifact)`` is the text of a textual
    stage, else a short description.

    Parameters
    ----------
    kind : str
        The stage name (one of ``STAGES``).
    data : str or bytes
        The stage's output.
    name : str
        The name of the compiled function.
    """

    kind: str
    data: object
    name: str

    def __str__(self):
        return self.data if isinstance(self.data, str) else f"<{self.kind}: {len(self.data)} bytes>"


@dataclass(frozen=True, slots=True)
class ExceptionInfo:
    """What the host raises for one raise site: the class (by module and qualified
    name; ``exc_class`` is the class object when known), constant args, location."""

    exc_module: str
    exc_qualname: str
    args: tuple
    filename: str
    line: int
    col: int = 0
    exc_class: type | None = field(default=None, compare=False, repr=False)
    function: str = ""  # the name of the Python function holding the raise ('' when unknown)

    @classmethod
    def of(cls, exc_class: type, args, loc: Loc | None, function: str = "") -> "ExceptionInfo":
        loc = loc or Loc(None, 0)
        return cls(exc_class.__module__, exc_class.__qualname__, tuple(args), loc.filename, loc.line or 0,
                   loc.col or 0, exc_class, function)

    def location_prefix(self) -> str:
        """numba's prefix of a kernel exception's message: ``In function 'f', file
        /abs/path.py, line 12, `` ('' without a function name or line)."""
        if not self.function or not self.line:
            return ""
        return f"In function {self.function!r}, file {os.path.abspath(self.filename)}, line {self.line}, "

    @property
    def loc(self) -> Loc:
        return Loc(self.filename, self.line, self.col)

    def resolve_class(self) -> type | None:
        """The exception class: the one compiled, else found without importing or
        running anything (builtins, or an already-imported module's ``__dict__``)."""
        if self.exc_class is not None:
            return self.exc_class
        if self.exc_module == "builtins":
            obj = vars(builtins).get(self.exc_qualname)
        else:
            module = sys.modules.get(self.exc_module)
            obj = module
            for part in self.exc_qualname.split("."):
                if obj is None:
                    break
                try:
                    obj = vars(obj).get(part)  # the namespace itself: no __getattr__ hook runs
                except TypeError:
                    obj = None
        return obj if isinstance(obj, type) and issubclass(obj, BaseException) else None


@dataclass(frozen=True, slots=True)
class ExceptionTable:
    """The raise sites of a debug-mode module, in record-index order."""

    entries: tuple = ()

    def __len__(self):
        return len(self.entries)

    def __iter__(self):
        return iter(self.entries)

    def __getitem__(self, i):
        return self.entries[i]

    def decode(self, words) -> BaseException | None:
        """The exception a status record (``EXC_RECORD_WORDS`` ints) stands for, or
        None when nothing was raised.  The message is prefixed as numba's: ``In function
        'f', file F, line N, tid=[..] ctaid=[..]`` (the location when known)."""
        words = [int(w) for w in words]
        if len(words) != EXC_RECORD_WORDS:
            raise ValueError(f"an exception record has {EXC_RECORD_WORDS} words, not {len(words)}")
        index = words[0]
        if index == 0:
            return None
        info = self.entries[index - 1] if 0 < index <= len(self.entries) else None
        cls = info.resolve_class() if info is not None else None
        if info is None:
            cls, args = RuntimeError, ("unknown exception",)
        elif cls is None:
            cls, args = RuntimeError, (f"{info.exc_module}.{info.exc_qualname}{info.args!r}",)
        else:
            args = info.args
        prefix = f"{info.location_prefix() if info is not None else ''}tid={words[1:4]} ctaid={words[4:7]}"
        if args and isinstance(args[0], str):
            args = (f"{prefix}: {args[0]}", *args[1:])
        else:
            args = (prefix, *args) if args else (prefix,)
        try:
            return cls(*args)
        except Exception:
            return RuntimeError(f"{cls.__name__}{args!r}")

    # -- stored form -----------------------------------------------------------------------
    def storable(self) -> bool:
        """Whether every entry's args are plain constants (str, int, float, bool, None)."""
        return all(isinstance(a, _PLAIN) for e in self.entries for a in e.args)

    def to_payload(self) -> list:
        """``[[module, qualname, [args...], file, line, col, function], ...]`` (JSON-able)."""
        if not self.storable():
            raise PayloadError("exception arguments that are not plain constants cannot be stored")
        return [[e.exc_module, e.exc_qualname, list(e.args), e.filename, e.line, e.col, e.function]
                for e in self.entries]

    @classmethod
    def from_payload(cls, data) -> "ExceptionTable":
        if not isinstance(data, list):
            raise PayloadError("exception table: expected a list")
        out = []
        for item in data:
            if not (isinstance(item, list) and len(item) in (6, 7)):  # 6: stored before the function name
                raise PayloadError("exception table: malformed entry")
            module, qualname, args, filename, line, col, function = (*item, "")[:7]
            if not (isinstance(module, str) and isinstance(qualname, str) and isinstance(filename, str)
                    and isinstance(args, list) and all(isinstance(a, _PLAIN) for a in args)
                    and _is_int(line) and _is_int(col) and isinstance(function, str)):
                raise PayloadError("exception table: malformed entry")
            out.append(ExceptionInfo(module, qualname, tuple(args), filename, line, col, None, function))
        return cls(tuple(out))


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


@dataclass(frozen=True, slots=True)
class LoweredModule:
    """What the lowering stage produces: the NVVM IR text and the facts about it
    that later stages and the runtime need."""

    text: str
    entry_name: str
    abi: object = None  # cudalite.core.abi.KernelABI of the entry point
    exceptions: ExceptionTable = ExceptionTable()
    exc_symbol: str | None = None  # the device global holding the status (None: nothing can raise)
    uses_grid_sync: bool = False  # needs a cooperative launch
    link_items: tuple = ()  # code the module's foreign calls need (paths or cudalite.linker objects)
    uses_libdevice: bool = False
