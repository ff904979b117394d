"""The compiled launch shim: libcuda's ``cuLaunchKernel``/``cuLaunchKernelEx`` called from C (cffi API mode).

An ABI-mode cffi call marshals its 11 arguments through libffi and a
``cuda.bindings`` call builds Python objects around the result; a cffi *API-mode*
extension converts the same ints in generated C and calls straight through a function
pointer.  This module owns that extension:

* :data:`C_SOURCE`/:data:`CDEF` (defined in :mod:`._shim_source`, shared with the
  wheel build in ``setup.py``) -- ``cl_launch(entry, f, gx, gy, gz, bx, by, bz, smem,
  stream, params)`` and ``cl_launch_ex(entry, config, f, params)`` call ``entry`` (the
  address of libcuda's ``cuLaunchKernel``/``cuLaunchKernelEx``, from
  ``cuGetProcAddress``; ``config`` the address of a ``CUlaunchConfig`` prepared at
  bind time, see :mod:`._launchex`), so the shim needs no CUDA header and no link to
  libcuda.  ``cl_probe``/``cl_probe_ex`` have the same signatures and record their
  arguments: the self-test run on every load (and the tests) call them instead of the
  driver.  A compiled shim of another ``ABI_VERSION`` (an older wheel's) fails the
  self-test and is not used.
* :func:`load_shim` -- the compiled module ``cudalite.driver._launch_shim`` that the
  wheel build put into the package (:func:`load_prebuilt`), self-tested; an install
  without one (a source install built without a compiler) falls back to
  :func:`load_runtime_build` and says so once with a ``ShimFallbackWarning``.
* :func:`load_runtime_build` -- compile on first use into the cache directory
  (``<cache>/driver-cpXY-<hash of source, cffi, ABI and layout>/``, created 0700),
  atomically: the C code is compiled in a private temporary directory inside it,
  hashed, imported and self-tested there, then published with ``os.replace`` -- the
  library as ``<name>-<sha256 prefix><suffix>``, then the build record
  ``<name>.sha256`` naming it (concurrent processes each publish a complete pair).
  The cache directory is untrusted input (docs/cache.md): a directory not owned by
  the user or writable by group/others is refused with a warning (no shim: the
  ``bindings`` backend), and a cached library is loaded -- its constructor runs --
  only after it is found to be a private regular file whose sha256 is the recorded
  one (else a warning and a rebuild).  A verified file that fails to import or to
  self-test is rebuilt; any failure (no compiler, no ``Python.h``, an unwritable
  cache directory) returns ``None`` and the caller falls back to ``bindings``.
* :func:`entry_points` -- the driver's function addresses.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import sysconfig
import time
import warnings
from dataclasses import dataclass
from typing import Any

from ._shim_source import ABI_VERSION, C_SOURCE, CDEF, PREBUILT_MODULE
from .logs import library_logger
from .errors import ShimFallbackWarning
from .cachedir import UntrustedCacheWarning, dir_refusal, make_private_dirs, read_regular, refusal_message

__all__ = ["C_SOURCE", "CDEF", "ABI_VERSION", "LAYOUT", "Shim", "ShimError", "ShimFiles", "shim_location",
           "load_shim", "load_prebuilt", "compiled_shim_path", "load_runtime_build", "load_verified", "build_shim",
           "find_compiler", "entry_points"]


LAYOUT = 2  # the cache layout: a build record naming a library whose name carries its hash
_MAX_LIBRARY = 64 << 20  # bytes: a larger file is not our shim

class ShimError(RuntimeError):
    """The shim could not be built or loaded (callers fall back to ``bindings``)."""


@dataclass(frozen=True)
class Shim:
    """A loaded, self-tested shim: ``lib.cl_launch``/``lib.cl_launch_ex``, and
    ``checked``/``direct``, the makers of checked and direct launches (:mod:`.checked`)."""

    lib: object
    ffi: object
    path: str
    checked: object = None
    direct: object = None


@dataclass(frozen=True)
class ShimFiles:
    """Where the shim of this Python, cffi and source lives: ``directory`` (made 0700)
    holds the build record ``<name>.sha256`` (``sha256sum`` format) naming the library
    ``<name>-<first 16 hex digits of its sha256><suffix>``.  The library's name carries
    its hash, so concurrent builders never leave a record naming other bytes."""

    name: str  # the extension's module name (its init function is PyInit_<name>)
    directory: str
    suffix: str

    @property
    def record(self) -> str:
        return os.path.join(self.directory, self.name + ".sha256")

    def library(self, digest: str) -> str:
        return os.path.join(self.directory, f"{self.name}-{digest[:16]}{self.suffix}")


def shim_location(cache_dir: Any) -> ShimFiles:
    """The :class:`ShimFiles` of this Python, cffi, source and layout under ``cache_dir``."""
    import hashlib  # here, not at import: `import cudalite.driver` stays light
    # cffi's C backend (what the compiled shim imports) has cffi's version: loading a
    # cached shim does not import the pure-Python cffi package
    import _cffi_backend

    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    key = "\0".join([C_SOURCE, CDEF, _cffi_backend.__version__, suffix, sys.implementation.cache_tag or "",
                      f"layout {LAYOUT}"])
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return ShimFiles(f"_cudalite_launch_{digest}", os.path.join(os.fspath(cache_dir), f"driver-{tag}-{digest}"),
                     suffix)


def find_compiler(cc: str = "") -> Any:
    """The compiler command as a list (``cc`` from the config, else the first of cc,
    gcc, clang on PATH) with its program as an absolute path, or None."""
    import shlex
    import shutil  # here, not at import: only a shim build needs them
    if cc:
        cmd = shlex.split(cc)
        found = shutil.which(cmd[0]) if cmd else None
        return [os.path.abspath(found), *cmd[1:]] if found else None
    for name in ("cc", "gcc", "clang"):
        path = shutil.which(name)
        if path:
            return [os.path.abspath(path)]
    return None


def _self_test(module, path):
    """The :class:`Shim` of an imported shim module after its self-test (``cl_probe``
    stands in for the driver); ShimError if it fails."""
    lib, ffi = module.lib, module.ffi
    if lib.cl_abi_version() != ABI_VERSION:
        raise ShimError(f"{path}: ABI version {lib.cl_abi_version()} != {ABI_VERSION}")
    rec = ffi.new("uint64_t[16]")
    rec[11] = 17
    slot = ffi.new("uint64_t[1]", [0x1234])
    ok = lib.cl_launch(lib.cl_probe_address(), int(ffi.cast("uintptr_t", rec)), 1, 2, 3, 4, 5, 6, 7, 8,
                       int(ffi.cast("uintptr_t", slot)))
    if ok != 17 or list(rec[0:8]) != [1, 2, 3, 4, 5, 6, 7, 8] or rec[9] != 0x1234 or rec[10] != 0:
        raise ShimError(f"{path}: self-test failed")
    config = ffi.new("unsigned int[16]", [29])
    rec[11] = 19
    ok = lib.cl_launch_ex(lib.cl_probe_ex_address(), int(ffi.cast("uintptr_t", config)),
                          int(ffi.cast("uintptr_t", rec)), int(ffi.cast("uintptr_t", slot)))
    if (ok != 19 or rec[0] != int(ffi.cast("uintptr_t", config)) or rec[1] != 29
            or rec[2] != int(ffi.cast("uintptr_t", slot)) or rec[3] != 0x1234 or rec[4] != 0):
        raise ShimError(f"{path}: self-test of cl_launch_ex failed")
    from .checked import self_test

    makers = self_test(lib, ffi, rec, config)
    if makers is None:
        raise ShimError(f"{path}: self-test of the checked launch failed")
    return Shim(lib, ffi, path, *makers)


def _import(name, path):
    """Import the extension at ``path`` and self-test it; raise ShimError if unusable."""
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ShimError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return _self_test(module, path)
    except ShimError:
        raise
    except Exception as exc:  # ImportError, OSError (bad ELF), AttributeError ...
        raise ShimError(f"{path}: {type(exc).__name__}: {exc}") from None


def load_prebuilt(module_name: Any = PREBUILT_MODULE) -> Any:
    """The shim compiled into the installed package when its wheel was built
    (``setup.py``), self-tested; None when the install has none (a source install
    built without a compiler, or the source tree on ``sys.path``).  It is installed
    code like the rest of the package: no cache directory is involved."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    path = getattr(module, "__file__", None) or module_name
    try:
        return _self_test(module, path)
    except Exception as exc:
        library_logger(__name__).warning("the compiled launch shim %s is unusable (%s); building one at run time",
                                         path, exc)
        return None


