"""The one place cudalite.linker reads the environment.

* ``CUDALITE_CUDA_INCLUDE_PATH``: directories (``os.pathsep``-separated) with
  the CUDA headers NVRTC should use instead of the ones in the pip wheels.
* ``CUDALITE_NVRTC_EXTRA_SEARCH_PATHS``: more directories (``os.pathsep``-separated)
  NVRTC searches for ``#include`` files of CUDA C++ link sources, after each
  source's own folder (numba's ``NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS``).
* ``CUDALITE_LINK_ISOLATION``: run NVRTC on CUDA C++ link sources and nvJitLink on
  untrusted binary inputs in the isolated child process (default on).
* ``CUDALITE_LINK_TIMEOUT``: seconds an isolated job (one NVRTC compile or one
  nvJitLink link in the child) may run before the child is killed (default 600;
  ``0``: no bound).

Nothing else in the package reads ``os.environ``; the functions take these
values as arguments, and a runtime passes ``load_config().cuda_include_path``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["Config", "load_config"]


@dataclass(frozen=True)
class Config:
    cuda_include_path: str | None = None
    isolate: bool = True
    extra_search_paths: tuple = ()
    link_timeout: float = 600.0   # seconds; 0.0 = no bound


_FALSE, _TRUE = ("0", "false", "no", "off"), ("1", "true", "yes", "on")


def _flag(env, name: str, default: bool) -> bool:
    value = env.get(name)
    if value is None or value.strip() == "":
        return default
    if value.strip().lower() in _TRUE:
        return True
    if value.strip().lower() in _FALSE:
        return False
    raise ValueError(f"{name}={value!r}: expected 1/true/yes/on or 0/false/no/off")


def _seconds(env, name: str, default: float) -> float:
    value = env.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0 or seconds == float("inf"):  # also NaN
        raise ValueError(f"{name}={value!r}: expected a number of seconds >= 0 (0: no bound)")
    return seconds


def load_config(environ=None) -> Config:
    env = os.environ if environ is None else environ
    return Config(cuda_include_path=env.get("CUDALITE_CUDA_INCLUDE_PATH") or None,
                  isolate=_flag(env, "CUDALITE_LINK_ISOLATION", True),
                  extra_search_paths=tuple(p for p in env.get("CUDALITE_NVRTC_EXTRA_SEARCH_PATHS", "").split(os.pathsep)
                                           if p),
                  link_timeout=_seconds(env, "CUDALITE_LINK_TIMEOUT", 600.0))
