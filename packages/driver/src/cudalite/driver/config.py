"""The one place cudalite.driver reads the environment.

* ``CUDALITE_LAUNCH_BACKEND`` -- how :class:`~cudalite.driver.Launcher` calls
  ``cuLaunchKernel``: ``shim`` (a tiny C function, compiled into the cudalite-driver
  wheel with cffi's API mode, or on first use for a source install, calling libcuda's
  entry point from C; falls back to ``bindings`` with one ``ShimFallbackWarning`` when
  neither is available), ``bindings``
  (``cuda.bindings.driver.cuLaunchKernel``), ``cffi`` (an ABI-mode cffi call into
  libcuda) or ``ctypes``.  The default is :data:`DEFAULT_LAUNCH_BACKEND`.
* ``CUDALITE_LIBCUDA`` -- the libcuda to dlopen for the cffi/ctypes backends
  (default ``libcuda.so.1``; ``nvcuda.dll`` on Windows).
* ``CUDALITE_CACHE_DIR`` -- where compiled helpers (the launch shim) are cached
  (a relative path is taken from the working directory at start-up); default
  ``$XDG_CACHE_HOME/cudalite`` (an absolute ``XDG_CACHE_HOME`` only, as the XDG spec
  says), else ``$HOME/.cache/cudalite`` (the password database's home when ``HOME``
  is unset), else ``<temp dir>/cudalite-<uid>`` -- never a relative path.  Directories
  cudalite creates there are 0700; one not owned by the user or writable by group
  or others is refused (:mod:`cudalite.driver.cachedir`, docs/cache.md).
* ``CUDALITE_CC`` (else ``CC``) -- the C compiler command for the launch shim;
  default: the first of ``cc``, ``gcc``, ``clang`` on ``PATH``.
* ``CUDALITE_MEMORY_POOL`` -- ``0`` (``false``, ``no``, ``off``) makes ``alloc(n,
  pool=True)`` a plain ``cuMemAlloc`` (freed with ``cuMemFree`` when the memory object
  dies) instead of a block of the device's pool (:mod:`cudalite.driver.pool`); default
  ``1``.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

__all__ = ["Config", "load_config", "LAUNCH_BACKENDS", "DEFAULT_LAUNCH_BACKEND", "DEFAULT_LIBCUDA",
           "default_cache_dir"]

LAUNCH_BACKENDS = ("shim", "cffi", "bindings", "ctypes")
DEFAULT_LAUNCH_BACKEND = "shim"  # fastest in benchmarks/launch.py (H100: 1.01-1.03x floor vs 1.13-1.14x)
DEFAULT_LIBCUDA = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"


def default_cache_dir(environ=None) -> str:
    """``$XDG_CACHE_HOME/cudalite`` (``%LOCALAPPDATA%`` on Windows), else
    ``$HOME/.cache/cudalite``, else a per-user ``cudalite-<uid>`` in the system temp
    directory: always an absolute path (a relative ``XDG_CACHE_HOME`` is ignored, as the
    XDG spec says, and a container user with no ``HOME`` and no password entry gets the
    temp directory, not a literal ``./~/.cache``)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME") or (env.get("LOCALAPPDATA") if sys.platform == "win32" else None)
    if base and os.path.isabs(base):
        return os.path.join(base, "cudalite")
    home = env.get("HOME") or _passwd_home()
    if home and os.path.isabs(home):
        return os.path.join(home, ".cache", "cudalite")
    import tempfile

    user = os.getuid() if hasattr(os, "getuid") else (env.get("USERNAME") or env.get("USER") or "user")
    return os.path.join(tempfile.gettempdir(), f"cudalite-{user}")


def _passwd_home() -> str:
    """The home directory the system knows for this user ("" if none: ``~`` stays ``~``)."""
    home = os.path.expanduser("~")
    return "" if home == "~" else home


@dataclass(frozen=True)
class Config:
    launch_backend: str = DEFAULT_LAUNCH_BACKEND
    libcuda: str = DEFAULT_LIBCUDA
    cache_dir: str = ""  # "" -> default_cache_dir()
    cc: str = ""  # "" -> search cc, gcc, clang
    memory_pool: bool = True  # CUDALITE_MEMORY_POOL


def _parse_flag(name, text, default):
    value = (text or "").strip().lower()
    if not value:
        return default
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name}={text!r}: expected 1/true/yes/on or 0/false/no/off")


def _parse_backend(text):
    value = (text or "").strip().lower()
    if not value:
        return DEFAULT_LAUNCH_BACKEND
    if value not in LAUNCH_BACKENDS:
        raise ValueError(f"CUDALITE_LAUNCH_BACKEND={text!r}: expected one of {', '.join(LAUNCH_BACKENDS)}")
    return value


def load_config(environ=None) -> Config:
    """Read the configuration from ``environ`` (default ``os.environ``)."""
    env = os.environ if environ is None else environ
    return Config(
        launch_backend=_parse_backend(env.get("CUDALITE_LAUNCH_BACKEND")),
        libcuda=env.get("CUDALITE_LIBCUDA") or DEFAULT_LIBCUDA,
        cache_dir=os.path.abspath(env["CUDALITE_CACHE_DIR"]) if env.get("CUDALITE_CACHE_DIR")
        else default_cache_dir(env),
        cc=env.get("CUDALITE_CC") or env.get("CC") or "",
        memory_pool=_parse_flag("CUDALITE_MEMORY_POOL", env.get("CUDALITE_MEMORY_POOL"), True),
    )