def build_shim(files: ShimFiles, cc: str = "") -> Shim:
    """Compile the shim into a private temporary directory inside ``files.directory``,
    hash it, import and self-test it there, then publish it atomically: the library
    under its hash-carrying name first, then the record naming it."""
    import hashlib
    import shutil
    import subprocess
    import tempfile  # here, not at import: only a shim build needs them
    import cffi

    compiler = find_compiler(cc)
    if compiler is None:
        raise ShimError("no C compiler found")
    include = sysconfig.get_paths().get("include") or ""
    if not os.path.isfile(os.path.join(include, "Python.h")):
        raise ShimError(f"Python.h not found in {include!r}")
    make_private_dirs(files.directory)
    tmp = tempfile.mkdtemp(prefix=".build-", dir=files.directory)  # 0700: only this process writes here
    try:
        from cffi.recompiler import make_c_source

        ffi = cffi.FFI()
        ffi.cdef(CDEF)
        c_name, out_name = files.name + ".c", files.name + files.suffix
        make_c_source(ffi, files.name, C_SOURCE, os.path.join(tmp, c_name), verbose=False)  # quietly
        link = ["-bundle", "-undefined", "dynamic_lookup"] if sys.platform == "darwin" else ["-shared"]
        # relative names, run in tmp: the binary does not depend on the temporary directory's name
        cmd = compiler + ["-O2", "-fPIC", *link, "-I", include, c_name, "-o", out_name]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp)
        except (OSError, subprocess.SubprocessError) as exc:
            raise ShimError(f"{compiler[0]} failed to run: {exc}") from None
        if proc.returncode != 0:
            raise ShimError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
        out = os.path.join(tmp, out_name)
        os.chmod(out, 0o700)  # private whatever the umask
        data = read_regular(out, _MAX_LIBRARY)
        if data is None:
            raise ShimError(f"{out}: not a regular file of at most {_MAX_LIBRARY} bytes")
        digest = hashlib.sha256(data).hexdigest()
        shim = _import(files.name, out)  # our own build, verified before anyone else can see it
        library = files.library(digest)
        os.replace(out, library)
        record = os.path.join(tmp, "record")
        fd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(f"{digest}  {os.path.basename(library)}\n")
        os.replace(record, files.record)
        return Shim(shim.lib, shim.ffi, library, shim.checked, shim.direct)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _warn(message) -> None:
    warnings.warn(message, UntrustedCacheWarning, stacklevel=3)


