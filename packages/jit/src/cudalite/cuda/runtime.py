"""``cuda.runtime``: the CUDA toolkit version (numba's ``runtime`` object).

numba reads the toolkit version from NVRTC; so does this module:
``cuda.runtime.get_version()`` is ``(major, minor)`` of the NVRTC that cudalite uses,
``is_supported_version()`` is True for CUDA 12 and 13 (the majors cudalite is tested
with).  GPU-less: no driver call.
"""

from __future__ import annotations

from typing import Any

__all__ = ["get_version", "is_supported_version", "SUPPORTED_TOOLKIT_MAJOR_VERSIONS"]

SUPPORTED_TOOLKIT_MAJOR_VERSIONS = (12, 13)


def get_version() -> Any:
    """``(major, minor)`` of the CUDA toolkit (NVRTC) cudalite compiles with."""
    from cudalite.linker import nvrtc_version  # lazy: NVRTC's version, read on request

    return tuple(nvrtc_version())


def is_supported_version() -> bool:
    """Whether the toolkit's major version is one cudalite supports."""
    return get_version()[0] in SUPPORTED_TOOLKIT_MAJOR_VERSIONS
