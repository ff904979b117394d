"""The only module that talks to libNVVM (through ``cuda.bindings.nvvm``).

libNVVM and libdevice come from the ``nvidia-nvvm`` wheel, found by
cuda-pathfinder; no CUDA toolkit installation and no GPU driver are needed.
libdevice is added lazily, and only to modules that call ``__nv_*`` functions.
"""

from __future__ import annotations

import functools
import logging

from cudalite.core.errors import NvvmError

__all__ = ["compile_ir", "ir_version", "nvvm_version", "libdevice_path", "verify_ir"]

_logger = logging.getLogger(__name__)


def _nvvm():
    try:
        from cuda.bindings import nvvm
    except ImportError as e:  # pragma: no cover - packaging error
        raise NvvmError("cuda-bindings with libNVVM support is not installed "
                        "(pip install cudalite-nvvm pulls it in)") from e
    return nvvm


@functools.lru_cache(maxsize=None)
def ir_version() -> tuple:
    """``(major, minor, debug_major, debug_minor)`` for ``!nvvmir.version``."""
    return tuple(_nvvm().ir_version())


@functools.lru_cache(maxsize=None)
def nvvm_version() -> tuple:
    version = tuple(_nvvm().version())
    _logger.debug("libNVVM %s, NVVM IR %s", ".".join(map(str, version)), ".".join(map(str, ir_version())))
    return version


@functools.lru_cache(maxsize=None)
def libdevice_path() -> str:
    from cuda.pathfinder import find_bitcode_lib

    path = find_bitcode_lib("device")
    _logger.debug("libdevice: %s (cuda-pathfinder)", path)
    return path


@functools.lru_cache(maxsize=None)
def _libdevice_bytes() -> bytes:
    with open(libdevice_path(), "rb") as f:
        return f.read()


def _log(nvvm, prog) -> str:
    size = nvvm.get_program_log_size(prog)
    if size <= 1:
        return ""
    buf = bytearray(size)
    nvvm.get_program_log(prog, buf)
    return bytes(buf).rstrip(b"\0").decode(errors="replace")


def _run(ir_text: str, options, with_libdevice: bool, verify_only=False) -> bytes:
    nvvm = _nvvm()
    prog = nvvm.create_program()
    try:
        data = ir_text.encode()
        nvvm.add_module_to_program(prog, data, len(data), "cudalite")
        if with_libdevice:
            ld = _libdevice_bytes()
            nvvm.lazy_add_module_to_program(prog, ld, len(ld), "libdevice")
        opts = list(options)
        stage = "verify"
        try:
            nvvm.verify_program(prog, len(opts), opts)
            if verify_only:
                return b""
            stage = "compile"
            nvvm.compile_program(prog, len(opts), opts)
        except nvvm.nvvmError as e:
            raise NvvmError(f"libNVVM failed to {stage} the module ({e})", _log(nvvm, prog), ir_text) from None
        size = nvvm.get_compiled_result_size(prog)
        buf = bytearray(size)
        nvvm.get_compiled_result(prog, buf)
        return bytes(buf)
    finally:
        nvvm.destroy_program(prog)


def compile_ir(ir_text: str, options, with_libdevice: bool) -> bytes:
    """Compile NVVM IR text to PTX (NUL-stripped bytes) or LTO-IR (``-gen-lto``)."""
    out = _run(ir_text, options, with_libdevice)
    if "-gen-lto" not in options:
        out = out.rstrip(b"\0")
    return out


def verify_ir(ir_text: str, options, with_libdevice: bool) -> None:
    _run(ir_text, options, with_libdevice, verify_only=True)
