"""Python functions used from CUDA C/C++ (the reverse direction of the FFI).

1. API: ``cudalite.nvvm.compile(axpy, ..., abi="c", output="ltoir")`` linked with a
   C++ kernel compiled by NVRTC to LTO-IR, through cudalite.linker; loaded and run
   with cudalite.driver.
2. Build system: examples/cpp-udf (cudalite-compile -> LTO-IR, nvcc -dlto) is
   built with make and its program run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("linking CUDA C/C++, PTX, cubins or LTO-IR (FFI)")]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CPP_KERNEL = r'''
extern "C" __device__ float axpy(float a, float x, float y);
extern "C" __global__ void saxpy(float* out, const float* x, const float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = axpy(a, x[i], y[i]);
}
'''


def axpy(a, x, y):
    return a * x + y


def test_python_axpy_linked_into_a_cpp_kernel_via_the_api():
    from cudalite import driver
    from cudalite.linker import LTOIR, CUSource, Linker
    from cudalite.nvvm import compile

    dev = driver.get_device(0)
    ltoir, resty = compile(axpy, "float32(float32, float32, float32)", device=True, abi="c",
                           output="ltoir", cc=dev.compute_capability)
    assert str(resty) == "float32"
    cubin = Linker(dev.arch).add(CUSource(CPP_KERNEL, name="saxpy.cu"), LTOIR(ltoir, name="axpy.ltoir")).link()
    fn = driver.load_module(cubin.data).get_function("saxpy")
    n = 4096
    x = np.linspace(-5, 5, n, dtype=np.float32)
    y = np.arange(n, dtype=np.float32)
    dx, dy, dout = (driver.alloc(n * 4) for _ in range(3))
    driver.copy_host_to_device(dx, x)
    driver.copy_host_to_device(dy, y)
    fn.launcher("QQQfi").launch(driver.LaunchConfig(((n + 127) // 128, 1, 1), (128, 1, 1)), dout.ptr, dx.ptr, dy.ptr,
                                1.5, n)
    out = np.empty(n, np.float32)
    driver.copy_device_to_host(out, dout)
    np.testing.assert_allclose(out, 1.5 * x + y, rtol=1e-6)


@pytest.mark.skipif(shutil.which("nvcc") is None or shutil.which("make") is None,
                    reason="the build example needs nvcc and make")
def test_cli_and_makefile_example_builds_and_runs(tmp_path):
    from cudalite import driver

    major, minor = driver.get_device(0).compute_capability
    work = tmp_path / "cpp-udf"
    shutil.copytree(os.path.join(ROOT, "examples", "cpp-udf"), work)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in sys.path if p and os.path.isdir(p))
    compile_cmd = f"{sys.executable} -m cudalite.nvvm.cli"
    build = subprocess.run(["make", f"SM={major}{minor}", f"CUDALITE_COMPILE={compile_cmd}", "main"],
                           cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    assert (work / "axpy.ltoir").stat().st_size > 0
    run = subprocess.run(["./main"], cwd=work, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "cpp-udf OK" in run.stdout
