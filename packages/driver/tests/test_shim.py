"""GPU-less tests of the compiled launch shim: build, cache, atomic publication,
the cache directory as untrusted input (private modes, refused directories, a
library loaded only when its sha256 is the recorded one), fallback without a
compiler, and the generated launcher and ``Launcher`` calling through it (with
``cl_probe`` standing in for libcuda)."""

from __future__ import annotations

import ctypes
import hashlib
import importlib
import json
import os
import shutil
import struct
import subprocess
import sys
import re
import textwrap
import threading
import types
import warnings
from pathlib import Path

import pytest

from cudalite.driver import CudaDriverError, LaunchConfig, ShimFallbackWarning, param_layout
from cudalite.driver import _shim, _state
from cudalite.driver.cachedir import UntrustedCacheWarning
from cudalite.driver.config import Config

pytestmark = pytest.mark.skipif(_shim.find_compiler() is None, reason="no C compiler")

SRC = Path(__file__).resolve().parents[1] / "src"
LOAD_PREBUILT = _shim.load_prebuilt  # the real one (the autouse fixture below hides it)


@pytest.fixture(autouse=True)
def no_prebuilt(monkeypatch):
    """These tests are about the run-time build: an installed wheel's compiled shim
    (``cudalite.driver._launch_shim``, preferred by ``load_shim``) is hidden."""
    monkeypatch.setattr(_shim, "load_prebuilt", lambda module_name=None: None)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    shim, was_built, reason = _shim.load_runtime_build(str(cache))
    assert shim is not None and was_built and reason is None
    return cache, shim


def _record(shim, rc=0):
    rec = shim.ffi.new("uint64_t[16]")
    rec[11] = rc
    return rec, int(shim.ffi.cast("uintptr_t", rec))


def _library(files):
    """The library the build record names (and its digest)."""
    digest, name = Path(files.record).read_text().split()
    assert name == os.path.basename(files.library(digest))
    return digest, files.library(digest)


def test_build_layout_and_cache_hit(built):
    cache, shim = built
    files = _shim.shim_location(str(cache))
    digest, library = _library(files)
    assert shim.path == library and os.path.isfile(library)
    assert hashlib.sha256(Path(library).read_bytes()).hexdigest() == digest
    folder = Path(files.directory)
    assert folder.parent == cache
    assert folder.name.startswith(f"driver-cp{sys.version_info[0]}{sys.version_info[1]}-")
    assert sorted(p.name for p in folder.iterdir()) == sorted([Path(library).name, Path(files.record).name])
    mtime = os.stat(library).st_mtime_ns
    again = _shim.load_shim(str(cache), cc="/nonexistent/cc")  # a cache hit needs no compiler
    assert again is not None and again.path == library and os.stat(library).st_mtime_ns == mtime


def test_location_depends_on_source(tmp_path, monkeypatch):
    files = _shim.shim_location(str(tmp_path))
    monkeypatch.setattr(_shim, "C_SOURCE", _shim.C_SOURCE + "\n/* changed */\n")
    files2 = _shim.shim_location(str(tmp_path))
    assert files.name != files2.name and files.directory != files2.directory


def test_shim_calls_the_entry_point(built):
    _, shim = built
    lib = shim.lib
    rec, f = _record(shim, rc=42)
    slot = shim.ffi.new("uint64_t[1]", [0xABCDEF])
    params = int(shim.ffi.cast("uintptr_t", slot))
    rc = lib.cl_launch(lib.cl_probe_address(), f, 1, 2, 3, 4, 5, 6, 7, 2**63 + 5, params)
    assert rc == 42
    assert list(rec[0:11]) == [1, 2, 3, 4, 5, 6, 7, 2**63 + 5, params, 0xABCDEF, 0]
    rec2, f2 = _record(shim, rc=7)
    config = shim.ffi.new("unsigned int[14]", [33])
    address = int(shim.ffi.cast("uintptr_t", config))
    assert lib.cl_launch_ex(lib.cl_probe_ex_address(), address, f2, params) == 7
    assert list(rec2[0:5]) == [address, 33, params, 0xABCDEF, 0]


