"""GPU-less tests: import hygiene, error translation, parameter packing, config."""

from __future__ import annotations

import ast
import dataclasses
import os
import pickle
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cudalite.driver import CudaDriverError, pack_params, param_layout
from cudalite.driver.config import DEFAULT_LAUNCH_BACKEND, Config, load_config
from cudalite.driver.errors import STICKY_ERRORS, error_from_code

SRC = Path(__file__).resolve().parents[1] / "src" / "cudalite" / "driver"


def _run(code):
    env_path = str(SRC.parents[1])
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, env={"PYTHONPATH": env_path + ":" + ":".join(sys.path), "PATH": ""},
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_import_touches_nothing():
    out = _run(
        """
        import sys
        import cudalite.driver
        from cudalite.driver import errors, config, params, launch, memory, module, stream, device
        from cudalite.driver import pointer, registration
        bad = [m for m in ("cuda.bindings.driver", "cuda.bindings", "numpy", "cffi") if m in sys.modules]
        print("LOADED", bad)
        """
    )
    assert "LOADED []" in out


def test_module_rules():
    """Only stdlib, cuda.bindings.driver, numpy, cffi; os.environ only in config;
    small modules with a docstring and __all__; no cudalite/__init__.py."""
    allowed_third_party = {"cuda", "numpy", "cffi", "_cffi_backend"}  # _cffi_backend: cffi's C part
    stdlib = set(sys.stdlib_module_names)
    assert not (SRC.parent / "__init__.py").exists()
    for path in SRC.glob("*.py"):
        text = path.read_text()
        tree = ast.parse(text)
        assert ast.get_docstring(tree), path.name
        assert len(text.splitlines()) < 400, path.name
        if path.name != "__init__.py":
            assert "__all__" in text, path.name
        if path.name != "config.py":
            assert "os.environ" not in text and "getenv" not in text, path.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in stdlib or top in allowed_third_party, (path.name, name)
                if top == "cuda":
                    assert name in ("cuda.bindings", "cuda.bindings.driver"), (path.name, name)
                assert not name.startswith(("cudalite.core", "cudalite.nvvm", "cudalite.linker", "llvmlite")), name


def test_error_translation_without_driver():
    err = error_from_code(1, "cuMemAlloc", query_driver=False)
    assert isinstance(err, CudaDriverError) and isinstance(err, RuntimeError)
    assert (err.code, err.name, err.call) == (1, "CUDA_ERROR_INVALID_VALUE", "cuMemAlloc")
    assert "cuMemAlloc" in str(err) and "CUDA_ERROR_INVALID_VALUE" in str(err)
    assert not err.sticky
    assert error_from_code(2, "cuMemAlloc", query_driver=False).name == "CUDA_ERROR_OUT_OF_MEMORY"


def test_error_translation_queries_or_falls_back():
    # With or without libcuda the name is symbolic and the call is named.
    err = error_from_code(700, "cuCtxSynchronize")
    assert err.name == "CUDA_ERROR_ILLEGAL_ADDRESS" and err.sticky and err.message
    assert "sticky" in str(err)
    assert 700 in STICKY_ERRORS


def test_unknown_code():
    err = error_from_code(123456, "cuFoo", query_driver=False)
    assert err.code == 123456 and "123456" in err.name and "cuFoo" in str(err)


def test_error_pickles():
    err = error_from_code(201, "cuLaunchKernel", query_driver=False)
    back = pickle.loads(pickle.dumps(err))
    assert (back.code, back.name, back.call, str(back)) == (err.code, err.name, err.call, str(err))


def test_raise_for():
    from cudalite.driver.errors import raise_for

    with pytest.raises(CudaDriverError) as info:
        raise_for(98, "cuModuleGetFunction")
    assert info.value.name == "CUDA_ERROR_INVALID_IMAGE" or info.value.code == 98


