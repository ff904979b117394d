"""GPU-less tests of the compiled launch shim: build, cache, atomic publication,
corrupt-cache handling, fallback without a compiler, and the generated launcher and
``Launcher`` calling through it (with ``cl_probe`` standing in for libcuda)."""

from __future__ import annotations

import ctypes
import importlib
import os
import struct
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from cudalite.driver import CudaDriverError, param_layout
from cudalite.driver import _shim
from cudalite.driver.config import Config

pytestmark = pytest.mark.skipif(_shim.find_compiler() is None, reason="no C compiler")

SRC = Path(__file__).resolve().parents[1] / "src"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    shim = _shim.load_shim(str(cache))
    assert shim is not None
    return cache, shim


def _record(shim, rc=0):
    rec = shim.ffi.new("uint64_t[12]")
    rec[11] = rc
    return rec, int(shim.ffi.cast("uintptr_t", rec))


def test_build_layout_and_cache_hit(built):
    cache, shim = built
    name, path = _shim.shim_location(str(cache))
    assert shim.path == path and os.path.isfile(path)
    folder = Path(path).parent
    assert folder.parent == cache
    assert folder.name.startswith(f"driver-cp{sys.version_info[0]}{sys.version_info[1]}-")
    assert [p.name for p in folder.iterdir()] == [Path(path).name]  # no temp dirs left behind
    mtime = os.stat(path).st_mtime_ns
    again = _shim.load_shim(str(cache), cc="/nonexistent/cc")  # a cache hit needs no compiler
    assert again is not None and again.path == path and os.stat(path).st_mtime_ns == mtime


def test_location_depends_on_source(tmp_path, monkeypatch):
    name, path = _shim.shim_location(str(tmp_path))
    monkeypatch.setattr(_shim, "C_SOURCE", _shim.C_SOURCE + "\n/* changed */\n")
    name2, path2 = _shim.shim_location(str(tmp_path))
    assert name != name2 and Path(path).parent != Path(path2).parent


def test_shim_calls_the_entry_point(built):
    _, shim = built
    lib = shim.lib
    rec, f = _record(shim, rc=42)
    slot = shim.ffi.new("uint64_t[1]", [0xABCDEF])
    params = int(shim.ffi.cast("uintptr_t", slot))
    rc = lib.cl_launch(lib.cl_probe_address(), f, 1, 2, 3, 4, 5, 6, 7, 2**63 + 5, params)
    assert rc == 42
    assert list(rec[0:11]) == [1, 2, 3, 4, 5, 6, 7, 2**63 + 5, params, 0xABCDEF, 0]
    rec2, f2 = _record(shim)
    assert lib.cl_launch_coop(lib.cl_probe_address(), f2, 9, 8, 7, 6, 5, 4, 3, 2, params) == 0
    assert list(rec2[0:10]) == [9, 8, 7, 6, 5, 4, 3, 2, params, 0xABCDEF]


def test_corrupt_cache_file_is_rebuilt(tmp_path):
    name, path = _shim.shim_location(str(tmp_path))
    os.makedirs(os.path.dirname(path))
    Path(path).write_bytes(b"\x7fELF not really a shared object")
    shim = _shim.load_shim(str(tmp_path))
    assert shim is not None and shim.lib.cl_abi_version() == _shim.ABI_VERSION
    assert Path(path).read_bytes()[:4] == b"\x7fELF" and os.path.getsize(path) > 1000


def test_corrupt_cache_without_compiler_falls_back(tmp_path):
    name, path = _shim.shim_location(str(tmp_path))
    os.makedirs(os.path.dirname(path))
    Path(path).write_bytes(b"garbage")
    assert _shim.load_shim(str(tmp_path), cc="/nonexistent/cc") is None


def test_no_compiler_falls_back(tmp_path):
    assert _shim.load_shim(str(tmp_path), cc="/nonexistent/cc") is None
    name, path = _shim.shim_location(str(tmp_path))
    assert not os.path.exists(path)


def test_compile_error_falls_back_and_cleans_up(tmp_path):
    assert _shim.load_shim(str(tmp_path), cc="false") is None  # compiler exits 1
    name, path = _shim.shim_location(str(tmp_path))
    assert os.listdir(os.path.dirname(path)) == []