def _copy_built(built, tmp_path):
    """A private copy of the module's built cache (a fresh cache per test, no compile)."""
    cache, _ = built
    dst = tmp_path / "cache"
    shutil.copytree(cache, dst)
    return dst, _shim.shim_location(str(dst))


def _warned(fn):
    """``(result, [messages of UntrustedCacheWarning])``, every warning recorded."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = fn()
    return result, [str(w.message) for w in record if issubclass(w.category, UntrustedCacheWarning)]


def test_corrupt_library_is_not_loaded_and_is_rebuilt(built, tmp_path):
    cache, files = _copy_built(built, tmp_path)
    digest, library = _library(files)
    Path(library).write_bytes(b"\x7fELF not really a shared object")
    shim, warned = _warned(lambda: _shim.load_shim(str(cache)))
    assert shim is not None and shim.lib.cl_abi_version() == _shim.ABI_VERSION
    assert warned == [f"cudalite: not loading the launch shim {library}: it does not match the sha256 recorded "
                      f"when cudalite built it ({files.record}); rebuilding it."]
    digest, rebuilt = _library(files)
    assert rebuilt == shim.path and hashlib.sha256(Path(rebuilt).read_bytes()).hexdigest() == digest
    assert os.path.getsize(rebuilt) > 1000  # a real build, not the bytes planted


EVIL = r"""
#include <stdio.h>
__attribute__((constructor)) static void run_on_load(void) {
    FILE *f = fopen(MARKER, "w");
    if (f) { fputs("ran", f); fclose(f); }
}
int cl_abi_version(void) { return 1; }
"""


def _evil_library(tmp_path):
    """A valid shared object whose constructor writes a marker file when loaded."""
    marker = tmp_path / "constructor-ran"
    src = tmp_path / "evil.c"
    src.write_text(EVIL.replace("MARKER", json.dumps(str(marker))))
    out = tmp_path / "evil.so"
    subprocess.run(_shim.find_compiler() + ["-shared", "-fPIC", str(src), "-o", str(out)], check=True)
    return out.read_bytes(), marker


def test_replaced_library_never_runs_and_is_rebuilt(built, tmp_path):
    """A shim replaced by other bytes (a valid shared object with a constructor) is not
    loaded: its constructor never runs; the shim is rebuilt, with one warning."""
    cache, files = _copy_built(built, tmp_path)
    digest, library = _library(files)
    evil, marker = _evil_library(tmp_path)
    Path(library).write_bytes(evil)
    shim, warned = _warned(lambda: _shim.load_shim(str(cache)))
    assert not marker.exists()  # nothing of the replaced file ran
    assert shim is not None and len(warned) == 1 and library in warned[0]
    digest, rebuilt = _library(files)
    assert shim.path == rebuilt and hashlib.sha256(Path(rebuilt).read_bytes()).hexdigest() == digest


def test_replaced_library_without_compiler_falls_back(built, tmp_path):
    cache, files = _copy_built(built, tmp_path)
    _, library = _library(files)
    evil, marker = _evil_library(tmp_path)
    Path(library).write_bytes(evil)
    shim, warned = _warned(lambda: _shim.load_shim(str(cache), cc="/nonexistent/cc"))
    assert shim is None and len(warned) == 1 and not marker.exists()
    assert not os.path.exists(library)  # the mismatching file is removed


def test_symlinked_or_loose_library_is_not_loaded(built, tmp_path):
    cache, files = _copy_built(built, tmp_path)
    _, library = _library(files)
    elsewhere = tmp_path / "elsewhere.so"
    os.replace(library, elsewhere)  # the very same bytes, but through a symlink
    os.symlink(elsewhere, library)
    shim, warned = _warned(lambda: _shim.load_shim(str(cache), cc="/nonexistent/cc"))
    assert shim is None and warned == [f"cudalite: not loading the launch shim {library}: it is missing or not "
                                       f"a private regular file ({files.record}); rebuilding it."]
    shutil.copy(elsewhere, library)
    os.chmod(library, 0o722)  # group/other-writable file in a private directory
    shim, warned = _warned(lambda: _shim.load_shim(str(cache), cc="/nonexistent/cc"))
    assert shim is None and len(warned) == 1


@pytest.mark.parametrize("record", ["garbage", "other-name", "absolute", "empty"])
def test_crafted_build_record_is_refused(built, tmp_path, record):
    cache, files = _copy_built(built, tmp_path)
    digest, library = _library(files)
    text = {"garbage": "not a record\n", "other-name": f"{digest}  ../../evil.so\n",
            "absolute": f"{digest}  {library}\n", "empty": ""}[record]
    Path(files.record).write_text(text)
    shim, warned = _warned(lambda: _shim.load_shim(str(cache), cc="/nonexistent/cc"))
    assert shim is None and warned == [
        f"cudalite: not loading the launch shim of {files.directory}: its build record {files.record} is not a "
        f"private regular file in the expected format; rebuilding it."]
    shim, warned = _warned(lambda: _shim.load_shim(str(cache)))  # with a compiler: rebuilt
    assert shim is not None and len(warned) == 1
    digest, rebuilt = _library(files)
    assert shim.path == rebuilt and hashlib.sha256(Path(rebuilt).read_bytes()).hexdigest() == digest


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX modes")
def test_fresh_dirs_are_private_under_umask_002(tmp_path):
    old = os.umask(0o002)
    try:
        shim = _shim.load_shim(str(tmp_path / "home" / ".cache" / "cudalite"))
    finally:
        os.umask(old)
    assert shim is not None
    files = _shim.shim_location(str(tmp_path / "home" / ".cache" / "cudalite"))
    for d in (tmp_path / "home", tmp_path / "home" / ".cache", Path(files.directory).parent, files.directory):
        assert os.stat(d).st_mode & 0o777 == 0o700, d
    assert os.stat(files.record).st_mode & 0o777 == 0o600
    assert os.stat(shim.path).st_mode & 0o777 == 0o700


def _refusal(directory, why, what="launch shim directory"):
    return (f"cudalite: not using the {what} {directory}: it is {why}; no launch shim is loaded "
            f"from it (launches use the bindings backend). Fix: make it yours and private (chown to you, "
            f"chmod 700 {directory}) or set CUDALITE_CACHE_DIR to a directory only you can write.")


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX modes")
def test_world_writable_shim_dir_is_refused(built, tmp_path):
    cache, files = _copy_built(built, tmp_path)
    os.chmod(files.directory, 0o777)
    shim, warned = _warned(lambda: _shim.load_shim(str(cache)))
    assert shim is None  # a valid build is there, but not loaded from an untrusted directory
    assert warned == [_refusal(files.directory, "writable by group and others (mode 0777)")]
    assert len(os.listdir(files.directory)) == 2  # nothing built there either


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX ownership")
def test_foreign_shim_dir_is_refused_once_per_process(built, tmp_path, monkeypatch):
    """Another user's directory is refused; the driver opens the shim once per process,
    so two launchers give one warning."""
    cache, files = _copy_built(built, tmp_path)
    me = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: me + 1)
    drv = _state.Driver.__new__(_state.Driver)  # the driver object without cuInit (GPU-less)
    drv.config, drv._native, drv._lock = Config(cache_dir=str(cache)), {}, threading.RLock()
    result, warned = _warned(lambda: [drv.native("shim"), drv.native("shim")])
    assert result == [None, None]
    assert warned == [_refusal(cache, f"owned by uid {me}, not by you (uid {me + 1})", "cache directory")]


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX modes")
def test_shared_cache_root_is_refused(built, tmp_path):
    """A cache root others can write into is refused even when the shim's directory in
    it is private (they could swap the directory for their own)."""
    cache, files = _copy_built(built, tmp_path)
    os.chmod(cache, 0o1777)  # like /tmp
    shim, warned = _warned(lambda: _shim.load_shim(str(cache)))
    assert shim is None
    assert warned == [_refusal(cache, "writable by group and others (mode 1777)", "cache directory")]


def _fallbacks(fn):
    """``(result, [messages of ShimFallbackWarning])``, every warning recorded."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = fn()
    return result, [str(w.message) for w in record if issubclass(w.category, ShimFallbackWarning)]


