"""The only module that talks to NVRTC: CUDA C++ source -> PTX or LTO-IR.

CUDA headers come from the pip wheels (``nvidia-cuda-runtime``,
``nvidia-cuda-crt``) located by cuda-pathfinder, never from /usr/local/cuda;
a caller may override them with ``cuda_include_path``.  On failure
:class:`NvrtcError` carries NVRTC's log and the first ``file(line)`` it names.

NVRTC opens the files a source includes itself and would block forever on a FIFO,
so each ``#include`` that can be resolved without preprocessing (the source's and
its headers' literal ``"..."``/``<...>`` names, searched as NVRTC searches: the
including file's folder for ``"..."``, then every ``-I`` folder) must name a regular
file; anything else is refused before NVRTC runs.  ``isolate=True`` runs NVRTC in
the isolated child process of ``_isolated`` under a wall-clock bound instead (what
the :class:`~._linker.Linker` does for CUDA sources given to it).
"""

from __future__ import annotations

import functools
import os
import re
import stat
from typing import Any

from ._code import LTOIR, Cubin, CUSource, PTXSource
from ._errors import InvalidInputError, NvrtcError
from ._tools import load_tool
from ._options import normalize_arch

__all__ = ["compile_cuda", "cuda_include_dirs", "nvrtc_version", "parse_nvrtc_log"]

# "kernel.cu(12): error: identifier "x" is undefined" (also "catastrophic error",
# "warning #177-D: ...")
_DIAGNOSTIC = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): (?P<sev>(?:catastrophic )?error|warning)"
                         r"(?: #[\w-]+)?: (?P<msg>.*)$", re.MULTILINE)


def _nvrtc():
    load_tool("nvrtc", "nvidia-cuda-nvrtc")
    from cuda.bindings import nvrtc
    return nvrtc


def nvrtc_version() -> tuple:
    """``(major, minor)`` of the NVRTC library in use (from the pip wheel)."""
    err, major, minor = _nvrtc().nvrtcVersion()
    import logging

    logging.getLogger(__name__).debug("NVRTC %d.%d (cuda.bindings, found by cuda-pathfinder)", major, minor)
    return (major, minor)


@functools.lru_cache(maxsize=None)
def _wheel_include_dirs() -> tuple:
    from cuda.pathfinder import find_nvidia_header_directory

    found = []
    # cccl: libcu++/CUB headers (<nv/target>, <cuda/std/...>) that CUDA's own headers such as
    # curand_kernel.h include; NVRTC has none of them built in
    for libname in ("cudart", "nvrtc", "cccl"):
        try:
            path = find_nvidia_header_directory(libname)
        except Exception:  # pathfinder versions differ in what they raise for unknown names
            path = None
        if path and path not in found:
            found.append(path)
    import logging

    logging.getLogger(__name__).debug("CUDA headers for NVRTC: %s (cuda-pathfinder)", ", ".join(found) or "none")
    return tuple(found)


def cuda_include_dirs(cuda_include_path: str | None = None) -> tuple:
    """The CUDA header directories NVRTC is given: ``cuda_include_path``
    (``os.pathsep``-separated) when set, else the pip wheels' include dirs.

    Parameters
    ----------
    cuda_include_path : str, optional
        ``os.pathsep``-separated directories that replace the wheels' headers.

    Returns
    -------
    tuple of str
    """
    if cuda_include_path:
        return tuple(p for p in str(cuda_include_path).split(os.pathsep) if p)
    return _wheel_include_dirs()


def parse_nvrtc_log(log: str) -> list:
    """``[(file, line, severity, message), ...]`` for each diagnostic in an NVRTC log.

    Parameters
    ----------
    log : str
        NVRTC's program log.

    Returns
    -------
    list of tuple
        ``(file, line, severity, message)``, line an int, severity e.g. ``"error"``.
    """
    return [(m["file"], int(m["line"]), m["sev"], m["msg"].strip()) for m in _DIAGNOSTIC.finditer(log)]


def _check(result, what):
    err = result[0] if isinstance(result, tuple) else result
    if int(err) != 0:
        raise NvrtcError(f"NVRTC {what} failed: {err!r}")
    return result


def _buffer(nvrtc, prog, size_fn, get_fn) -> bytes:
    _, size = _check(size_fn(prog), size_fn.__name__)
    # A fresh mutable buffer: NVRTC writes into it (never hand it an immutable,
    # possibly interned, bytes object).
    buf = bytearray(size)
    _check(get_fn(prog, buf), get_fn.__name__)
    return bytes(buf)


