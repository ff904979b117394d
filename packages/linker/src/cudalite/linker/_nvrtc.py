"""The only module that talks to NVRTC: CUDA C++ source -> PTX or LTO-IR.

CUDA headers come from the pip wheels (``nvidia-cuda-runtime``,
``nvidia-cuda-crt``) located by cuda-pathfinder, never from /usr/local/cuda;
a caller may override them with ``cuda_include_path``.  On failure
:class:`NvrtcError` carries NVRTC's log and the first ``file(line)`` it names.
"""

from __future__ import annotations

import functools
import os
import re

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


def compile_cuda(source, *, name=None, arch="sm_90", lto=False, include_dirs=(), options=(),
                 relocatable=True, cuda_include_path=None, cubin=False):
    """Compile CUDA C++ with NVRTC; returns ``PTXSource``, with ``lto=True`` ``LTOIR``,
    with ``cubin=True`` a ``Cubin`` for ``arch`` (relocatable unless ``relocatable=False``).

    ``source``: str, bytes or a :class:`CUSource` (whose name is the default
    ``name``).  ``arch``: ``"sm_90"`` or ``(9, 0)``.  ``include_dirs``: user
    header directories, searched before the CUDA headers.  ``options``: extra
    NVRTC flags.  ``relocatable``: ``-rdc=true`` (needed to link device
    functions across inputs).  ``cuda_include_path``: replaces the wheel's CUDA
    headers (the runtime passes ``CUDALITE_CUDA_INCLUDE_PATH`` here).

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

    Returns
    -------
    PTXSource, LTOIR or Cubin

    Raises
    ------
    TypeError
        If ``source`` has another type.
    ValueError
        If both ``lto`` and ``cubin`` are set or ``arch`` is invalid;
        :class:`InvalidInputError` if the source has a NUL byte before its end.
    NvrtcError
        If NVRTC fails to compile the source.
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
    opts += [f"-I{d}" for d in include_dirs]
    opts += [f"-I{d}" for d in cuda_include_dirs(cuda_include_path)]
    opts += list(options)

    nvrtc = _nvrtc()
    _, prog = _check(nvrtc.nvrtcCreateProgram(bytes(source), name.encode(), 0, [], []), "nvrtcCreateProgram")
    try:
        result = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        log = _buffer(nvrtc, prog, nvrtc.nvrtcGetProgramLogSize, nvrtc.nvrtcGetProgramLog)
        log = log.rstrip(b"\0").decode(errors="replace")
        if int(result[0]) != 0:
            raise _failure(name, log)
        stem = os.path.splitext(os.path.basename(name))[0] or "cuda"
        if cubin:
            data = _buffer(nvrtc, prog, nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN)
            return Cubin(data, name=f"{stem}.cubin", **callbacks)
        if lto:
            data = _buffer(nvrtc, prog, nvrtc.nvrtcGetLTOIRSize, nvrtc.nvrtcGetLTOIR)
            return LTOIR(data, name=f"{stem}.ltoir", **callbacks)
        data = _buffer(nvrtc, prog, nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX)
        return PTXSource(data.rstrip(b"\0"), name=f"{stem}.ptx", **callbacks)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