def test_no_compiler_falls_back(tmp_path, caplog):
    with caplog.at_level("WARNING", logger="cudalite.driver"):
        shim, warned = _fallbacks(lambda: _shim.load_shim(str(tmp_path), cc="/nonexistent/cc"))
    assert shim is None
    files = _shim.shim_location(str(tmp_path))
    assert os.listdir(files.directory) == []
    assert warned == [
        "cudalite: no launch shim: this cudalite-driver install has no compiled one and it cannot be built "
        "here (no C compiler found); launches use the cuda.bindings path, about 0.4 us (~13%) more per "
        "launch, measured in docs/driver.md. Install a cudalite-driver wheel, or a C compiler and the Python "
        "headers, to get it."]
    assert [r.getMessage() for r in caplog.records if r.name == "cudalite.driver._shim"] == warned


def test_run_time_build_says_so_once_with_its_cost(tmp_path):
    """A source install without a compiled shim: the process that compiles it warns
    (with the time it took); a later load of the cached build is silent."""
    shim, warned = _fallbacks(lambda: _shim.load_shim(str(tmp_path)))
    assert shim is not None and len(warned) == 1
    files = _shim.shim_location(str(tmp_path))
    assert re.fullmatch(
        r"cudalite: this cudalite-driver install has no compiled launch shim \(a source tree, or a source "
        r"install built without a C compiler\): compiled it at run time in \d+ ms into (.+); later processes "
        r"load it from there\. A cudalite-driver wheel includes it \(docs/driver\.md\)\.",
        warned[0]).group(1) == files.directory
    again, warned = _fallbacks(lambda: _shim.load_shim(str(tmp_path), cc="/nonexistent/cc"))
    assert again is not None and again.path == shim.path and warned == []


