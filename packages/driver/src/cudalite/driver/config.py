"""The one place cudalite.driver reads the environment.

* ``CUDALITE_LAUNCH_BACKEND`` -- how :class:`~cudalite.driver.Launcher` calls
  ``cuLaunchKernel``: ``bindings`` (default, fastest measured:
  ``cuda.bindings.driver.cuLaunchKernel``), ``cffi`` (an ABI-mode cffi call into
  libcuda) or ``ctypes``.
* ``CUDALITE_LIBCUDA`` -- the libcuda to dlopen for the cffi/ctypes backends
  (default ``libcuda.so.1``; ``nvcuda.dll`` on Windows).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

__all__ = ["Config", "load_config", "LAUNCH_BACKENDS", "DEFAULT_LIBCUDA"]

LAUNCH_BACKENDS = ("cffi", "bindings", "ctypes")
DEFAULT_LIBCUDA = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"


@dataclass(frozen=True)
class Config:
    launch_backend: str = "bindings"
    libcuda: str = DEFAULT_LIBCUDA


def _parse_backend(text):
    value = (text or "").strip().lower()
    if not value:
        return "bindings"
    if value not in LAUNCH_BACKENDS:
        raise ValueError(f"CUDALITE_LAUNCH_BACKEND={text!r}: expected one of {', '.join(LAUNCH_BACKENDS)}")
    return value


def load_config(environ=None) -> Config:
    """Read the configuration from ``environ`` (default ``os.environ``)."""
    env = os.environ if environ is None else environ
    return Config(
        launch_backend=_parse_backend(env.get("CUDALITE_LAUNCH_BACKEND")),
        libcuda=env.get("CUDALITE_LIBCUDA") or DEFAULT_LIBCUDA,
    )