def load_verified(files: ShimFiles) -> Any:
    """The cached shim, loaded only if its record and library are private regular files
    in ``files.directory`` (already judged trusted) and the library's sha256 is the one
    recorded when this install built it; None otherwise (never built here, or refused
    with a warning: the caller rebuilds).  Nothing of the file runs before the check."""
    import hashlib  # here, not at import: `import cudalite.driver` stays light
    if not os.path.lexists(files.record):
        return None
    blob = read_regular(files.record, 4096, private=True)
    digest = None
    if blob is not None:
        m = re.fullmatch(rb"([0-9a-f]{64})  ([!-~]+)\n", blob)
        if m and m.group(2).decode() == os.path.basename(files.library(m.group(1).decode())):
            digest = m.group(1).decode()
    if digest is None:
        _warn(f"cudalite: not loading the launch shim of {files.directory}: its build record {files.record} "
              f"is not a private regular file in the expected format; rebuilding it.")
        return None
    library = files.library(digest)
    data = read_regular(library, _MAX_LIBRARY, private=True)
    if data is None or hashlib.sha256(data).hexdigest() != digest:
        why = ("is missing or not a private regular file" if data is None
               else "does not match the sha256 recorded when cudalite built it")
        _warn(f"cudalite: not loading the launch shim {library}: it {why} ({files.record}); rebuilding it.")
        try:
            os.unlink(library)
        except OSError:
            pass
        return None
    try:
        return _import(files.name, library)
    except ShimError:
        return None  # our own build, unusable here (another cffi backend ...): rebuild


def compiled_shim_path() -> Any:
    """The file of the launch shim installed with cudalite-driver (self-tested), or None
    when this install has none (a source tree, or a build without a C compiler)."""
    shim = load_prebuilt()
    return None if shim is None else shim.path


# What a launch costs more on the ``bindings`` path than through the shim: measured
# in docs/driver.md's interleaved benchmark (H100, driver 580: 1.13-1.19x the floor
# against 1.01-1.08x, about 0.4 us per launch).
_BINDINGS_COST = "about 0.4 us (~13%) more per launch, measured in docs/driver.md"


