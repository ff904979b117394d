"""GPU-less tests of the one launch value and the one launch entry: LaunchConfig
validation, equality and hashing; the cuLaunchKernelEx structs (layout against
cuda.h and cuda.bindings, contents per attribute); the generated per-call code; and
``Launcher.bind``/``launch`` and the generic ``launch`` over faked driver entries
(the ``bindings`` and ``cffi``/``ctypes`` backends; the shim is in test_shim.py)."""

from __future__ import annotations

import ctypes
import glob
import importlib
import os
import shutil
import struct
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite.driver import CudaDriverError, LaunchConfig, _launchex
from cudalite.driver.config import Config

L = importlib.import_module("cudalite.driver.launch")  # the module (the package exports a function of that name)


# -- LaunchConfig --------------------------------------------------------------------------------------------


def test_config_defaults_and_normalisation():
    cfg = LaunchConfig([np.int64(4), 1, 1], (np.uint32(128), 1, 1), shared_mem=np.int32(16), stream=7)
    assert cfg.grid == (4, 1, 1) and cfg.block == (128, 1, 1)
    assert all(type(v) is int for v in (*cfg.grid, *cfg.block, cfg.shared_mem, cfg.stream))
    assert (cfg.shared_mem, cfg.stream, cfg.cooperative, cfg.cluster, cfg.programmatic_dependent_launch) == (
        16, 7, False, None, False)
    assert not cfg.has_attributes
    same = LaunchConfig((4, 1, 1), (128, 1, 1), 16, 7)
    assert cfg == same and hash(cfg) == hash(same) and {cfg: 1}[same] == 1
    assert cfg != LaunchConfig((4, 1, 1), (128, 1, 1), 16, 8)
    with pytest.raises(dataclasses_frozen()):
        cfg.grid = (1, 1, 1)


def dataclasses_frozen():
    import dataclasses

    return dataclasses.FrozenInstanceError


@pytest.mark.parametrize("changes", [{"cooperative": True}, {"cluster": (2, 1, 1)},
                                     {"programmatic_dependent_launch": True}])
def test_each_attribute_sets_has_attributes(changes):
    base = LaunchConfig((2, 1, 1), (32, 1, 1))
    cfg = base.replace(**changes)
    assert cfg.has_attributes and not base.has_attributes
    assert cfg != base and cfg.grid == base.grid


def test_replace_validates():
    cfg = LaunchConfig((2, 1, 1), (32, 1, 1))
    assert cfg.replace(cluster=[np.int64(2), 1, 1]).cluster == (2, 1, 1)
    with pytest.raises(ValueError, match=r"LaunchConfig.block must be positive in every dimension, got "
                                         r"\(0, 1, 1\) \(x = 0\)"):
        cfg.replace(block=(0, 1, 1))
    with pytest.raises(TypeError, match="LaunchConfig has no field 'blocks'"):
        cfg.replace(blocks=(1, 1, 1))


@pytest.mark.parametrize("kwargs, error, message", [
    ({"grid": 4}, TypeError, "LaunchConfig.grid must be a tuple of 3 positive ints, got 4"),
    ({"grid": (4, 1)}, ValueError, r"LaunchConfig.grid must have 3 entries \(x, y, z\), got \(4, 1\)"),
    ({"grid": (4.0, 1, 1)}, TypeError, r"LaunchConfig.grid must be a tuple of 3 positive ints, got \(4.0, 1, 1\)"),
    ({"grid": (1, -1, 1)}, ValueError, r"LaunchConfig.grid must be positive in every dimension, got \(1, -1, 1\) "
                                       r"\(y = -1\)"),
    ({"block": (1, 1, 2**32)}, ValueError, r"LaunchConfig.block \(1, 1, 4294967296\) does not fit the driver's "
                                           r"unsigned int \(z = 4294967296\)"),
    ({"shared_mem": -1}, ValueError, "LaunchConfig.shared_mem must be >= 0, got -1"),
    ({"shared_mem": 1.5}, TypeError, "LaunchConfig.shared_mem must be an int, got 1.5"),
    ({"shared_mem": True}, TypeError, "LaunchConfig.shared_mem must be an int, got True"),
    ({"stream": -3}, ValueError, "LaunchConfig.stream must be >= 0, got -3"),
    ({"stream": "s"}, TypeError, "LaunchConfig.stream must be an int, got 's'"),
    ({"stream": 2**64}, ValueError, "LaunchConfig.stream must be < 0x10000000000000000, got 0x10000000000000000"),
    ({"cooperative": "yes"}, TypeError, "LaunchConfig.cooperative must be a bool, got 'yes'"),
    ({"cooperative": 2}, TypeError, "LaunchConfig.cooperative must be a bool, got 2"),
    ({"cluster": (2, 0, 1)}, ValueError, r"LaunchConfig.cluster must be positive in every dimension, got "
                                         r"\(2, 0, 1\) \(y = 0\)"),
    ({"cluster": 2}, TypeError, "LaunchConfig.cluster must be a tuple of 3 positive ints, got 2"),
    ({"programmatic_dependent_launch": None}, TypeError,
     "LaunchConfig.programmatic_dependent_launch must be a bool, got None"),
])
def test_config_rejects_bad_fields(kwargs, error, message):
    fields = {"grid": (1, 1, 1), "block": (1, 1, 1), **kwargs}
    with pytest.raises(error, match=f"^{message}$"):
        LaunchConfig(**fields)