def _failure(name, log):
    diagnostics = [d for d in parse_nvrtc_log(log) if d[2] != "warning"]
    if diagnostics:
        file, line, sev, msg = diagnostics[0]
        more = f" (and {len(diagnostics) - 1} more)" if len(diagnostics) > 1 else ""
        return NvrtcError(f"NVRTC failed to compile {name}: {file}:{line}: {sev}: {msg}{more}",
                          log, file, line)
    return NvrtcError(f"NVRTC failed to compile {name}", log)


_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.MULTILINE)
_MAX_SCANNED_HEADERS = 512  # user headers followed for non-regular includes; past it NVRTC's bound is left


def _special_include(path: str):
    """``(is a regular file, kind)`` of an existing ``path``; None when it does not exist
    or is a folder (the search goes on)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return True, "file"
    if stat.S_ISDIR(mode):
        return None
    kind = ("FIFO" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode)
            else "character device" if stat.S_ISCHR(mode) else "block device" if stat.S_ISBLK(mode)
            else "special file")
    return False, kind


def _check_includes(source: bytes, name: str, search_dirs, skip_dirs=()) -> None:
    """:class:`InvalidInputError` if a literal ``#include`` of ``source`` (or of a header
    it includes from outside ``skip_dirs``, the CUDA headers) resolves to something other
    than a regular file -- NVRTC would block on a FIFO or read a device forever."""
    pending = [(source, name, os.path.dirname(name) or ".")]
    seen: set = set()
    skip = tuple(os.path.join(os.path.abspath(d), "") for d in skip_dirs)
    while pending and len(seen) <= _MAX_SCANNED_HEADERS:
        text, file, here = pending.pop()
        for m in _INCLUDE.finditer(text):
            target = os.fsdecode(m[1] or m[2])
            dirs = ([here] if m[1] else []) + list(search_dirs)
            for path in ([target] if os.path.isabs(target) else [os.path.join(d, target) for d in dirs]):
                found = _special_include(path)
                if found is None:
                    continue
                regular, kind = found
                if not regular:
                    line = text.count(b"\n", 0, m.start()) + 1
                    where = "" if file == name else f" (in {file})"
                    raise InvalidInputError(name, "CUDA C++", f"#include at line {line}{where} names {path}, a "
                                            f"{kind}, not a regular file; NVRTC would block or read it forever")
                real = os.path.abspath(path)
                if real not in seen and not real.startswith(skip):
                    seen.add(real)
                    try:
                        with open(real, "rb") as f:
                            pending.append((f.read(), path, os.path.dirname(real)))
                    except OSError:
                        pass  # NVRTC reports an unreadable header itself
                break


def _without_nul(source: bytes, name: str) -> bytes:
    """``source`` without its trailing NULs; :class:`InvalidInputError` (a ValueError) for a NUL
    inside it (NVRTC reads a
    C string: it would silently compile only the text before the NUL)."""
    source = source.rstrip(b"\0")
    at = source.find(b"\0")
    if at >= 0:
        line = source.count(b"\n", 0, at) + 1
        column = at - (source.rfind(b"\n", 0, at) + 1) + 1
        raise InvalidInputError(name, "CUDA C++", f"a NUL byte at line {line}, column {column} (offset {at}); "
                                "NVRTC would silently compile only the text before it")
    return source


def compile_cuda(source: Any, *, name: Any = None, arch: str = "sm_90", lto: bool = False, include_dirs: Any = (),
                 options: Any = (), relocatable: bool = True, cuda_include_path: Any = None, cubin: bool = False,
                 isolate: bool = False, timeout: Any = None) -> Any:
    """Compile CUDA C++ with NVRTC; returns ``PTXSource``, with ``lto=True`` ``LTOIR``,
    with ``cubin=True`` a ``Cubin`` for ``arch`` (relocatable unless ``relocatable=False``).

    ``source``: str, bytes or a :class:`CUSource` (whose name is the default
    ``name``).  ``arch``: ``"sm_90"`` or ``(9, 0)``.  ``include_dirs``: user
    header directories, searched before the CUDA headers.  ``options``: extra
    NVRTC flags.  ``relocatable``: ``-rdc=true`` (needed to link device
    functions across inputs).  ``cuda_include_path``: replaces the wheel's CUDA
    headers (the runtime passes ``CUDALITE_CUDA_INCLUDE_PATH`` here).
    ``isolate=True`` compiles in the isolated child process (NVRTC cannot hang or
    crash this one), bounded by ``timeout`` seconds (None or 0: no bound).

    Parameters
    ----------
    source : str, bytes or CUSource
        The CUDA C++ source.
    name : str, optional
        The source's name in diagnostics.
    arch : str, int or tuple, optional
        The target (default ``"sm_90"``).
    lto : bool, optional
        Produce LTO-IR (``-dlto``).
    include_dirs : sequence of path, optional
        User header directories.
    options : sequence of str, optional
        Extra NVRTC flags.
    relocatable : bool, optional
        ``-rdc=true`` (default True).
    cuda_include_path : str, optional
        Replaces the wheels' CUDA header directories.
    cubin : bool, optional
        Produce a cubin instead of PTX.
    isolate : bool, optional
        Run NVRTC in the isolated child process (default False: in this process).
    timeout : float, optional
        With ``isolate``, the seconds NVRTC may run before the child is killed.

    Returns
    -------
    PTXSource, LTOIR or Cubin

    Raises
    ------
    TypeError
        If ``source`` has another type.
    ValueError
        If both ``lto`` and ``cubin`` are set or ``arch`` is invalid;
        :class:`InvalidInputError` if the source has a NUL byte before its end or
        includes a file that is not a regular file (a FIFO, a device).
    NvrtcError
        If NVRTC fails to compile the source.
    LinkTimeout
        If an isolated compile runs past ``timeout`` seconds.
    ToolNotFoundError
        If NVRTC cannot be loaded.
    """
    callbacks = {}
    if isinstance(source, CUSource):
        name = name or source.name
        callbacks = {"setup_callback": source.setup_callback, "teardown_callback": source.teardown_callback}
        source = source.data
    elif isinstance(source, str):
        source = source.encode()
    elif not isinstance(source, (bytes, bytearray)):
        raise TypeError(f"compile_cuda takes str, bytes or CUSource, not {type(source).__name__}")
    name = name or CUSource.default_name
    source = _without_nul(bytes(source), name)
    if lto and cubin:
        raise ValueError("compile_cuda: lto=True and cubin=True exclude each other")
    sm = normalize_arch(arch)
    opts = [f"-arch={sm}"]
    if relocatable:
        opts.append("-rdc=true")
    if lto:
        opts.append("-dlto")
    include_dirs = tuple(os.fspath(d) for d in include_dirs)
    options = tuple(options)
    if isolate:
        from ._isolated import can_isolate, link_server  # lazy: only isolated compiles need it

        if can_isolate():
            data = link_server().compile(source, name=name, arch=sm, lto=lto, include_dirs=include_dirs,
                                         options=options, relocatable=relocatable,
                                         cuda_include_path=cuda_include_path, cubin=cubin, timeout=timeout)
            return _result(data, name, lto, cubin, callbacks)
    cuda_dirs = cuda_include_dirs(cuda_include_path)
    user_dirs = include_dirs + tuple(o[2:] for o in options if isinstance(o, str) and o.startswith("-I") and o[2:])
    _check_includes(source, name, user_dirs + cuda_dirs, skip_dirs=cuda_dirs)
    opts += [f"-I{d}" for d in include_dirs]
    opts += [f"-I{d}" for d in cuda_dirs]
    opts += list(options)

    nvrtc = _nvrtc()
    _, prog = _check(nvrtc.nvrtcCreateProgram(bytes(source), name.encode(), 0, [], []), "nvrtcCreateProgram")
    try:
        result = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        raw_log = _buffer(nvrtc, prog, nvrtc.nvrtcGetProgramLogSize, nvrtc.nvrtcGetProgramLog)
        log = raw_log.rstrip(b"\0").decode(errors="replace")
        if int(result[0]) != 0:
            raise _failure(name, log)
        if cubin:
            data = _buffer(nvrtc, prog, nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN)
        elif lto:
            data = _buffer(nvrtc, prog, nvrtc.nvrtcGetLTOIRSize, nvrtc.nvrtcGetLTOIR)
        else:
            data = _buffer(nvrtc, prog, nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX)
        return _result(data, name, lto, cubin, callbacks)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _result(data: bytes, name: str, lto: bool, cubin: bool, callbacks: dict):
    """NVRTC's output as linkable code named after the source."""
    stem = os.path.splitext(os.path.basename(name))[0] or "cuda"
    if cubin:
        return Cubin(data, name=f"{stem}.cubin", **callbacks)
    if lto:
        return LTOIR(data, name=f"{stem}.ltoir", **callbacks)
    return PTXSource(data.rstrip(b"\0"), name=f"{stem}.ptx", **callbacks)