def _fallback_warning(message) -> None:
    library_logger(__name__).warning("%s", message)
    warnings.warn(message, ShimFallbackWarning, stacklevel=4)


def load_shim(cache_dir: Any, cc: str = "") -> Any:
    """The launch shim for this interpreter, or None (launches use ``bindings``).

    The compiled module installed with the package comes first (:func:`load_prebuilt`).
    An install without one (a source install whose build had no compiler) falls back
    to a build at run time into the cache (:func:`load_runtime_build`), and says so
    once per process with a :class:`~cudalite.driver.errors.ShimFallbackWarning`
    (also logged on ``cudalite.driver``): when this process compiled it, with the
    measured cost; when it cannot be built here, with the reason and the cost of the
    ``bindings`` path.  A later process loading the cached build is silent (logged
    at DEBUG).  The driver opens its shim once per process, so "once" holds."""
    shim = load_prebuilt()
    if shim is not None:
        library_logger(__name__).debug("launch shim: %s (compiled with the package)", shim.path)
        return shim
    t0 = time.perf_counter()
    shim, built, reason = load_runtime_build(cache_dir, cc)
    if shim is not None and built:
        ms = (time.perf_counter() - t0) * 1e3
        _fallback_warning(
            f"cudalite: this cudalite-driver install has no compiled launch shim (a source tree, or a "
            f"source install built without a C compiler): compiled it at run time in {ms:.0f} ms into "
            f"{os.path.dirname(shim.path)}; later processes load it from there. A cudalite-driver "
            f"wheel includes it (docs/driver.md).")
    elif shim is not None:
        library_logger(__name__).debug("launch shim: %s (built at run time by an earlier process)", shim.path)
    elif reason is not None:
        _fallback_warning(
            f"cudalite: no launch shim: this cudalite-driver install has no compiled one and it cannot "
            f"be built here ({reason}); launches use the cuda.bindings path, {_BINDINGS_COST}. Install "
            f"a cudalite-driver wheel, or a C compiler and the Python headers, to get it.")
    return shim


def load_runtime_build(cache_dir: Any, cc: str = "") -> Any:
    """``(shim, built, reason)``: the run-time build of the shim -- the cached one if
    its directory and the cache root ``cache_dir`` are trusted, its hash is the
    recorded one and it passes its self-test (``built`` False), else a fresh build
    (``built`` True); ``(None, False, reason)`` when neither works, ``reason`` None
    when a warning has already named the cause (a refused directory)."""
    try:
        files = shim_location(cache_dir)
    except Exception as exc:  # cffi missing
        return None, False, f"cffi is not importable: {type(exc).__name__}: {exc}"
    try:
        make_private_dirs(files.directory)
    except OSError as exc:
        return None, False, f"cannot create {files.directory}: {exc.strerror or exc}"
    for directory, what in ((cache_dir, "cache directory"), (files.directory, "launch shim directory")):
        reason = dir_refusal(directory)
        if reason is not None:
            _warn(refusal_message(directory, reason, what,
                                  "no launch shim is loaded from it (launches use the bindings backend)"))
            return None, False, None
    shim = load_verified(files)
    if shim is not None:
        return shim, False, None
    try:
        return build_shim(files, cc), True, None
    except ShimError as exc:
        return None, False, str(exc).splitlines()[0]
    except OSError as exc:
        return None, False, f"{type(exc).__name__}: {exc}"


def entry_points(libcuda: str = "") -> Any:
    """Addresses of libcuda's (cuLaunchKernel, cuLaunchKernelEx, cuGraphLaunch): from
    ``cuGetProcAddress`` for the running driver's version, else ``dlsym`` on ``libcuda``."""
    from cuda.bindings import driver

    out = []
    err, version = driver.cuDriverGetVersion()
    flags = getattr(getattr(driver, "CUdriverProcAddress_flags", None), "CU_GET_PROC_ADDRESS_DEFAULT", 0)
    for symbol in ("cuLaunchKernel", "cuLaunchKernelEx", "cuGraphLaunch"):
        address = 0
        try:
            res = driver.cuGetProcAddress(symbol.encode(), int(version), flags)
            if int(err) == 0 and int(res[0]) == 0 and res[1]:
                address = int(res[1])
        except Exception:
            address = 0
        if not address and libcuda:
            import ctypes

            address = ctypes.cast(getattr(ctypes.CDLL(libcuda), symbol), ctypes.c_void_p).value or 0
        if not address:
            raise ShimError(f"no address for {symbol}")
        out.append(address)
    return tuple(out)
