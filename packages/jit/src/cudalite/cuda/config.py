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

numba's spelling of each of these switches (the numba-cuda column of docs/envvars.md:
``NUMBA_DISABLE_CUDA``, ``NUMBA_CUDA_DEBUGINFO``, ...) is an alias; the ``CUDALITE_*``
spelling wins when both are set.  The numba variables that would change results and
have no cudalite meaning (:data:`IGNORED_NUMBA_VARIABLES`) are named in one warning
when ``cudalite.cuda`` is imported (:func:`simulator_enabled` issues it).

Every ``CUDALITE_*`` boolean switch is read by :func:`cudalite.core.switches.parse_bool`
(re-exported here): ``1/true/yes/on`` and ``0/false/no/off``, any case; another value is a
:class:`ValueError` naming the variable.  A ``NUMBA_*`` alias is read as numba reads it,
an integer (non-zero: on), and also takes those words.  The compile target's default,
``CUDALITE_DEFAULT_CC``, belongs to :mod:`cudalite.nvvm.config`.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import Any

from cudalite.core.switches import parse_bool
from cudalite.driver.config import default_cache_dir

__all__ = ["Config", "load_config", "parse_bool", "parse_size", "kernel_cache_dir", "simulator_enabled",
           "IGNORED_NUMBA_VARIABLES", "ignored_numba_variables"]

# numba(-cuda) variables that change what numba computes or where, with no cudalite
# counterpart: named in a warning at import (docs/envvars.md explains each)
IGNORED_NUMBA_VARIABLES = (
    "NUMBA_CACHE_DIR",  # cudalite's cache has its own layout: CUDALITE_CACHE_DIR
    "NUMBA_CUDA_DRIVER",  # libcuda path: CUDALITE_LIBCUDA (cffi/ctypes launch backends)
    "NUMBA_CUDA_INCLUDE_PATH",  # CUDALITE_CUDA_INCLUDE_PATH (cudalite.linker.config)
    "NUMBA_CUDA_MEMORY_MANAGER",  # no external memory-manager plugins
    "NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS",  # CUDALITE_NVRTC_EXTRA_SEARCH_PATHS (cudalite.linker.config)
    "NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM",  # the default stream is always the legacy one
    "NUMBA_OPT",  # the optimization level is each kernel's opt= (default 3)
)


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


def load_config(environ: Any = None) -> Config:
    """Read the configuration from ``environ`` (default ``os.environ``)."""
    env = os.environ if environ is None else environ

    def flag(name, default, numba=None):  # numba: numba's spelling, the alias
        return parse_bool(name, env.get(name), _numba_flag(env, numba, default) if numba else default)

    return Config(
        disable_cuda=flag("CUDALITE_DISABLE_CUDA", False, "NUMBA_DISABLE_CUDA"),
        cuda_array_interface_sync=flag("CUDALITE_CUDA_ARRAY_INTERFACE_SYNC", True, "NUMBA_CUDA_ARRAY_INTERFACE_SYNC"),
        warn_on_implicit_copy=flag("CUDALITE_CUDA_WARN_ON_IMPLICIT_COPY", True, "NUMBA_CUDA_WARN_ON_IMPLICIT_COPY"),
        low_occupancy_warnings=flag("CUDALITE_CUDA_LOW_OCCUPANCY_WARNINGS", True, "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS"),
        disable_performance_warnings=flag("CUDALITE_DISABLE_PERFORMANCE_WARNINGS", False,
                                          "NUMBA_DISABLE_PERFORMANCE_WARNINGS"),
        cache=flag("CUDALITE_CACHE", False),
        cache_dir=env.get("CUDALITE_CACHE_DIR", ""),
        cache_max_size=parse_size("CUDALITE_CACHE_MAX_SIZE", env.get("CUDALITE_CACHE_MAX_SIZE"), 1 << 30),
        timings=flag("CUDALITE_TIMINGS", False),
        debuginfo_default=flag("CUDALITE_CUDA_DEBUGINFO", False, "NUMBA_CUDA_DEBUGINFO"),
        enable_cudasim=simulator_enabled(env, warn=False),
        boundscheck=flag("CUDALITE_BOUNDSCHECK", None, "NUMBA_BOUNDSCHECK"),
        toolchain_env=tuple((k, env[k]) for k in _TOOLCHAIN_VARS if env.get(k)),
    )


def simulator_enabled(environ: Any = None, warn: bool = True) -> bool:
    """Whether ``CUDALITE_ENABLE_CUDASIM`` (else ``NUMBA_ENABLE_CUDASIM``) asks for the simulator.

    Read when ``cudalite.cuda`` is imported, so it is also where the numba variables
    cudalite ignores are reported (``warn``): one :class:`UserWarning` naming them, shown
    once by Python's default warning filter (one warning location, here, whoever calls)."""
    env = os.environ if environ is None else environ
    if warn:
        ignored = ignored_numba_variables(env)
        if ignored:
            warnings.warn(f"cudalite ignored these numba environment variables: {', '.join(ignored)} "
                          "(cudalite has no equivalent setting; see docs/envvars.md)", UserWarning, stacklevel=1)
    return parse_bool("CUDALITE_ENABLE_CUDASIM", env.get("CUDALITE_ENABLE_CUDASIM"),
                      _numba_flag(env, "NUMBA_ENABLE_CUDASIM", False))


def ignored_numba_variables(environ: Any = None) -> tuple:
    """The names in :data:`IGNORED_NUMBA_VARIABLES` set (non-empty) in ``environ``, sorted."""
    env = os.environ if environ is None else environ
    return tuple(name for name in IGNORED_NUMBA_VARIABLES if env.get(name, "").strip())


def _numba_flag(env, name, default):
    """numba's alias ``name`` as a bool, read as numba reads it: an integer (non-zero is
    on; ``NUMBA_ENABLE_CUDASIM=2`` is on), or one of :func:`parse_bool`'s words; unset or
    empty: ``default``; else a :class:`ValueError` naming the variable."""
    text = env.get(name)
    value = (text or "").strip()
    if not value:
        return default
    try:
        return int(value) != 0
    except ValueError:
        pass
    try:
        return parse_bool(name, value, default)
    except ValueError:
        raise ValueError(f"{name}={text!r}: expected an integer (0: off, another: on, as numba reads it) "
                         "or a boolean switch such as on/off") from None


_SIZE_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20,
               "MIB": 1 << 20, "G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30, "T": 1 << 40, "TB": 1 << 40,
               "TIB": 1 << 40}


def parse_size(name: Any, text: Any, default: Any) -> Any:
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


def kernel_cache_dir(environ: Any = None) -> str:
    """``$CUDALITE_CACHE_DIR/kernels``, else ``$XDG_CACHE_HOME/cudalite/kernels`` or
    ``~/.cache/cudalite/kernels``."""

    env = os.environ if environ is None else environ
    root = env.get("CUDALITE_CACHE_DIR")
    return os.path.join(os.path.abspath(root) if root else default_cache_dir(env), "kernels")
