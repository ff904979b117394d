"""The one place cudalite.cuda reads the environment.

:func:`load_config` returns a frozen :class:`Config` read from ``os.environ`` (or a
mapping given for tests).  Nothing is cached here: callers read it where it is
needed, outside hot paths.

* ``CUDALITE_DISABLE_CUDA`` -- ``1`` makes :func:`cudalite.cuda.is_available` return
  False (numba's ``NUMBA_DISABLE_CUDA``).
* ``CUDALITE_CUDA_ARRAY_INTERFACE_SYNC`` -- ``0`` stops :func:`cudalite.cuda.as_cuda_array`
  and :func:`~cudalite.cuda.from_cuda_array_interface` from synchronizing the stream
  an imported ``__cuda_array_interface__`` names (default ``1``, numba's
  ``NUMBA_CUDA_ARRAY_INTERFACE_SYNC``).
* ``CUDALITE_CUDA_WARN_ON_IMPLICIT_COPY`` -- ``0`` silences the performance warning for
  NumPy arrays copied to and from the device around a launch (default ``1``).
* ``CUDALITE_CUDA_LOW_OCCUPANCY_WARNINGS`` -- ``0`` silences the performance warning for
  a launch configuration of fewer than 128 blocks (default ``1``, numba's
  ``NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS``).
* ``CUDALITE_DISABLE_PERFORMANCE_WARNINGS`` -- ``1`` silences all performance warnings.
* ``CUDALITE_CACHE`` -- ``1`` caches every kernel on disk (as ``@cuda.jit(cache=True)``).
* ``CUDALITE_CACHE_DIR`` -- cudalite's cache root (shared with the driver's launch
  shim); kernels go to ``<root>/kernels``.  Default ``$XDG_CACHE_HOME/cudalite`` or
  ``~/.cache/cudalite``, else ``<temp dir>/cudalite-<uid>``: never a relative path
  (:func:`cudalite.driver.config.default_cache_dir`).
* ``CUDALITE_CACHE_MAX_SIZE`` -- the kernel cache's size cap in bytes (suffixes ``K``,
  ``M``, ``G``: powers of 1024; ``0``: no cap); default 1G.  After a store the least
  recently used entries are removed until the directory is under the cap.
* ``CUDALITE_TIMINGS`` -- ``1`` prints per-stage compile times to stderr.
* ``CUDALITE_ENABLE_CUDASIM`` (alias ``NUMBA_ENABLE_CUDASIM``) -- ``1`` makes
  ``cudalite.cuda`` the CPU simulator (:mod:`cudalite.cuda.simulator`): kernels run as
  Python on the CPU.  Read once, when ``cudalite.cuda`` is first imported; when both
  are set, ``CUDALITE_ENABLE_CUDASIM`` wins.
* ``CUDALITE_CUDA_DEBUGINFO`` -- ``1`` makes ``debug=True`` the default of
  ``cuda.jit`` (a ``debug=`` given to ``cuda.jit`` still wins; numba's
  ``NUMBA_CUDA_DEBUGINFO``).
* ``CUDALITE_BOUNDSCHECK`` (alias ``NUMBA_BOUNDSCHECK``) -- ``1`` turns bounds checking
  on for every kernel, ``0`` off for every kernel, whatever ``boundscheck=`` the
  decorator says (numba's meaning of ``NUMBA_BOUNDSCHECK``: a global override); unset
  or empty, each kernel's ``boundscheck=`` decides (default off).  When both are set,
  ``CUDALITE_BOUNDSCHECK`` wins.

Every boolean switch is read by :func:`cudalite.core.switches.parse_bool` (re-exported
here): ``1/true/yes/on`` and ``0/false/no/off``, any case; another value is a
:class:`ValueError` naming the variable.  The compile target's default,
``CUDALITE_DEFAULT_CC``, belongs to :mod:`cudalite.nvvm.config`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from cudalite.core.switches import parse_bool
from cudalite.driver.config import default_cache_dir

__all__ = ["Config", "load_config", "parse_bool", "parse_size", "kernel_cache_dir", "simulator_enabled"]


@dataclass(frozen=True)
class Config:
    disable_cuda: bool = False
    cuda_array_interface_sync: bool = True
    warn_on_implicit_copy: bool = True
    low_occupancy_warnings: bool = True
    disable_performance_warnings: bool = False
    cache: bool = False
    cache_dir: str = ""  # CUDALITE_CACHE_DIR ("": the default root); see kernel_cache_dir()
    cache_max_size: int = 1 << 30  # CUDALITE_CACHE_MAX_SIZE, bytes (0: no cap)
    timings: bool = False
    debuginfo_default: bool = False
    enable_cudasim: bool = False  # CUDALITE_ENABLE_CUDASIM (alias NUMBA_ENABLE_CUDASIM)
    boundscheck: bool | None = None  # CUDALITE_BOUNDSCHECK (alias NUMBA_BOUNDSCHECK); None: unset
    toolchain_env: tuple = ()  # (name, value) of the set variables that choose the CUDA libraries


def load_config(environ=None) -> Config:
    """Read the configuration from ``environ`` (default ``os.environ``)."""
    env = os.environ if environ is None else environ

    def flag(name, default):
        return parse_bool(name, env.get(name), default)

    return Config(
        disable_cuda=flag("CUDALITE_DISABLE_CUDA", False),
        cuda_array_interface_sync=flag("CUDALITE_CUDA_ARRAY_INTERFACE_SYNC", True),
        warn_on_implicit_copy=flag("CUDALITE_CUDA_WARN_ON_IMPLICIT_COPY", True),
        low_occupancy_warnings=flag("CUDALITE_CUDA_LOW_OCCUPANCY_WARNINGS", True),
        disable_performance_warnings=flag("CUDALITE_DISABLE_PERFORMANCE_WARNINGS", False),
        cache=flag("CUDALITE_CACHE", False),
        cache_dir=env.get("CUDALITE_CACHE_DIR", ""),
        cache_max_size=parse_size("CUDALITE_CACHE_MAX_SIZE", env.get("CUDALITE_CACHE_MAX_SIZE"), 1 << 30),
        timings=flag("CUDALITE_TIMINGS", False),
        debuginfo_default=flag("CUDALITE_CUDA_DEBUGINFO", False),
        enable_cudasim=flag("CUDALITE_ENABLE_CUDASIM", flag("NUMBA_ENABLE_CUDASIM", False)),
        boundscheck=flag("CUDALITE_BOUNDSCHECK", flag("NUMBA_BOUNDSCHECK", None)),
        toolchain_env=tuple((k, env[k]) for k in _TOOLCHAIN_VARS if env.get(k)),
    )


def simulator_enabled(environ=None) -> bool:
    """Whether ``CUDALITE_ENABLE_CUDASIM`` (else ``NUMBA_ENABLE_CUDASIM``) asks for the simulator."""
    env = os.environ if environ is None else environ
    return parse_bool("CUDALITE_ENABLE_CUDASIM", env.get("CUDALITE_ENABLE_CUDASIM"),
                      parse_bool("NUMBA_ENABLE_CUDASIM", env.get("NUMBA_ENABLE_CUDASIM"), False))


_SIZE_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20,
               "MIB": 1 << 20, "G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30, "T": 1 << 40, "TB": 1 << 40,
               "TIB": 1 << 40}


def parse_size(name, text, default):
    """A byte count from ``text`` (``"500M"``, ``"2G"``, ``"1048576"``; units are powers
    of 1024, any case); ``default`` when unset or empty; a :class:`ValueError` naming the
    variable otherwise."""
    if text is None or not text.strip():
        return default
    raw = text.strip().upper()
    digits = raw.rstrip("BKMGTI")
    unit = raw[len(digits):]
    try:
        value = float(digits)
    except ValueError:
        value = -1.0
    if unit not in _SIZE_UNITS or not 0 <= value < 1 << 62:  # NaN and inf fail too
        raise ValueError(f"{name}={text!r}: expected a size in bytes such as 500M, 2G or 0 (no cap)")
    return int(value * _SIZE_UNITS[unit])


_TOOLCHAIN_VARS = ("CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX", "LD_LIBRARY_PATH")


def kernel_cache_dir(environ=None) -> str:
    """``$CUDALITE_CACHE_DIR/kernels``, else ``$XDG_CACHE_HOME/cudalite/kernels`` or
    ``~/.cache/cudalite/kernels``."""

    env = os.environ if environ is None else environ
    root = env.get("CUDALITE_CACHE_DIR")
    return os.path.join(os.path.abspath(root) if root else default_cache_dir(env), "kernels")
