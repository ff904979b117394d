"""GPU-less half of the reverse FFI: a Python device function compiled to LTO-IR
links with a CUDA C++ kernel (NVRTC, LTO) into one sm_90 cubin."""

from __future__ import annotations

import os
import subprocess
import sys

from cudalite.linker import LTOIR, CUSource, Linker
from cudalite.nvvm import compile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL = r'''
extern "C" __device__ float axpy(float a, float x, float y);
extern "C" __global__ void saxpy(float* out, const float* x, const float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = axpy(a, x[i], y[i]);
}
'''


def axpy(a, x, y):
    return a * x + y


def test_python_ltoir_links_into_cpp_kernel():
    ltoir, _ = compile(axpy, "float32(float32, float32, float32)", device=True, abi="c", output="ltoir",
                       cc=(9, 0))
    cubin = Linker("sm_90").add(CUSource(KERNEL, name="k.cu"), LTOIR(ltoir, name="axpy.ltoir")).link()
    symbols = cubin.symbol_names()
    assert "saxpy" in symbols
    assert "axpy" not in symbols  # inlined by LTO


def test_cli_exports_the_example_udf(tmp_path):
    out = tmp_path / "axpy.ltoir"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in sys.path if p and os.path.isdir(p))
    r = subprocess.run([sys.executable, "-m", "cudalite.nvvm.cli", "udf.py:axpy",
                        "float32(float32, float32, float32)", "--abi", "c", "--output", "ltoir",
                        "--cc", "9.0", "-o", str(out)],
                       cwd=os.path.join(ROOT, "examples", "cpp-udf"), env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cubin = Linker("sm_90").add(CUSource(KERNEL, name="k.cu"), LTOIR(out.read_bytes(), name="axpy")).link()
    assert "saxpy" in cubin.symbol_names()