def test_prebuilt_shim_is_preferred(built, tmp_path, monkeypatch):
    """The compiled module installed with the package is used (self-tested) and no
    cache directory is touched; a prebuilt module failing its self-test is skipped."""
    cache, shim = built
    module = types.ModuleType("cudalite_test_prebuilt_shim")
    module.lib, module.ffi, module.__file__ = shim.lib, shim.ffi, "/site/cudalite/driver/_launch_shim.abi3.so"
    monkeypatch.setitem(sys.modules, module.__name__, module)
    pre = LOAD_PREBUILT(module.__name__)
    assert pre is not None and pre.path == module.__file__ and pre.lib is shim.lib
    monkeypatch.setattr(_shim, "load_prebuilt", lambda module_name=None: pre)
    fresh = tmp_path / "unused"
    got, warned = _fallbacks(lambda: _shim.load_shim(str(fresh), cc="/nonexistent/cc"))
    assert got is pre and warned == [] and not fresh.exists()

    class BadLib:
        def cl_abi_version(self):
            return _shim.ABI_VERSION + 1

    module.lib = BadLib()
    assert LOAD_PREBUILT(module.__name__) is None
    assert LOAD_PREBUILT("cudalite_test_no_such_module") is None


def test_compile_error_falls_back_and_cleans_up(tmp_path):
    assert _shim.load_shim(str(tmp_path), cc="false") is None  # compiler exits 1
    files = _shim.shim_location(str(tmp_path))
    assert os.listdir(files.directory) == []


def test_missing_python_headers_fall_back(tmp_path, monkeypatch):
    monkeypatch.setattr(_shim.sysconfig, "get_paths", lambda: {"include": str(tmp_path / "none")})
    shim, warned = _fallbacks(lambda: _shim.load_shim(str(tmp_path / "cache")))
    assert shim is None and len(warned) == 1
    assert f"cannot be built here (Python.h not found in '{tmp_path / 'none'}')" in warned[0]