def test_missing_python_headers_fall_back(tmp_path, monkeypatch):
    monkeypatch.setattr(_shim.sysconfig, "get_paths", lambda: {"include": str(tmp_path / "none")})
    assert _shim.load_shim(str(tmp_path / "cache")) is None


def test_unwritable_cache_falls_back(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert _shim.load_shim(str(blocker / "cache")) is None


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
    name, path = _shim.shim_location(str(tmp_path))
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
        assert out.split() == ["OK", str(_shim.ABI_VERSION), path]
    assert os.listdir(os.path.dirname(path)) == [os.path.basename(path)]
    assert _shim.load_shim(str(tmp_path), cc="/nonexistent/cc") is not None


def _shim_namespace(shim, fmt, f):
    L = importlib.import_module("cudalite.driver.launch")

    lay = param_layout(fmt)
    tls = threading.local()
    probe = shim.lib.cl_probe_address()
    ns = dict(raw=shim.lib.cl_launch, raw_coop=shim.lib.cl_launch_coop, entry=probe, entry_coop=probe, f=f,
              tls=tls, buffers=L._buffers_factory(tls, lay), pack_into=lay.struct.pack_into,
              retry=L._retry_factory(0, False))
    return L._generate(ns, lay.count, bindings=False, shim=True), tls


def test_generated_shim_launcher(built):
    _, shim = built
    rec, f = _record(shim)
    (launch, coop), tls = _shim_namespace(shim, "QQQf", f)
    launch((2, 3, 4), (32, 1, 1), 128, 7, 0x1000, 0x2000, 0x3000, 1.5)
    assert bytes(tls.b[0]) == struct.pack("QQQf", 0x1000, 0x2000, 0x3000, 1.5)
    assert list(rec[0:8]) == [2, 3, 4, 32, 1, 1, 128, 7]
    assert rec[8] == tls.b[1]  # the thread's void* array ...
    assert rec[9] == ctypes.addressof(tls.b[2])  # ... whose first entry is the packed buffer
    assert rec[10] == 0  # extra = NULL
    coop((5, 1, 1), (64, 1, 1), 0, 0, 1, 2, 3, 0.0)
    assert list(rec[0:8]) == [5, 1, 1, 64, 1, 1, 0, 0]
    rec[11] = 1  # the "driver" now answers CUDA_ERROR_INVALID_VALUE
    with pytest.raises(CudaDriverError) as info:
        launch((1, 1, 1), (1, 1, 1), 0, 0, 1, 2, 3, 1.0)
    assert info.value.call == "cuLaunchKernel" and info.value.name == "CUDA_ERROR_INVALID_VALUE"
    with pytest.raises(CudaDriverError) as info:
        coop((1, 1, 1), (1, 1, 1), 0, 0, 1, 2, 3, 1.0)
    assert info.value.call == "cuLaunchCooperativeKernel"


def test_shim_buffers_are_per_thread(built):
    _, shim = built
    rec, f = _record(shim)
    (launch, _), tls = _shim_namespace(shim, "q", f)
    launch((1, 1, 1), (1, 1, 1), 0, 0, 11)
    seen = []

    def worker():
        launch((1, 1, 1), (1, 1, 1), 0, 0, 22)
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
    probe = shim.lib.cl_probe_address()
    monkeypatch.setattr(L, "get_driver", lambda: _FakeDriver((shim, probe, probe)))
    lau = L.Launcher(_FakeFunction(f), "Qi")
    assert lau.backend == "shim" and "via shim" in repr(lau)
    lau.launch((3, 1, 1), (128, 1, 1), 0, 5, 0xFEED, 9)
    assert list(rec[0:8]) == [3, 1, 1, 128, 1, 1, 0, 5]
    assert ctypes.c_uint64.from_address(rec[9]).value == 0xFEED  # the first packed value

    monkeypatch.setattr(L, "get_driver", lambda: _FakeDriver(None))
    lau = L.Launcher(_FakeFunction(f), "Qi")
    assert lau.backend == "bindings"  # no compiler here: silently the bindings backend
