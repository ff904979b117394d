"""``Linker``: any mix of linkable code -> one cubin (or PTX) for an explicit sm_XY.

Inputs are collected by :meth:`Linker.add` and linked by :meth:`Linker.link`
with nvJitLink; no GPU or driver is involved.  The link is LTO when any input
is LTO-IR (or ``LinkerOptions(lto=True)``); CUDA sources are compiled with
NVRTC at link time, to LTO-IR for an LTO link and to PTX otherwise.

Binary inputs that cudalite did not produce itself (cubins, fatbins, objects,
archives, LTO-IR read from files or given as bytes) are *untrusted*: every input
is validated first, and a link with an untrusted binary runs in a child process
(``_isolated``, one warm child per process) so that a corruption only nvJitLink can decode raises an error
instead of crashing the caller.  Code added with ``trusted=True`` (what a
compiler in this process just made) and NVRTC's output are linked in-process.
CUDA sources not added as trusted are compiled by NVRTC in that child too (an ``#include`` of a FIFO or
a macro bomb cannot hang the caller).  Every job in the child is bounded by
``timeout`` seconds (default ``CUDALITE_LINK_TIMEOUT``, 600): past it the child is
killed and :class:`~._errors.LinkTimeout` is raised.  With ``isolate=False`` all of
it runs in this process, unbounded.

A PTX input with one huge function (``_ptxsize``: ptxas's time grows faster than
linearly with a function's size) is logged as a warning on the ``cudalite.linker``
logger before the link starts, and that link too runs in the child under the bound,
its :class:`~._errors.LinkTimeout` saying why it was slow.
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any

from ._code import LTOIR, Cubin, CUSource, LinkableCode, PTXSource
from ._elf import elf_sm
from ._errors import LinkerError
from ._isolated import can_isolate, link_server
from ._nvjitlink import LinkFailure, run_link
from ._nvrtc import compile_cuda
from ._options import LinkerOptions, linker_flags, normalize_arch
from ._ptxsize import slow_link_reason
from .config import load_config
from ._symbols import duplicate_definitions
from ._validate import validate_input

__all__ = ["Linker", "link"]

_log = logging.getLogger("cudalite.linker")


class _CallbackChain:
    """Calls several module callbacks in order (teardowns: reverse order)."""

    __slots__ = ("callbacks",)

    def __init__(self, callbacks):
        self.callbacks = tuple(callbacks)

    def __call__(self, *args, **kwargs):
        for cb in self.callbacks:
            cb(*args, **kwargs)

    def __repr__(self):
        return f"_CallbackChain({self.callbacks!r})"


def _chain(callbacks):
    callbacks = [cb for cb in callbacks if cb is not None]
    if not callbacks:
        return None
    return callbacks[0] if len(callbacks) == 1 else _CallbackChain(callbacks)


def _sm_number(arch: str) -> int:
    """The number of a normalized ``sm_XY[a|f]`` (normalize_arch made it)."""
    m = re.match(r"sm_(\d+)", arch)
    if m is None:
        raise ValueError(f"not a normalized target: {arch!r}")
    return int(m.group(1))


class Linker:
    """Links PTX, CUDA sources, cubins, fatbins, objects, archives and LTO-IR.

    ``Linker(arch="sm_90", *, options=LinkerOptions(), include_dirs=(),
    nvrtc_options=(), cuda_include_path=None, name="linked", isolate=True, timeout=None)``: ``arch`` is an
    ``"sm_XY"`` or ``(major, minor)``; ``include_dirs``, ``nvrtc_options`` and
    ``cuda_include_path`` are passed to NVRTC for :class:`CUSource` inputs.
    ``isolate=False`` links untrusted binary inputs and compiles CUDA sources in this
    process too (faster by a request to the link process; a corrupt input may then
    crash the process, a hostile source hang it).  ``timeout`` bounds each job of the
    link process in seconds (None: ``CUDALITE_LINK_TIMEOUT``, 0: no bound).

    Parameters
    ----------
    arch : str, int or tuple, optional
        The target (default ``"sm_90"``; see :func:`normalize_arch`).
    options : LinkerOptions, optional
        nvJitLink options (default ``LinkerOptions()``).
    include_dirs : sequence of path, optional
        Header directories for NVRTC, searched before the CUDA headers.
    nvrtc_options : sequence of str, optional
        Extra NVRTC flags for :class:`CUSource` inputs.
    cuda_include_path : str, optional
        Replaces the CUDA header directories of the wheels.
    name : str, optional
        Base name of the linked result (default ``"linked"``).
    isolate : bool, optional
        Link untrusted binary inputs and compile CUDA sources in a child process
        (default True).
    timeout : float, optional
        Seconds one isolated NVRTC compile or nvJitLink link may run (default
        ``CUDALITE_LINK_TIMEOUT``, 600; 0: no bound).

    Raises
    ------
    ValueError
        If ``arch`` or ``timeout`` is invalid.
    TypeError
        If ``options`` is not a :class:`LinkerOptions`.
    """

    def __init__(self, arch: str = "sm_90", *, options: LinkerOptions | None = None, include_dirs: Any = (),
                 nvrtc_options: Any = (), cuda_include_path: Any = None, name: str = "linked", isolate: bool = True,
                 timeout: Any = None) -> None:
        self._arch = normalize_arch(arch)
        self._options = options if options is not None else LinkerOptions()
        if not isinstance(self._options, LinkerOptions):
            raise TypeError(f"options must be a LinkerOptions, not {type(self._options).__name__}")
        self._include_dirs = tuple(os.fspath(d) for d in include_dirs)
        self._nvrtc_options = tuple(nvrtc_options)
        self._cuda_include_path = cuda_include_path
        self._name = name
        self._isolate = bool(isolate)
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or not timeout >= 0):
            raise ValueError(f"timeout must be a number of seconds >= 0 (0: no bound), not {timeout!r}")
        self._timeout = timeout
        self._inputs: list = []
        self._trusted: set = set()  # ids of inputs added with trusted=True (kept alive by _inputs)
        self._compiled: dict = {}  # (content_hash, lto) -> PTXSource | LTOIR of a CUSource
        self.info_log = ""   # nvJitLink's info log of the last successful link

    @property
    def arch(self) -> str:
        """The target, ``"sm_XY"``."""
        return self._arch

    @property
    def options(self) -> LinkerOptions:
        """The :class:`LinkerOptions`."""
        return self._options

    @property
    def inputs(self) -> tuple:
        """The inputs added so far, in order."""
        return tuple(self._inputs)

    @property
    def lto(self) -> bool:
        """Whether :meth:`link` runs an LTO link."""
        return self._options.lto or any(isinstance(c, LTOIR) for c in self._inputs)

    @property
    def setup_callbacks(self) -> tuple:
        """The inputs' setup callbacks, in order."""
        return tuple(c.setup_callback for c in self._inputs if c.setup_callback is not None)

    @property
    def teardown_callbacks(self) -> tuple:
        """The inputs' teardown callbacks, in order."""
        return tuple(c.teardown_callback for c in self._inputs if c.teardown_callback is not None)

    def add(self, *codes: Any, trusted: bool = False) -> "Linker":
        """Add linkable code objects (or paths, read with ``LinkableCode.from_path``).

        ``trusted=True`` says the bytes were just made by a compiler in this process
        (not read from a file or given by a user), so a link with them needs no
        child process; see the module docstring.

        Parameters
        ----------
        *codes : LinkableCode or path
            The inputs.
        trusted : bool, optional
            The inputs were just made by a compiler in this process.

        Returns
        -------
        Linker
            This linker (calls chain).

        Raises
        ------
        TypeError
            If an input is neither linkable code nor a path.
        UnknownFileTypeError, MissingFileError
            If a path cannot be read as linkable code.
        """
        for code in codes:
            if isinstance(code, (str, os.PathLike)):
                code = LinkableCode.from_path(code)
            if not isinstance(code, LinkableCode):
                raise TypeError(f"Linker.add takes LinkableCode objects or paths, not {type(code).__name__}")
            self._inputs.append(code)
            if trusted:
                self._trusted.add(id(code))
            elif self._isolate and not isinstance(code, PTXSource) and can_isolate():
                link_server().start()  # warms up while the caller prepares the other inputs
        return self

    def untrusted_binaries(self) -> tuple:
        """Names of the binary inputs (not PTX or CUDA source) not added as trusted:
        a link with any of them runs in a child process when ``isolate`` is on."""
        return tuple(code.name for code in self._inputs
                     if id(code) not in self._trusted and not isinstance(code, (PTXSource, CUSource)))

    def add_file(self, path: Any) -> "Linker":
        """Add a file; its kind follows its extension.

        Parameters
        ----------
        path : str or os.PathLike
            The file.

        Returns
        -------
        Linker
            This linker.

        Raises
        ------
        UnknownFileTypeError
            If the extension names no kind.
        MissingFileError
            If the file does not exist.
        """
        return self.add(LinkableCode.from_path(path))

    def _job_timeout(self) -> float:
        """The bound of one isolated job: ``timeout``, else ``CUDALITE_LINK_TIMEOUT``."""
        return self._timeout if self._timeout is not None else load_config().link_timeout

    def _compile(self, source: CUSource, lto: bool):
        key = (source.content_hash, source.name, lto)
        if key not in self._compiled:
            isolate = self._isolate and id(source) not in self._trusted and can_isolate()
            self._compiled[key] = compile_cuda(
                source, arch=self._arch, lto=lto, include_dirs=self._include_dirs,
                options=self._nvrtc_options, cuda_include_path=self._cuda_include_path,
                isolate=isolate, timeout=self._job_timeout() if isolate else None)
        return self._compiled[key]

    def _prepared(self, lto: bool) -> list:
        if not self._inputs:
            raise LinkerError("nothing to link: add inputs with Linker.add()")
        prepared = []
        for code in self._inputs:
            if isinstance(code, CUSource):
                code = self._compile(code, lto)
            prepared.append(code)
        return prepared

    def _arch_mismatches(self, inputs) -> list:
        target = _sm_number(self._arch)
        found = []
        for code in inputs:
            if isinstance(code, Cubin):
                sm = elf_sm(code.data)
                if sm is not None and sm != target:
                    found.append(f"{code.name} is a cubin for sm_{sm}")
        return found

    def _run(self, output: str):
        ptx = output == "ptx"
        lto = self.lto or ptx
        inputs = self._prepared(lto)
        flags = linker_flags(self._options, self._arch, lto=lto, ptx=ptx)
        for code in inputs:  # nvJitLink may crash on malformed inputs: reject them first
            validate_input(code)
        duplicates = duplicate_definitions(inputs)
        if duplicates:
            raise LinkFailure(f"duplicate symbol definitions; not linked for {self._arch}",
                              "\n".join(duplicates), status="duplicate symbol", stage="check")
        triples = [(code.input_type, code.data, code.name) for code in inputs]
        untrusted = self.untrusted_binaries() if self._isolate else ()
        slow = slow_link_reason(triples, self._options.optimization_level)
        if slow:
            _log.warning("slow link ahead: %s", slow)
        try:
            if (untrusted or (slow and self._isolate)) and can_isolate():
                data, info_log = link_server().link(flags, triples, output=output, untrusted=untrusted,
                                                    timeout=self._job_timeout(), reason=slow)
            else:
                data, info_log = run_link(flags, triples, output=output)
        except LinkFailure as e:
            mismatches = self._arch_mismatches(inputs)
            if mismatches:
                e.message = (f"architecture mismatch: {'; '.join(mismatches)}, but the link targets "
                             f"{self._arch}. " + e.message)
                e.args = (e.message,)
            raise
        self.info_log = info_log
        return data

    def link(self) -> Cubin:
        """Link all inputs into a cubin for ``arch``; the cubin carries the inputs'
        setup/teardown callbacks (chained in order, teardowns reversed).

        Returns
        -------
        Cubin

        Raises
        ------
        LinkerError
            If NVRTC or nvJitLink fails (:class:`NvrtcError`, :class:`LinkFailure`), an
            input is malformed (:class:`InvalidInputError`), an isolated job runs past
            ``timeout`` (:class:`LinkTimeout`) or a tool is missing (:class:`ToolNotFoundError`).
        """
        data = self._run("cubin")
        return Cubin(data, name=f"{self._name}.cubin", setup_callback=_chain(self.setup_callbacks),
                     teardown_callback=_chain(reversed(self.teardown_callbacks)))

    def link_ptx(self) -> PTXSource:
        """Link LTO-IR inputs (CUDA sources become LTO-IR) into PTX (nvJitLink ``-lto -ptx``).
        Inputs that are not LTO-IR make nvJitLink fail with a ``LinkerError``."""
        data = self._run("ptx")
        return PTXSource(data, name=f"{self._name}.ptx", setup_callback=_chain(self.setup_callbacks),
                         teardown_callback=_chain(reversed(self.teardown_callbacks)))


def link(*codes: Any, arch: str = "sm_90", options: LinkerOptions | None = None, **kwargs: Any) -> Cubin:
    """One-call form: ``link(ptx, cubin, ..., arch="sm_90")`` -> Cubin.

    Parameters
    ----------
    *codes : LinkableCode or path
        The inputs.
    arch : str, int or tuple, optional
        The target (default ``"sm_90"``).
    options : LinkerOptions, optional
        nvJitLink options.
    **kwargs
        Further :class:`Linker` arguments.

    Returns
    -------
    Cubin

    Raises
    ------
    LinkerError
        If the link fails.
    """
    return Linker(arch, options=options, **kwargs).add(*codes).link()
