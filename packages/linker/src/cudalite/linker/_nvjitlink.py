"""The only module that talks to nvJitLink: flags + inputs -> cubin or PTX bytes.

nvJitLink reports most failures through its error log.  Some (a symbol defined
twice in non-LTO inputs, as of nvJitLink 13.x) it only prints to the process's
stderr, marked ``@E@``, and still reports success; so file descriptor 2 is
captured while a link runs, ``@E@`` lines become errors and everything else is
written back to stderr unchanged.

A native crash inside nvJitLink must not be swallowed by that capture: while fd 2
points at the capture file, :mod:`faulthandler` is pointed at (a duplicate of) the
real stderr, so a fatal signal still prints its Python traceback where stderr
went before the link.  Inputs are validated (``_validate``) before they get here.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import sys
import tempfile
import threading
from typing import Any

from ._errors import LinkerError
from ._tools import load_tool

__all__ = ["run_link", "nvjitlink_version", "LinkFailure"]

# Serialises the stderr redirection of concurrent links (fd 2 is process-wide).
_FD2_LOCK = threading.Lock()


class LinkFailure(LinkerError):
    """nvJitLink failed; ``status`` is its result name (e.g. ``ERROR_INTERNAL``), ``stage``
    what failed (``create``, ``add <name>``, ``complete``).

    Parameters
    ----------
    message : str
        What failed.
    error_log : str, optional
        nvJitLink's error log.
    info_log : str, optional
        nvJitLink's info log.
    status : str, optional
        nvJitLink's result name.
    stage : str, optional
        The step that failed.
    input_name : str, optional
        The input being added when it failed.
    """

    def __init__(self, message: Any, error_log: str = "", info_log: str = "", status: Any = None, stage: Any = None,
                 input_name: Any = None) -> None:
        self.status = status
        self.stage = stage
        self.input_name = input_name
        super().__init__(message, error_log, info_log)


def _nvjitlink():
    load_tool("nvJitLink", "nvidia-nvjitlink")
    from cuda.bindings import nvjitlink
    return nvjitlink


def nvjitlink_version() -> tuple:
    """``(major, minor)`` of the nvJitLink library in use (from the pip wheel)."""
    version = tuple(_nvjitlink().version())
    import logging

    logging.getLogger(__name__).debug("nvJitLink %s (cuda.bindings, found by cuda-pathfinder)",
                                      ".".join(map(str, version)))
    return version


def _read(size_fn, get_fn, handle) -> bytes:
    size = size_fn(handle)
    if size <= 0:
        return b""
    buf = bytearray(size)
    get_fn(handle, buf)
    return bytes(buf)


def _text(data: bytes) -> str:
    return data.rstrip(b"\0").decode(errors="replace")


@contextlib.contextmanager
def _crash_reports_to(fd: int):
    """While active, a fatal signal's faulthandler traceback is written to ``fd``.

    faulthandler is enabled on ``fd`` (all threads) even if it was off, so a
    native crash always leaves a traceback.  Afterwards it is disabled again if it
    was off; if it was on it is re-enabled on stderr (fd 2), where
    ``python -X faulthandler`` and ``faulthandler.enable()`` put it (faulthandler
    cannot say which file it was using).
    """
    was_enabled = faulthandler.is_enabled()
    try:
        faulthandler.enable(file=fd, all_threads=True)
    except (OSError, ValueError, RuntimeError):
        yield  # cannot redirect (e.g. fd not writable): the capture goes on regardless
        return
    try:
        yield
    finally:
        if was_enabled:
            faulthandler.enable(file=2, all_threads=True)
        else:
            faulthandler.disable()


@contextlib.contextmanager
def _captured_stderr(sink: list):
    """Redirect fd 2 into a temporary file; append what was written to ``sink``.

    A fatal signal meanwhile still reports to the real stderr (:func:`_crash_reports_to`)."""
    with _FD2_LOCK:
        try:
            sys.stderr.flush()
            saved = os.dup(2)
        except (OSError, ValueError, AttributeError):
            yield  # no usable fd 2: link without capturing
            return
        try:
            with tempfile.TemporaryFile() as tmp, _crash_reports_to(saved):
                os.dup2(tmp.fileno(), 2)
                try:
                    yield
                finally:
                    os.dup2(saved, 2)
                    tmp.seek(0)
                    sink.append(tmp.read())
        finally:
            os.close(saved)


def _split_stderr(raw: bytes) -> tuple:
    """(error lines, info lines, passthrough bytes) of captured stderr output."""
    errors, infos, passthrough = [], [], []
    for line in raw.splitlines(keepends=True):
        text = line.decode(errors="replace").rstrip("\r\n")
        if text.startswith("@E@"):
            errors.append(text[3:])
        elif text.startswith(("@W@", "@I@")):
            infos.append(text[3:])
        else:
            passthrough.append(line)
    return errors, infos, b"".join(passthrough)


def _status(exc) -> str:
    return str(exc).split(" (")[0] or type(exc).__name__


def run_link(flags: Any, inputs: Any, *, output: str = "cubin", progress: Any = None) -> tuple:
    """Link ``inputs`` — ``(input_type_name, data, name)`` triples, the type a
    member of ``nvjitlink.InputType`` — with ``flags``.  Returns
    ``(output_bytes, info_log)``; ``output`` is ``"cubin"`` or ``"ptx"``.
    ``progress``, if given, is called with each stage name (``"add <name>"``,
    ``"complete"``) before nvJitLink runs it."""
    nvjitlink = _nvjitlink()
    flags = list(flags)
    try:
        handle = nvjitlink.create(len(flags), flags)
    except nvjitlink.nvJitLinkError as e:
        raise LinkFailure(f"nvJitLink rejected the options {' '.join(flags)} ({e})",
                          status=_status(e), stage="create") from None
    captured: list = []
    stage, current = "complete", None
    error = None
    try:
        with _captured_stderr(captured):
            try:
                for type_name, data, name in inputs:
                    stage, current = f"add {name}", name
                    if progress is not None:
                        progress(stage)
                    nvjitlink.add_data(handle, getattr(nvjitlink.InputType, type_name), data, len(data), name)
                stage, current = "complete", None
                if progress is not None:
                    progress(stage)
                nvjitlink.complete(handle)
            except nvjitlink.nvJitLinkError as e:
                error = e
        err_lines, info_lines, passthrough = _split_stderr(b"".join(captured))
        if passthrough:
            os.write(2, passthrough)
        error_log = _text(_read(nvjitlink.get_error_log_size, nvjitlink.get_error_log, handle))
        info_log = _text(_read(nvjitlink.get_info_log_size, nvjitlink.get_info_log, handle))
        error_log = "\n".join([*err_lines, error_log] if error_log else err_lines)
        info_log = "\n".join([*info_lines, info_log] if info_log else info_lines)
        if error is not None or err_lines:
            status = _status(error) if error is not None else "error reported on stderr"
            where = f" while adding {current}" if error is not None and current else ""
            raise LinkFailure(f"nvJitLink failed{where} ({status}) with flags {' '.join(flags)}",
                              error_log, info_log, status=status, stage=stage, input_name=current)
        if output == "ptx":
            out = _read(nvjitlink.get_linked_ptx_size, nvjitlink.get_linked_ptx, handle).rstrip(b"\0")
        else:
            out = _read(nvjitlink.get_linked_cubin_size, nvjitlink.get_linked_cubin, handle)
        return out, info_log
    finally:
        nvjitlink.destroy(handle)
