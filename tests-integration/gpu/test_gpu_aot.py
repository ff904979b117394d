"""Ahead-of-time kernels on the GPU: a fatbin built by ``cudalite-compile --emit fatbin``
(for this device's architecture and others) is loaded by ``cuda.load_kernel`` in a fresh
process and launched like any kernel -- without compiling: the frontend, typing,
lowering, llvmlite and libNVVM are never imported or loaded there.  Results checked against NumPy."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cudalite import cuda

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("loads a fatbin with the CUDA driver")]

KERNELS = textwrap.dedent("""
    from cudalite import cuda

    def saxpy(out, x, y, a):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]
""")

RUN = textwrap.dedent("""
    import json, sys
    import numpy as np
    from cudalite import cuda

    k = cuda.load_kernel(sys.argv[1], "void(float32[::1], float32[::1], float32[::1], float32)")
    n = 10_000
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 0.25, np.float32)
    out = cuda.device_array(n, np.float32)
    k[(n + 255) // 256, 256](out, cuda.to_device(x), cuda.to_device(y), 2.0)
    k[(n + 255) // 256, 256](out, cuda.to_device(x), cuda.to_device(y), 2)  # an int converts, as eager
    got = out.copy_to_host()
    compiler = ("cudalite.nvvm.lower", "cudalite.nvvm.pipeline", "cudalite.nvvm.libnvvm", "cuda.bindings.nvvm",
                "llvmlite", "cudalite.core.frontend", "cudalite.core.typing")
    loaded = sorted(m for m in sys.modules if m.startswith(compiler))
    loaded += ["libnvvm.so"] * ("libnvvm" in open("/proc/self/maps").read())
    print(json.dumps({"ok": bool(np.array_equal(got, 2 * x + y)), "compiler_modules": loaded,
                      "status": next(iter(k.overloads.values())).status, "sigs": len(k.signatures)}))
""")


def _env(tmp_path=None):
    paths = [p for p in sys.path if p]
    if tmp_path is not None:  # the linker's --emit fatbin entry point, for source-tree runs
        from plugin_path import fatbin_plugin_dir

        paths.insert(0, fatbin_plugin_dir(tmp_path))
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths))


def test_fatbin_built_ahead_of_time_runs_without_compiling(gpu, tmp_path):
    major, minor = cuda.get_current_device().compute_capability
    here = f"{major}{minor}"
    (tmp_path / "kernels.py").write_text(KERNELS)
    fatbin = tmp_path / "saxpy.fatbin"
    targets = ",".join(sorted({"80", here}))
    build = subprocess.run([sys.executable, "-m", "cudalite.nvvm.cli", "kernels.py:saxpy",
                            "void(float32[::1], float32[::1], float32[::1], float32)", "--kernel", "--emit", "fatbin",
                            "--cc", targets, "-o", str(fatbin)], capture_output=True, text=True, env=_env(tmp_path),
                           cwd=tmp_path)
    assert build.returncode == 0, build.stderr
    (tmp_path / "run.py").write_text(RUN)
    run = subprocess.run([sys.executable, str(tmp_path / "run.py"), str(fatbin)], capture_output=True, text=True,
                         env=_env(), cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr
    import json

    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out == {"ok": True, "compiler_modules": [], "status": "ahead-of-time", "sigs": 1}


def test_load_kernel_names_what_the_image_holds(gpu, tmp_path):
    def two(a):
        a[0] = 2

    fb, _ = cuda.compile(two, "void(int32[::1])", device=False, output="fatbin",
                         cc=[cuda.get_current_device().compute_capability])
    with pytest.raises(ValueError, match="has no kernel 'nope'; it holds: .*two"):
        cuda.load_kernel(fb, "void(int32[::1])", name="nope")
    k = cuda.load_kernel(fb, "void(int32[::1])")
    a = cuda.to_device(np.zeros(1, np.int32))
    k[1, 1](a)
    assert a.copy_to_host()[0] == 2
