"""The compiled launch shim: libcuda's ``cuLaunchKernel`` called from C (cffi API mode).

An ABI-mode cffi call marshals its 11 arguments through libffi and a
``cuda.bindings`` call builds Python objects around the result; a cffi *API-mode*
extension converts the same ints in generated C and calls straight through a function
pointer.  This module owns that extension:

* :data:`C_SOURCE`/:data:`CDEF` -- ``cl_launch(entry, f, gx, gy, gz, bx, by, bz, smem,
  stream, params)`` and ``cl_launch_coop(...)`` call ``entry`` (the address of libcuda's
  ``cuLaunchKernel``/``cuLaunchCooperativeKernel``, from ``cuGetProcAddress``), so the
  shim needs no CUDA header and no link to libcuda.  ``cl_probe`` has the same
  signature and records its arguments: the self-test run on every load (and the tests)
  call it instead of the driver.
* :func:`load_shim` -- compile on first use into the cache directory
  (``<cache>/driver-cpXY-<hash of source, cffi and ABI>/``), atomically: the C code is
  compiled in a private temporary directory next to the target, imported and
  self-tested there, then published with ``os.replace`` (concurrent processes each
  publish a complete file; the last one wins).  A cached file that fails to import or
  to self-test is rebuilt; any failure (no compiler, no ``Python.h``, a broken cache
  directory) returns ``None`` and the caller falls back to the ``bindings`` backend.
* :func:`entry_points` -- the driver's function addresses.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass

__all__ = ["C_SOURCE", "CDEF", "ABI_VERSION", "Shim", "ShimError", "shim_location", "load_shim",
           "build_shim", "find_compiler", "entry_points"]

ABI_VERSION = 1

C_SOURCE = r"""
#include <stdint.h>

typedef int (*cl_launch_fn)(void *, unsigned int, unsigned int, unsigned int, unsigned int,
                            unsigned int, unsigned int, unsigned int, void *, void **, void **);
typedef int (*cl_coop_fn)(void *, unsigned int, unsigned int, unsigned int, unsigned int,
                          unsigned int, unsigned int, unsigned int, void *, void **);

static int cl_launch(uintptr_t entry, uintptr_t f, unsigned int gx, unsigned int gy, unsigned int gz,
                     unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem,
                     uintptr_t stream, uintptr_t params)
{
    return ((cl_launch_fn)entry)((void *)f, gx, gy, gz, bx, by, bz, smem, (void *)stream,
                                 (void **)params, (void **)0);
}

static int cl_launch_coop(uintptr_t entry, uintptr_t f, unsigned int gx, unsigned int gy, unsigned int gz,
                          unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem,
                          uintptr_t stream, uintptr_t params)
{
    return ((cl_coop_fn)entry)((void *)f, gx, gy, gz, bx, by, bz, smem, (void *)stream, (void **)params);
}

/* Stand-in for cuLaunchKernel: ``f`` points at 12 uint64 slots; the 10 launch
   arguments after ``f`` go to slots 0..9, ``extra`` to 10; returns slot 11. */
static int cl_probe(void *f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                    unsigned int by, unsigned int bz, unsigned int smem, void *stream, void **params,
                    void **extra)
{
    uint64_t *rec = (uint64_t *)f;
    rec[0] = gx; rec[1] = gy; rec[2] = gz; rec[3] = bx; rec[4] = by; rec[5] = bz; rec[6] = smem;
    rec[7] = (uint64_t)(uintptr_t)stream; rec[8] = (uint64_t)(uintptr_t)params;
    rec[9] = params ? (uint64_t)(uintptr_t)params[0] : 0; rec[10] = (uint64_t)(uintptr_t)extra;
    return (int)rec[11];
}

static uintptr_t cl_probe_address(void) { return (uintptr_t)&cl_probe; }
static int cl_abi_version(void) { return ABI_VERSION_VALUE; }
""".replace("ABI_VERSION_VALUE", str(ABI_VERSION))

CDEF = """
int cl_launch(uintptr_t entry, uintptr_t f, unsigned int gx, unsigned int gy, unsigned int gz,
              unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem,
              uintptr_t stream, uintptr_t params);
int cl_launch_coop(uintptr_t entry, uintptr_t f, unsigned int gx, unsigned int gy, unsigned int gz,
                   unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem,
                   uintptr_t stream, uintptr_t params);