def test_flags_accept_0_and_1():
    cfg = LaunchConfig((1, 1, 1), (1, 1, 1), cooperative=1, programmatic_dependent_launch=0)
    assert cfg.cooperative is True and cfg.programmatic_dependent_launch is False


# -- cuLaunchKernelEx structs --------------------------------------------------------------------------------

# cuda.h (CUDA 12.x/13.x): offsetof/sizeof of what cudalite fills in
LAYOUT = {"sizeof(CUlaunchConfig)": 56, "offsetof(CUlaunchConfig, gridDimX)": 0,
          "offsetof(CUlaunchConfig, blockDimX)": 12, "offsetof(CUlaunchConfig, sharedMemBytes)": 24,
          "offsetof(CUlaunchConfig, hStream)": 32, "offsetof(CUlaunchConfig, attrs)": 40,
          "offsetof(CUlaunchConfig, numAttrs)": 48, "sizeof(CUlaunchAttribute)": 72,
          "offsetof(CUlaunchAttribute, id)": 0, "offsetof(CUlaunchAttribute, value)": 8,
          "sizeof(CUlaunchAttributeValue)": 64, "offsetof(CUlaunchAttributeValue, cooperative)": 0,
          "offsetof(CUlaunchAttributeValue, clusterDim)": 0,
          "offsetof(CUlaunchAttributeValue, programmaticStreamSerializationAllowed)": 0,
          "CU_LAUNCH_ATTRIBUTE_COOPERATIVE": 2, "CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION": 4,
          "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION": 6}


def _ctypes_layout():
    X = _launchex
    out = {}
    for key in LAYOUT:
        if key.startswith("sizeof("):
            out[key] = ctypes.sizeof(getattr(X, key[7:-1]))
        elif key.startswith("offsetof("):
            struct_name, field = key[9:-1].split(", ")
            out[key] = getattr(getattr(X, struct_name), field).offset
        else:
            out[key] = getattr(X, key)
    return out


def test_struct_layout_is_cuda_h():
    assert _ctypes_layout() == LAYOUT
    assert ctypes.alignment(_launchex.CUlaunchAttributeValue) == 8


def _cuda_h():
    roots = [os.environ.get("CUDA_HOME", ""), os.environ.get("CUDA_PATH", ""), "/usr/local/cuda"]
    roots += [str(Path(p) / "nvidia" / "*") for p in sys.path]
    for root in roots:
        for header in sorted(glob.glob(os.path.join(root, "include", "cuda.h"))):
            if "CUlaunchConfig_st" in Path(header).read_text(errors="replace"):
                return header
    return None