@pytest.mark.parametrize(
    "fmt, values",
    [
        ("QQQf", (1, 2, 3, 1.5)),
        ("q", (-5,)),
        ("i", (7,)),
        ("d", (2.25,)),
        ("B", (255,)),
        ("fQ", (1.0, 0xDEADBEEF)),
        ("BQiHd", (1, 2**63, -3, 4, 5.5)),
        ("?bhIlLnNe", (True, -1, -2, 3, -4, 5, -6, 7, 0.5)),
        ("P", (0x1000,)),
        ("", ()),
    ],
)
def test_pack_equals_struct(fmt, values):
    assert pack_params(fmt, *values) == struct.pack(fmt, *values)


def test_layout_offsets_are_natural():
    lay = param_layout("BQif3d")
    assert lay.format == "BQifddd"
    assert lay.offsets == (0, 8, 16, 20, 24, 32, 40)
    assert lay.sizes == (1, 8, 4, 4, 8, 8, 8)
    assert lay.size == 48 and lay.count == 7
    for off, size in zip(lay.offsets, lay.sizes):
        assert off % size == 0
    assert param_layout("8sQ").offsets == (0, 8)


@pytest.mark.parametrize("bad", ["<QQ", "QZ", "Q x", "=i", "!d"])
def test_bad_formats(bad):
    with pytest.raises(ValueError):
        param_layout(bad)


def test_pack_errors_from_struct():
    with pytest.raises(struct.error):
        pack_params("QQ", 1)
    with pytest.raises(struct.error):
        pack_params("B", 300)


def test_config_defaults_and_parsing():
    assert dataclasses.replace(load_config({}), cache_dir="") == Config()
    assert load_config({"HOME": "/h"}).cache_dir == "/h/.cache/cudalite"
    assert load_config({"XDG_CACHE_HOME": "/x"}).cache_dir == "/x/cudalite"
    assert load_config({"CUDALITE_CACHE_DIR": "/c", "XDG_CACHE_HOME": "/x"}).cache_dir == "/c"
    assert load_config({"CC": "gcc -m64"}).cc == "gcc -m64"
    assert load_config({"CUDALITE_CC": "clang", "CC": "gcc"}).cc == "clang"
    assert load_config({"CUDALITE_LAUNCH_BACKEND": "shim"}).launch_backend == "shim"
    assert load_config({}).launch_backend == DEFAULT_LAUNCH_BACKEND
    assert load_config({"CUDALITE_LAUNCH_BACKEND": " CFFI "}).launch_backend == "cffi"
    assert load_config({"CUDALITE_LAUNCH_BACKEND": "ctypes"}).launch_backend == "ctypes"
    assert load_config({"CUDALITE_LIBCUDA": "/opt/libcuda.so"}).libcuda == "/opt/libcuda.so"
    with pytest.raises(ValueError, match="CUDALITE_LAUNCH_BACKEND"):
        load_config({"CUDALITE_LAUNCH_BACKEND": "magic"})


def test_no_gpu_error_is_a_driver_error():
    """Without libcuda the first use raises CudaDriverError, never something else;
    on a GPU host this just counts devices."""
    from cudalite.driver import device_count

    try:
        assert device_count() >= 0
    except CudaDriverError as err:
        assert err.call == "cuInit"


def _fake_launch(fmt, result=0, ex=False):
    """The generated bindings-kind launch for ``fmt`` over a recording driver entry."""
    import importlib
    import threading

    L = importlib.import_module("cudalite.driver.launch")
    calls = []

    def raw(*a):
        calls.append(a)
        return (result,)

    lay = param_layout(fmt)
    tls = threading.local()
    make = L._factory(lay.count, "bindings", ex)
    common = (raw, None, "F", tls, L._buffers_factory(tls, lay), lay.struct.pack_into, L._retry_factory(0, True))
    consts = ("CFG",) if ex else (2, 1, 1, 32, 1, 1, 0, "S7")
    return make(*common, *consts), tls, calls


def test_generated_launcher_packs_and_calls():
    launch, tls, calls = _fake_launch("QQQf")
    launch(1, 2, 3, 1.5)
    assert bytes(tls.b[0]) == struct.pack("QQQf", 1, 2, 3, 1.5)
    assert calls[0] == ("F", 2, 1, 1, 32, 1, 1, 0, "S7", tls.b[1], 0)
    ex, tls, calls = _fake_launch("QQQf", ex=True)
    ex(4, 5, 6, 2.0)
    assert calls[0] == ("CFG", "F", tls.b[1], 0)
    with pytest.raises(TypeError):
        launch(1, 2)  # wrong number of values


