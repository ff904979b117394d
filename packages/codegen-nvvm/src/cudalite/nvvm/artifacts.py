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
import re
import sys
from dataclasses import dataclass, field
from typing import Any

from cudalite.core.errors import Loc

__all__ = [
    "Artifact", "ExceptionInfo", "ExceptionTable", "LoweredModule", "EXC_RECORD_SREGS",
    "EXC_RECORD_WORDS", "EXC_RECORD_VALUES", "EXC_VALUES_RECORD_WORDS", "PayloadError",
]

#: The debug status record of a module: ``[index, tid.x, tid.y, tid.z, ctaid.x, ctaid.y, ctaid.z]``
#: as int32, where ``index`` is the 1-based entry of the exception table (0: nothing raised).
EXC_RECORD_SREGS = ("tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z")
EXC_RECORD_WORDS = 1 + len(EXC_RECORD_SREGS)
#: A module compiled with ``boundscheck`` has a longer record: after the words above,
#: ``EXC_RECORD_VALUES`` int64 runtime values (the offending index, the array's shape),
#: each as two int32 words, low word first.  Its entries' ``template`` says how they
#: are shown.
EXC_RECORD_VALUES = 8
EXC_VALUES_RECORD_WORDS = EXC_RECORD_WORDS + 2 * EXC_RECORD_VALUES
_FIELD = re.compile(r"\{(\d+)(u?)\}")

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
    data: str | bytes
    name: str

    def __str__(self) -> str:
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
    #: a message made of the record's runtime values (bounds checks): ``{n}`` is value n as
    #: a signed int64, ``{nu}`` as an unsigned one; '' for a message of constant ``args``
    template: str = ""

    @classmethod
    def of(cls, exc_class: type, args: Any, loc: Loc | None, function: str = "", template: str = "") -> "ExceptionInfo":
        loc = loc or Loc(None, 0)
        return cls(exc_class.__module__, exc_class.__qualname__, tuple(args), loc.filename or "<unknown>",
                   loc.line or 0, loc.col or 0, exc_class, function, template)

    def render(self, values: Any) -> str:
        """The template with the record's runtime ``values`` (int64s) filled in; a field
        naming a value the record lacks shows ``?``."""
        def field(m):
            k = int(m.group(1))
            if k >= len(values):
                return "?"
            v = int(values[k])
            return str(v % (1 << 64) if m.group(2) else v)

        return _FIELD.sub(field, self.template)

    def located_message(self, values: Any, kernel: str, thread: str) -> str:
        """A runtime-valued message (bounds checks): ``<template> in kernel 'k' at
        /abs/file.py:12`` (plus the device function holding the access when it is not
        the kernel) and the thread that raised."""
        where = f"{os.path.abspath(self.filename)}:{self.line}" if self.filename else "<unknown location>"
        inner = f" (in device function {self.function!r})" if self.function and self.function != kernel else ""
        return f"{self.render(values)} in kernel {kernel!r} at {where}{inner}, {thread}"

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

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Any:
        return iter(self.entries)

    def __getitem__(self, i: Any) -> Any:
        return self.entries[i]

    def decode(self, words: Any, kernel: str = "") -> BaseException | None:
        """The exception a status record (``EXC_RECORD_WORDS`` ints, or
        ``EXC_VALUES_RECORD_WORDS`` for a bounds-checked module) stands for, or None
        when nothing was raised.  The message is prefixed as numba's: ``In function
        'f', file F, line N, tid=[..] ctaid=[..]`` (the location when known); an entry
        with a ``template`` (a bounds check) reads ``<message> in kernel 'k' at F:N,
        tid=[..] ctaid=[..]`` (``kernel``: the kernel's name, default the function's)."""
        words = [int(w) for w in words]
        if len(words) not in (EXC_RECORD_WORDS, EXC_VALUES_RECORD_WORDS):
            raise ValueError(f"an exception record has {EXC_RECORD_WORDS} or {EXC_VALUES_RECORD_WORDS} words, "
                             f"not {len(words)}")
        index = words[0]
        if index == 0:
            return None
        info = self.entries[index - 1] if 0 < index <= len(self.entries) else None
        cls = info.resolve_class() if info is not None else None
        thread = f"tid={words[1:4]} ctaid={words[4:7]}"
        if info is not None and cls is not None and info.template:
            values = [(words[i] & 0xFFFFFFFF) | (words[i + 1] << 32) for i in range(EXC_RECORD_WORDS, len(words), 2)]
            try:
                return cls(info.located_message(values, kernel or info.function, thread))
            except Exception:
                return RuntimeError(f"{cls.__name__}: {info.located_message(values, kernel or info.function, thread)}")
        if info is None:
            cls, args = RuntimeError, ("unknown exception",)
        elif cls is None:
            cls, args = RuntimeError, (f"{info.exc_module}.{info.exc_qualname}{info.args!r}",)
        else:
            args = info.args
        prefix = f"{info.location_prefix() if info is not None else ''}{thread}"
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
        """``[[module, qualname, [args...], file, line, col, function, template], ...]`` (JSON-able)."""
        if not self.storable():
            raise PayloadError("exception arguments that are not plain constants cannot be stored")
        return [[e.exc_module, e.exc_qualname, list(e.args), e.filename, e.line, e.col, e.function, e.template]
                for e in self.entries]

    @classmethod
    def from_payload(cls, data: Any) -> "ExceptionTable":
        if not isinstance(data, list):
            raise PayloadError("exception table: expected a list")
        out = []
        for item in data:
            # 6: stored before the function name, 7: before the template
            if not (isinstance(item, list) and len(item) in (6, 7, 8)):
                raise PayloadError("exception table: malformed entry")
            module, qualname, args, filename, line, col, function, template = (*item, "", "")[:8]
            if not (isinstance(module, str) and isinstance(qualname, str) and isinstance(filename, str)
                    and isinstance(args, list) and all(isinstance(a, _PLAIN) for a in args)
                    and _is_int(line) and _is_int(col) and isinstance(function, str)
                    and isinstance(template, str)):
                raise PayloadError("exception table: malformed entry")
            out.append(ExceptionInfo(module, qualname, tuple(args), filename, line, col, None, function, template))
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
    # "a": the code uses arch-specific instructions (wgmma, setmaxnreg: sm_90a only)
    arch_suffix: str = ""
    # the kernel reallocates registers (setmaxnreg): ptxas honours that only when it sees the
    # whole program, so the code is compiled to LTO-IR and linked with -lto
    needs_lto: bool = False