uintptr_t cl_probe_address(void);
int cl_abi_version(void);
"""


class ShimError(RuntimeError):
    """The shim could not be built or loaded (callers fall back to ``bindings``)."""


@dataclass(frozen=True)
class Shim:
    """A loaded, self-tested shim: ``lib.cl_launch``/``lib.cl_launch_coop``."""

    lib: object
    ffi: object
    path: str


def shim_location(cache_dir):
    """(module name, path of the extension file) for this Python, cffi and source."""
    # cffi's C backend (what the compiled shim imports) has cffi's version: loading a
    # cached shim does not import the pure-Python cffi package
    import _cffi_backend

    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    key = "\0".join([C_SOURCE, CDEF, _cffi_backend.__version__, suffix, sys.implementation.cache_tag or ""])
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    name = f"_cudalite_launch_{digest}"
    return name, os.path.join(cache_dir, f"driver-{tag}-{digest}", name + suffix)


def find_compiler(cc=""):
    """The compiler command as a list (``cc`` from the config, else the first of cc,
    gcc, clang on PATH), or None."""
    if cc:
        cmd = shlex.split(cc)
        return cmd if cmd and shutil.which(cmd[0]) else None
    for name in ("cc", "gcc", "clang"):
        path = shutil.which(name)
        if path:
            return [path]
    return None


def _import(name, path):
    """Import the extension at ``path`` and self-test it; raise ShimError if unusable."""
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ShimError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        lib, ffi = module.lib, module.ffi
        if lib.cl_abi_version() != ABI_VERSION:
            raise ShimError(f"{path}: ABI version {lib.cl_abi_version()} != {ABI_VERSION}")
        rec = ffi.new("uint64_t[12]")
        rec[11] = 17
        slot = ffi.new("uint64_t[1]", [0x1234])
        ok = lib.cl_launch(lib.cl_probe_address(), int(ffi.cast("uintptr_t", rec)), 1, 2, 3, 4, 5, 6, 7, 8,
                           int(ffi.cast("uintptr_t", slot)))
        if ok != 17 or list(rec[0:8]) != [1, 2, 3, 4, 5, 6, 7, 8] or rec[9] != 0x1234 or rec[10] != 0:
            raise ShimError(f"{path}: self-test failed")
        return Shim(lib, ffi, path)
    except ShimError:
        raise
    except Exception as exc:  # ImportError, OSError (bad ELF), AttributeError ...
        raise ShimError(f"{path}: {type(exc).__name__}: {exc}") from None


def build_shim(name, path, cc=""):
    """Compile the shim into a private temporary directory next to ``path``, import
    and self-test it there, then publish it atomically at ``path``."""
    import cffi

    compiler = find_compiler(cc)
    if compiler is None:
        raise ShimError("no C compiler found")
    include = sysconfig.get_paths().get("include") or ""
    if not os.path.isfile(os.path.join(include, "Python.h")):
        raise ShimError(f"Python.h not found in {include!r}")
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".build-", dir=directory)
    try:
        from cffi.recompiler import make_c_source

        ffi = cffi.FFI()
        ffi.cdef(CDEF)
        c_file = os.path.join(tmp, name + ".c")
        make_c_source(ffi, name, C_SOURCE, c_file, verbose=False)  # == set_source + emit_c_code, quietly
        out = os.path.join(tmp, os.path.basename(path))
        link = ["-bundle", "-undefined", "dynamic_lookup"] if sys.platform == "darwin" else ["-shared"]
        cmd = compiler + ["-O2", "-fPIC", *link, "-I", include, c_file, "-o", out]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.SubprocessError) as exc:
            raise ShimError(f"{compiler[0]} failed to run: {exc}") from None
        if proc.returncode != 0:
            raise ShimError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
        shim = _import(name, out)  # verified before anyone else can see it
        os.replace(out, path)
        return Shim(shim.lib, shim.ffi, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load_shim(cache_dir, cc=""):
    """The shim for this interpreter: the cached build if it imports and passes its
    self-test, else a fresh build; None when neither works (fall back silently)."""
    try:
        name, path = shim_location(cache_dir)
    except Exception:  # cffi missing
        return None
    if os.path.isfile(path):
        try:
            return _import(name, path)
        except ShimError:
            pass  # corrupt or foreign file: rebuild over it
    try:
        return build_shim(name, path, cc)
    except (ShimError, OSError):
        return None


def entry_points(libcuda=""):
    """Addresses of libcuda's (cuLaunchKernel, cuLaunchCooperativeKernel): from
    ``cuGetProcAddress`` for the running driver's version, else ``dlsym`` on ``libcuda``."""
    from cuda.bindings import driver

    out = []
    err, version = driver.cuDriverGetVersion()
    flags = getattr(getattr(driver, "CUdriverProcAddress_flags", None), "CU_GET_PROC_ADDRESS_DEFAULT", 0)
    for symbol in ("cuLaunchKernel", "cuLaunchCooperativeKernel"):
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
