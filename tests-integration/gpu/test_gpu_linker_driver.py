"""Proof that cudalite.linker and cudalite.driver stand alone.

CUDA C is compiled with NVRTC and linked by cudalite.linker, loaded and launched
by cudalite.driver, with nothing imported from the compiler (checked in a fresh
process).  A second test links every kind of linkable code into one module.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

pytestmark = [pytest.mark.gpu,
              pytest.mark.nosim("linking CUDA C/C++, PTX, cubins or LTO-IR (FFI)")]

_STANDALONE = textwrap.dedent(r'''
    import sys
    import numpy as np
    from cudalite import driver
    from cudalite.linker import CUSource, Linker

    SRC = """
    extern "C" __global__ void saxpy(float* out, const float* x, const float* y, float a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = a * x[i] + y[i];
    }
    """
    dev = driver.get_device(0)
    cubin = Linker(dev.arch).add(CUSource(SRC, name="saxpy.cu")).link()
    fn = driver.load_module(cubin.data).get_function("saxpy")
    n = 1000
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 0.5, np.float32)
    dx, dy, dout = driver.alloc(x.nbytes), driver.alloc(y.nbytes), driver.alloc(x.nbytes)
    driver.copy_host_to_device(dx, x)
    driver.copy_host_to_device(dy, y)
    fn.launcher("QQQfi").launch(driver.LaunchConfig((4, 1, 1), (256, 1, 1)), dout.ptr, dx.ptr, dy.ptr, 2.0, n)
    out = np.zeros(n, np.float32)
    driver.copy_device_to_host(out, dout)
    np.testing.assert_allclose(out, 2.0 * x + y)
    leaked = sorted(m for m in sys.modules if m.startswith(("cudalite.core", "cudalite.nvvm", "cudalite.cuda",
                                                             "cudalite.types", "llvmlite")))
    assert not leaked, leaked
    print("STANDALONE-OK")
''')


def _child_env():
    env = dict(os.environ)
    paths = [os.path.abspath(p) for p in sys.path if p and os.path.isdir(p)]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def test_nvrtc_link_load_launch_without_the_compiler(tmp_path):
    r = subprocess.run([sys.executable, "-c", _STANDALONE], capture_output=True, text=True,
                       env=_child_env(), cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "STANDALONE-OK" in r.stdout


_PARTS = {
    "ptx": 'extern "C" __device__ int from_ptx(int x) { return x + 1; }',
    "cubin": 'extern "C" __device__ int from_cubin(int x) { return x * 2; }',
    "fatbin": 'extern "C" __device__ int from_fatbin(int x) { return x - 3; }',
    "o": 'extern "C" __device__ int from_object(int x) { return x * x; }',
    "a": 'extern "C" __device__ int from_archive(int x) { return x + 100; }',
}
_MAIN = r'''
extern "C" __device__ int from_ptx(int);
extern "C" __device__ int from_cubin(int);
extern "C" __device__ int from_fatbin(int);
extern "C" __device__ int from_object(int);
extern "C" __device__ int from_archive(int);
extern "C" __global__ void combine(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = from_ptx(i) + from_cubin(i) + from_fatbin(i) + from_object(i) + from_archive(i);
}
'''


def _nvcc(tmp_path, arch, kind, src):
    cu = tmp_path / f"{kind}.cu"
    cu.write_text(src)
    out = tmp_path / f"part.{kind}"
    flags = {
        "ptx": ["-ptx", "-rdc=true"],
        "cubin": ["-cubin", "-rdc=true"],
        "fatbin": ["-fatbin", "-rdc=true"],
        "o": ["-dc"],
    }
    if kind == "a":
        obj = tmp_path / "lib.o"
        subprocess.run(["nvcc", "-dc", f"-arch={arch}", str(cu), "-o", str(obj)], check=True)
        subprocess.run(["nvcc", "-lib", str(obj), "-o", str(out)], check=True)
    else:
        subprocess.run(["nvcc", *flags[kind], f"-arch={arch}", str(cu), "-o", str(out)], check=True)
    return out


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc builds the object and archive inputs")
def test_link_ptx_cubin_fatbin_object_archive_into_one_module(tmp_path):
    import numpy as np

    from cudalite import driver
    from cudalite.linker import CUSource, LinkableCode, Linker

    dev = driver.get_device(0)
    linker = Linker(dev.arch).add(CUSource(_MAIN, name="main.cu"))
    for kind, src in _PARTS.items():
        linker.add(LinkableCode.from_path(str(_nvcc(tmp_path, dev.arch, kind, src))))
    cubin = linker.link()
    fn = driver.load_module(cubin.data).get_function("combine")
    n = 256
    dout = driver.alloc(n * 4)
    fn.launcher("Qi").launch(driver.LaunchConfig((1, 1, 1), (n, 1, 1)), dout.ptr, n)
    out = np.zeros(n, np.int32)
    driver.copy_device_to_host(out, dout)
    i = np.arange(n)
    np.testing.assert_array_equal(out, (i + 1) + (i * 2) + (i - 3) + i * i + (i + 100))