def test_struct_layout_against_the_header(tmp_path):
    """The offsets as a C compiler lays out cuda.h's own structs (when a CUDA header
    and a compiler are at hand: the nvidia-cuda-runtime wheel has the header)."""
    header, cc = _cuda_h(), shutil.which("cc") or shutil.which("gcc")
    if header is None or cc is None:
        pytest.skip("no cuda.h with CUlaunchConfig, or no C compiler")
    lines = "\n".join(f'    printf("%s=%ld\\n", "{k}", (long)({k}));' for k in LAYOUT)
    src = tmp_path / "layout.c"
    src.write_text(f"#include <stdio.h>\n#include <stddef.h>\n#include <cuda.h>\nint main(void) {{\n{lines}\n"
                   f"    return 0;\n}}\n")
    exe = tmp_path / "layout"
    subprocess.run([cc, "-I", os.path.dirname(header), str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    got = dict(line.split("=") for line in out.splitlines())
    assert {k: int(v) for k, v in got.items()} == LAYOUT == _ctypes_layout()


def _bytes_at(address, n):
    return ctypes.string_at(address, n)


ATTRIBUTE_CASES = [
    ({"cooperative": True}, [(2, struct.pack("i", 1))]),
    ({"cluster": (2, 3, 1)}, [(4, struct.pack("III", 2, 3, 1))]),
    ({"programmatic_dependent_launch": True}, [(6, struct.pack("i", 1))]),
    ({"cooperative": True, "cluster": (4, 1, 1), "programmatic_dependent_launch": True},
     [(2, struct.pack("i", 1)), (4, struct.pack("III", 4, 1, 1)), (6, struct.pack("i", 1))]),
]


@pytest.mark.parametrize("changes, expected", ATTRIBUTE_CASES)
def test_native_config_contents(changes, expected):
    cfg = LaunchConfig((8, 2, 1), (64, 2, 1), shared_mem=4096, stream=0xDEADBEEF00, **changes)
    native = _launchex.native_config(cfg)
    raw = _bytes_at(ctypes.addressof(native), 56)
    assert struct.unpack_from("7I", raw) == (8, 2, 1, 64, 2, 1, 4096)
    stream, attrs, count = struct.unpack_from("QQI", raw, 32)
    assert stream == 0xDEADBEEF00 and count == len(expected) and attrs == ctypes.addressof(native._keep)
    array = _bytes_at(attrs, 72 * count)
    for i, (ident, value) in enumerate(expected):
        entry = array[72 * i: 72 * (i + 1)]
        assert struct.unpack_from("i", entry)[0] == ident
        assert entry[8:] == value.ljust(64, b"\0")  # the rest of the union is zero


def test_native_config_without_attributes_and_default_stream():
    native = _launchex.native_config(LaunchConfig((1, 1, 1), (1, 1, 1)))
    assert native.hStream is None and not native.attrs and native.numAttrs == 0


@pytest.mark.parametrize("changes, expected", ATTRIBUTE_CASES)
def test_native_config_matches_cuda_bindings(changes, expected):
    """Byte for byte what cuda.bindings' own CUlaunchConfig (compiled against cuda.h)
    holds for the same configuration, and what the bindings backend passes."""
    bindings = pytest.importorskip("cuda.bindings.driver")
    cfg = LaunchConfig((8, 2, 1), (64, 2, 1), shared_mem=4096, stream=0x7000, **changes)
    native = _launchex.native_config(cfg)
    theirs, keep = _launchex.bindings_config(cfg, bindings)
    assert len(keep) == len(expected)
    mine_raw, their_raw = _bytes_at(ctypes.addressof(native), 56), _bytes_at(theirs.getPtr(), 56)
    assert mine_raw[:40] == their_raw[:40] and mine_raw[48:52] == their_raw[48:52]  # all but the attrs pointer
    their_attrs = struct.unpack_from("Q", their_raw, 40)[0]
    assert _bytes_at(their_attrs, 72 * len(expected)) == _bytes_at(ctypes.addressof(native._keep),
                                                                    72 * len(expected))


# -- generated code ------------------------------------------------------------------------------------------


def test_generated_source_plain_shim():
    assert L.generate_source(2, "shim", False) == '''
def make(raw, entry, f, tls, buffers, pack_into, retry, GX, GY, GZ, BX, BY, BZ, SMEM, S):
    def launch(a0, a1):
        try:
            b = tls.b
        except AttributeError:
            b = buffers()
        pack_into(b[0], 0, a0, a1)
        err = raw(entry, f, GX, GY, GZ, BX, BY, BZ, SMEM, S, b[1])
        if err:
            retry(err, "cuLaunchKernel", raw, (entry, f, GX, GY, GZ, BX, BY, BZ, SMEM, S, b[1],))
    return launch
'''


@pytest.mark.parametrize("kind, ex, call", [
    ("shim", True, 'err = raw(entry, CFG, f, b[1])\n'),
    ("bindings", False, "err = raw(f, GX, GY, GZ, BX, BY, BZ, SMEM, S, b[1], 0)[0]\n"),
    ("bindings", True, "err = raw(CFG, f, b[1], 0)[0]\n"),
    ("native", False, "err = raw(f, GX, GY, GZ, BX, BY, BZ, SMEM, S, b[1], 0)\n"),
    ("native", True, "err = raw(CFG, f, b[1], 0)\n"),
])
def test_generated_source_calls_one_entry(kind, ex, call):
    src = L.generate_source(1, kind, ex)
    assert call in src and src.count("raw(") == 1  # one driver call (the retry gets the entry itself)
    assert ('"cuLaunchKernelEx"' in src) == ex and ("CFG" in src) == ex
    assert "def launch(a0):" in src and "pack_into(b[0], 0, a0)" in src


def test_generated_code_is_shared_and_kinds_checked():
    assert L._factory(3, "native", True) is L._factory(3, "native", True)
    assert L._factory(3, "native", True) is not L._factory(3, "native", False)
    with pytest.raises(ValueError, match="unknown launch code kind 'cffi'"):
        L.generate_source(1, "cffi", False)


# -- Launcher over faked driver entries ----------------------------------------------------------------------


class _Recorder:
    """A driver entry point: records its arguments, returns ``results`` in turn."""

    def __init__(self, bindings, results=(0,)):
        self.calls, self.bindings, self.results = [], bindings, list(results)

    def __call__(self, *args):
        rc = self.results.pop(0) if len(self.results) > 1 else self.results[0]
        if args and isinstance(args[0], int) and len(args) == 4:  # native Ex: decode the config now
            args = (_bytes_at(args[0], 56),) + args
        self.calls.append(args)
        return (rc,) if self.bindings else rc


class _FakeFunction:
    def __init__(self):
        self.handle, self._cu, self.device_id, self.name = 0xF00D, "CUfunction", 0, "fake"


class _FakeDriver:
    def __init__(self, backend, lib=None):
        self.config, self.lib = Config(launch_backend=backend), lib

    def native(self, backend):
        return self.lib


def _launcher(monkeypatch, backend, fmt="Qi", results=(0,)):
    """A Launcher whose driver entries are recorders: ``(launcher, plain, ex)``."""
    bindings = backend == "bindings"
    plain, ex = _Recorder(bindings, results), _Recorder(bindings, results)
    if bindings:
        real = pytest.importorskip("cuda.bindings.driver")
        fake = types.SimpleNamespace(cuLaunchKernel=plain, cuLaunchKernelEx=ex, CUstream=real.CUstream,
                                     CUlaunchConfig=real.CUlaunchConfig, CUlaunchAttribute=real.CUlaunchAttribute,
                                     CUlaunchAttributeID=real.CUlaunchAttributeID)
        monkeypatch.setattr(importlib.import_module("cudalite.driver._cu"), "cu", lambda: fake)
        monkeypatch.setattr(L, "get_driver", lambda: _FakeDriver(backend))
    else:
        lib = types.SimpleNamespace(cuLaunchKernel=plain, cuLaunchKernelEx=ex)
        monkeypatch.setattr(L, "get_driver", lambda: _FakeDriver(backend, lib))
    return L.Launcher(_FakeFunction(), fmt, backend=backend), plain, ex


@pytest.mark.parametrize("backend", ["bindings", "cffi", "ctypes"])
def test_bind_without_attributes_calls_cuLaunchKernel(monkeypatch, backend):
    lau, plain, ex = _launcher(monkeypatch, backend)
    cfg = LaunchConfig((3, 2, 1), (128, 1, 1), shared_mem=256, stream=0x5000)
    launch = lau.bind(cfg)
    assert launch.config is cfg
    launch(0xFEED, 9)
    (args,) = plain.calls
    assert ex.calls == []
    f = "CUfunction" if backend == "bindings" else 0xF00D
    assert args[0] == f and args[1:8] == (3, 2, 1, 128, 1, 1, 256) and args[10] == 0
    assert (int(args[8]) if backend == "bindings" else args[8]) == 0x5000
    params = args[9]
    assert ctypes.c_uint64.from_address(ctypes.c_void_p.from_address(params).value).value == 0xFEED
    assert ctypes.c_int32.from_address(ctypes.c_void_p.from_address(params + 8).value).value == 9
    with pytest.raises(TypeError):
        launch(1)  # one value per parameter


@pytest.mark.parametrize("backend", ["bindings", "cffi", "ctypes"])
@pytest.mark.parametrize("changes, expected", ATTRIBUTE_CASES)
def test_bind_with_attributes_calls_cuLaunchKernelEx(monkeypatch, backend, changes, expected):
    lau, plain, ex = _launcher(monkeypatch, backend)
    cfg = LaunchConfig((4, 1, 1), (32, 1, 1), shared_mem=64, stream=0x6000, **changes)
    launch = lau.bind(cfg)
    launch(0xBEEF, 3)
    launch(0xBEEF, 4)
    assert plain.calls == [] and len(ex.calls) == 2
    if backend == "bindings":
        config, f, params, extra = ex.calls[0]
        assert config.gridDimX == 4 and config.blockDimX == 32 and config.sharedMemBytes == 64
        assert int(config.hStream) == 0x6000 and config.numAttrs == len(expected)
        assert [int(a.id) for a in config.attrs] == [ident for ident, _ in expected]
        assert config is ex.calls[1][0]  # built once, at bind time
    else:
        raw, address, f, params, extra = ex.calls[0]
        assert raw == _bytes_at(ctypes.addressof(launch.keep), 56) and address == ctypes.addressof(launch.keep)
        assert struct.unpack_from("7I", raw) == (4, 1, 1, 32, 1, 1, 64) and struct.unpack_from("Q", raw, 32) == (
            0x6000,)
        assert struct.unpack_from("I", raw, 48)[0] == len(expected)
        assert ex.calls[1][1] == address  # the same prepared struct
    assert extra == 0
    assert f == ("CUfunction" if backend == "bindings" else 0xF00D)
    assert ctypes.c_int32.from_address(ctypes.c_void_p.from_address(params + 8).value).value == 4


@pytest.mark.parametrize("backend", ["bindings", "cffi", "ctypes"])
@pytest.mark.parametrize("attrs", [False, True])
def test_bound_launch_raises_driver_errors(monkeypatch, backend, attrs):
    lau, _plain, _ex = _launcher(monkeypatch, backend, results=(1,))
    launch = lau.bind(LaunchConfig((1, 1, 1), (1, 1, 1), cooperative=attrs))
    with pytest.raises(CudaDriverError) as info:
        launch(1, 2)
    assert info.value.call == ("cuLaunchKernelEx" if attrs else "cuLaunchKernel")
    assert info.value.name == "CUDA_ERROR_INVALID_VALUE"


@pytest.mark.parametrize("attrs", [False, True])
def test_invalid_context_is_retried_with_the_same_arguments(monkeypatch, attrs):
    lau, plain, ex = _launcher(monkeypatch, "cffi", results=(201, 0))
    monkeypatch.setattr(L, "get_driver", lambda: types.SimpleNamespace(current=lambda: 0))
    lau.bind(LaunchConfig((2, 1, 1), (1, 1, 1), programmatic_dependent_launch=attrs))(5, 6)
    calls = (ex if attrs else plain).calls
    assert len(calls) == 2 and calls[0] == calls[1]


def test_bind_takes_a_launch_config(monkeypatch):
    lau, _plain, _ex = _launcher(monkeypatch, "cffi")
    with pytest.raises(TypeError, match="Launcher.bind takes a cudalite.driver.LaunchConfig, got tuple"):
        lau.bind(((1, 1, 1), (1, 1, 1)))
    assert not hasattr(lau, "launch_cooperative")


def test_buffers_are_per_thread_and_shared_by_bound_closures(monkeypatch):
    import threading

    lau, plain, _ex = _launcher(monkeypatch, "ctypes", fmt="q")
    one, two = lau.bind(LaunchConfig((1, 1, 1), (1, 1, 1))), lau.bind(LaunchConfig((2, 1, 1), (1, 1, 1)))
    one(11)
    two(12)
    assert plain.calls[0][9] == plain.calls[1][9]  # one argument array per thread
    thread = threading.Thread(target=one, args=(22,))
    thread.start()
    thread.join()
    assert plain.calls[2][9] != plain.calls[0][9]
    assert ctypes.c_int64.from_address(ctypes.c_void_p.from_address(plain.calls[0][9]).value).value == 12


def test_launcher_launch_caches_bound_closures(monkeypatch):
    lau, plain, ex = _launcher(monkeypatch, "cffi")
    cfg = LaunchConfig((1, 1, 1), (32, 1, 1))
    lau.launch(cfg, 1, 2)
    first = lau._bound[cfg]
    lau.launch(LaunchConfig((1, 1, 1), (32, 1, 1)), 3, 4)  # equal value: the same closure
    assert lau._bound[cfg] is first and len(plain.calls) == 2
    lau.launch(cfg.replace(cooperative=True), 5, 6)
    assert len(ex.calls) == 1
    for i in range(L._MAX_CACHED_CONFIGS + 5):
        lau.launch(LaunchConfig((i + 1, 1, 1), (1, 1, 1)), 0, 0)
    assert len(lau._bound) <= L._MAX_CACHED_CONFIGS


# -- the generic launch() --------------------------------------------------------------------------------------


class _GenericFunction(_FakeFunction):
    def __init__(self, launcher):
        super().__init__()
        self.launched, self._launcher = [], launcher

    def launcher(self, fmt):
        assert fmt == self._launcher.param_format
        return self


def _generic(monkeypatch):
    """A fake Function whose launcher records (config, values)."""
    lau, _plain, _ex = _launcher(monkeypatch, "cffi")
    fn = _GenericFunction(lau)
    fn.launch = lambda config, *values: fn.launched.append((config, values))
    return fn


def test_generic_launch_builds_one_config(monkeypatch):
    fn = _generic(monkeypatch)
    mem = types.SimpleNamespace(ptr=0xA000)
    drv.launch(fn, 10, (32, 2), [(mem, "Q"), (7, "i")], shared_mem=128, stream=5)
    drv.launch(fn, (10,), 32, [(0xB000, "Q"), (8, "i")], cooperative=True, cluster=2)
    drv.launch_cooperative(fn, 4, 64, [(0xC000, "Q"), (9, "i")])
    assert fn.launched == [
        (LaunchConfig((10, 1, 1), (32, 2, 1), 128, 5), (0xA000, 7)),
        (LaunchConfig((10, 1, 1), (32, 1, 1), cooperative=True, cluster=(2, 1, 1)), (0xB000, 8)),
        (LaunchConfig((4, 1, 1), (64, 1, 1), cooperative=True), (0xC000, 9)),
    ]


def test_generic_launch_with_a_config(monkeypatch):
    fn = _generic(monkeypatch)
    cfg = LaunchConfig((2, 1, 1), (8, 1, 1), stream=3)
    drv.launch(fn, cfg, [(1, "Q"), (2, "i")])
    drv.launch(fn, config=cfg, args=[(1, "Q"), (2, "i")], shared_mem=32)
    drv.launch_cooperative(fn, cfg, args=[(1, "Q"), (2, "i")])
    assert [c for c, _ in fn.launched] == [cfg, cfg.replace(shared_mem=32), cfg.replace(cooperative=True)]
    with pytest.raises(TypeError, match="launch\\(\\) takes grid/block or config=, not both"):
        drv.launch(fn, 1, 1, config=cfg)
    with pytest.raises(TypeError, match="takes the args in the third position or the second"):
        drv.launch(fn, cfg, [(1, "Q")], [(2, "i")])
    with pytest.raises(TypeError, match="launch_cooperative\\(\\) always launches cooperatively"):
        drv.launch_cooperative(fn, cfg, cooperative=False)


def test_generic_launch_rejects_bad_dimensions(monkeypatch):
    fn = _generic(monkeypatch)
    with pytest.raises(ValueError, match="launch dimensions must have 1 to 3 entries"):
        drv.launch(fn, (1, 1, 1, 1), 1, [])
    with pytest.raises(ValueError, match="LaunchConfig.grid must be positive"):
        drv.launch(fn, 0, 1, [])
    with pytest.raises(TypeError, match="LaunchConfig.block must be a tuple of 3 positive ints"):
        drv.launch(fn, 1, 2.5, [])
    with pytest.raises(TypeError, match="launch\\(\\) needs grid and block, or a LaunchConfig"):
        drv.launch(fn)
    assert fn.launched == []