def test_unwritable_cache_falls_back(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    shim, warned = _warned(lambda: _shim.load_shim(str(blocker / "cache")))
    assert shim is None and warned == []
    shim, fallback = _fallbacks(lambda: _shim.load_shim(str(blocker / "cache")))
    assert shim is None and len(fallback) == 1
    assert f"cannot be built here (cannot create {blocker / 'cache'}/driver-" in fallback[0]


_RACE = textwrap.dedent(
    """
    import sys, time
    from cudalite.driver import _shim
    start = float(sys.argv[2])
    while time.time() < start:
        pass
    shim = _shim.load_shim(sys.argv[1])
    assert shim is not None, "no shim"
    print("OK", shim.lib.cl_abi_version(), shim.path)
    """
)


def test_concurrent_builds_both_succeed(tmp_path):
    import time

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), *sys.path]))
    start = str(time.time() + 1.0)
    procs = [subprocess.Popen([sys.executable, "-c", _RACE, str(tmp_path), start], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    files = _shim.shim_location(str(tmp_path))
    _, library = _library(files)
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
        assert out.split() == ["OK", str(_shim.ABI_VERSION), library]
    assert sorted(os.listdir(files.directory)) == sorted([os.path.basename(library), os.path.basename(files.record)])
    assert _shim.load_shim(str(tmp_path), cc="/nonexistent/cc") is not None


def _shim_launch(shim, fmt, f, config):
    """``Launcher.bind(config)`` of the shim backend with the probes as libcuda."""
    L = importlib.import_module("cudalite.driver.launch")

    lau = L.Launcher.__new__(L.Launcher)
    lau.layout, lau._kind, lau._bound = param_layout(fmt), "shim", {}
    lau._tls = tls = threading.local()
    lau._plain = (shim.lib.cl_launch, shim.lib.cl_probe_address())
    lau._ex = (shim.lib.cl_launch_ex, shim.lib.cl_probe_ex_address())
    lau._common = (f, tls, L._buffers_factory(tls, lau.layout), lau.layout.struct.pack_into,
                   L._retry_factory(0, False))
    return lau.bind(config), tls


def test_generated_shim_launcher(built):
    _, shim = built
    rec, f = _record(shim)
    launch, tls = _shim_launch(shim, "QQQf", f, LaunchConfig((2, 3, 4), (32, 1, 1), 128, 7))
    launch(0x1000, 0x2000, 0x3000, 1.5)
    assert bytes(tls.b[0]) == struct.pack("QQQf", 0x1000, 0x2000, 0x3000, 1.5)
    assert list(rec[0:8]) == [2, 3, 4, 32, 1, 1, 128, 7]
    assert rec[8] == tls.b[1]  # the thread's void* array ...
    assert rec[9] == ctypes.addressof(tls.b[2])  # ... whose first entry is the packed buffer
    assert rec[10] == 0  # extra = NULL
    rec[11] = 1  # the "driver" now answers CUDA_ERROR_INVALID_VALUE
    with pytest.raises(CudaDriverError) as info:
        launch(1, 2, 3, 1.0)
    assert info.value.call == "cuLaunchKernel" and info.value.name == "CUDA_ERROR_INVALID_VALUE"


def test_generated_shim_launcher_with_attributes(built):
    """A configuration with attributes goes through cl_launch_ex: the prepared
    CUlaunchConfig's address (gridDimX read back from it in C), the params, no extra."""
    _, shim = built
    rec, f = _record(shim)
    cfg = LaunchConfig((5, 1, 1), (64, 1, 1), cooperative=True, cluster=(1, 1, 1))
    coop, tls = _shim_launch(shim, "QQQf", f, cfg)
    assert coop.config is cfg
    coop(1, 2, 3, 0.0)
    assert list(rec[0:5]) == [ctypes.addressof(coop.keep), 5, tls.b[1], ctypes.addressof(tls.b[2]), 0]
    assert coop.keep.numAttrs == 2
    rec[11] = 720  # CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
    with pytest.raises(CudaDriverError) as info:
        coop(1, 2, 3, 0.0)
    assert info.value.call == "cuLaunchKernelEx" and info.value.name == "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"


def test_shim_buffers_are_per_thread(built):
    _, shim = built
    rec, f = _record(shim)
    launch, tls = _shim_launch(shim, "q", f, LaunchConfig((1, 1, 1), (1, 1, 1)))
    launch(11)
    seen = []

    def worker():
        launch(22)
        seen.append((tls.b[1], rec[8], rec[9]))

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    (addr, passed, first), = seen
    assert addr != tls.b[1] and passed == addr
    assert bytes(tls.b[0]) == struct.pack("q", 11)


class _FakeFunction:
    def __init__(self, handle):
        self.handle, self._cu, self.device_id, self.name = handle, "CUfunction", 0, "fake"


class _FakeDriver:
    def __init__(self, native):
        self.config = Config(launch_backend="shim")
        self._native = native

    def native(self, backend):
        assert backend == "shim"
        return self._native


def test_launcher_uses_shim_or_falls_back(built, monkeypatch):
    L = importlib.import_module("cudalite.driver.launch")

    _, shim = built
    rec, f = _record(shim)
    probes = (shim, shim.lib.cl_probe_address(), shim.lib.cl_probe_ex_address(), shim.lib.cl_probe2_address())
    monkeypatch.setattr(L, "get_driver", lambda: _FakeDriver(probes))
    lau = L.Launcher(_FakeFunction(f), "Qi")
    assert lau.backend == "shim" and "via shim" in repr(lau)
    lau.bind(LaunchConfig((3, 1, 1), (128, 1, 1), stream=5))(0xFEED, 9)
    assert list(rec[0:8]) == [3, 1, 1, 128, 1, 1, 0, 5]
    assert ctypes.c_uint64.from_address(rec[9]).value == 0xFEED  # the first packed value
    lau.launch(LaunchConfig((6, 1, 1), (128, 1, 1), programmatic_dependent_launch=True), 0xCAFE, 9)
    assert rec[1] == 6 and ctypes.c_uint64.from_address(rec[3]).value == 0xCAFE  # through cl_launch_ex

    monkeypatch.setattr(L, "get_driver", lambda: _FakeDriver(None))
    lau = L.Launcher(_FakeFunction(f), "Qi")
    assert lau.backend == "bindings"  # no compiler here: silently the bindings backend


def test_remove_shim_builds_matches_the_shim_directories_only(tmp_path):
    """The driver names its run-time shim builds (shim_location) and removes them
    (remove_shim_builds, what ``cudalite-cache clear`` calls): the same pattern."""
    import os

    from cudalite.driver import remove_shim_builds
    from cudalite.driver._shim import shim_location
    from cudalite.driver.cachedir import SHIM_BUILD_DIR

    build = shim_location(tmp_path).directory
    assert SHIM_BUILD_DIR.fullmatch(os.path.basename(build))
    os.makedirs(os.path.join(build, "x"))
    other = tmp_path / "kernels"
    other.mkdir()
    (tmp_path / "driver-cp312-0123456789abcdef").mkdir()  # another Python's build
    (tmp_path / "driver-cp312-not-hex-at-all").mkdir()
    os.symlink(other, tmp_path / "driver-cp311-fedcba9876543210")
    assert remove_shim_builds(tmp_path) == 2
    assert sorted(os.listdir(tmp_path)) == ["driver-cp311-fedcba9876543210", "driver-cp312-not-hex-at-all", "kernels"]
    assert remove_shim_builds(tmp_path / "missing") == 0


def test_graph_launch_through_the_shim(built):
    """GraphExec.launch with the shim: one cl_call2 of cuGraphLaunch's address with the
    executable graph's handle and the stream's (an int, None, a Stream), and a nonzero
    CUresult raised as the binding's call would (the probe stands in for the driver)."""
    from cudalite.driver import CudaDriverError
    from cudalite.driver.graph import GraphExec
    from cudalite.driver.stream import Stream

    _, shim = built
    rec = shim.ffi.new("uint64_t[16]")
    g = GraphExec.__new__(GraphExec)
    g.handle, g._native = int(shim.ffi.cast("uintptr_t", rec)), (shim.lib.cl_call2, shim.lib.cl_probe2_address())
    g.launch(0x1234)
    assert rec[0] == 0x1234
    g.launch(None)
    assert rec[0] == 0
    s = Stream.__new__(Stream)
    s.handle = 0x5678
    g.launch(s)
    assert rec[0] == 0x5678
    rec[11] = 400  # CUDA_ERROR_INVALID_HANDLE
    with pytest.raises(CudaDriverError, match="cuGraphLaunch") as e:
        g.launch(1)
    assert e.value.name == "CUDA_ERROR_INVALID_HANDLE"