def test_generated_launcher_raises_driver_error():
    launch, _tls, _calls = _fake_launch("i", result=1)
    with pytest.raises(CudaDriverError) as info:
        launch(5)
    assert info.value.call == "cuLaunchKernel" and info.value.name == "CUDA_ERROR_INVALID_VALUE"
    ex, _tls, _calls = _fake_launch("i", result=1, ex=True)
    with pytest.raises(CudaDriverError) as info:
        ex(5)
    assert info.value.call == "cuLaunchKernelEx"


def test_buffers_are_per_thread():
    import threading

    launch, tls, _calls = _fake_launch("q")
    launch(1)
    seen = []

    def worker():
        launch(2)
        seen.append(tls.b[1])

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen and seen[0] != tls.b[1] and bytes(tls.b[0]) == struct.pack("q", 1)


def test_cache_dir_is_never_relative(monkeypatch, tmp_path):
    """Containers: no HOME and no password entry must not give a literal ``./~/.cache``;
    a relative XDG_CACHE_HOME is ignored (XDG spec); a relative CUDALITE_CACHE_DIR is
    taken from the working directory."""
    import os
    import tempfile

    from cudalite.driver import config as C

    monkeypatch.setattr(C.os.path, "expanduser", lambda p: p)  # no password entry: "~" stays "~"
    got = C.default_cache_dir({})
    assert os.path.isabs(got) and got == os.path.join(tempfile.gettempdir(), f"cudalite-{os.getuid()}")
    assert C.default_cache_dir({"XDG_CACHE_HOME": "rel/cache", "HOME": "/h"}) == "/h/.cache/cudalite"
    assert C.default_cache_dir({"HOME": "relative"}) == got
    monkeypatch.chdir(tmp_path)
    assert load_config({"CUDALITE_CACHE_DIR": "c"}).cache_dir == str(tmp_path / "c")


def test_old_driver_is_a_clear_support_error(monkeypatch):
    """A driver older than CUDA 13.0 (before R580) is refused when the driver state is
    made, with CUDA_ERROR_INSUFFICIENT_DRIVER and what to install (GPU-less: the driver
    calls are stubbed)."""
    from cudalite.driver import CudaSupportError, _state

    answers = {"cuInit": None, "cuDriverGetVersion": 12080, "cuDeviceGetCount": 1}
    monkeypatch.setattr(_state, "call", lambda name, *args: answers[name])
    with pytest.raises(CudaSupportError) as info:
        _state.Driver(Config())
    err = info.value
    assert (err.code, err.name, err.call) == (35, "CUDA_ERROR_INSUFFICIENT_DRIVER", "cuDriverGetVersion")
    assert str(err) == (
        "cuDriverGetVersion failed: CUDA_ERROR_INSUFFICIENT_DRIVER (35): the NVIDIA driver supports CUDA 12.8 "
        "(12080); cudalite needs CUDA 13.0 or newer, an R580 or newer driver (nvidia-smi shows the driver and "
        "its CUDA version): the CUDA 13 libraries it compiles with make code an older driver cannot load")
    _state.check_driver_version(13000)  # CUDA 13.0 itself is enough
    _state.check_driver_version(13020)


def test_import_does_not_import_logging_and_warnings_never_reach_last_resort():
    """``import cudalite.cuda`` does not pay for :mod:`logging`; the first logger a
    package asks for puts a NullHandler on ``cudalite``, so a WARNING record is not
    printed by logging's last-resort handler (the user sees the warnings.warn once)."""
    code = textwrap.dedent("""
        import sys
        from cudalite import cuda
        print("logging" in sys.modules)
        from cudalite.driver.logs import library_logger
        library_logger("cudalite.driver._shim").warning("a record nobody asked to see")
        print("done")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "done"] and proc.stderr == ""
