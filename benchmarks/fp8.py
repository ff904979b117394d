"""fp8 conversions: cudalite kernels written with ``cuda.fp8`` against the same CUDA C with
``cuda_fp8.h``'s types (CuPy RawKernel, NVRTC or nvcc), in one run.

Three element-wise kernels over ``n`` float32 values, what fp8 training and inference
code does around its matrix multiplies::

    quantize_e4m3:   q[i] = fp8_e4m3(x[i] * s)         # __nv_fp8_e4m3(x[i] * s)
    quantize_e5m2:   q[i] = fp8_e5m2(x[i] * s)         # __nv_fp8_e5m2(x[i] * s)
    dequantize_e4m3: y[i] = float32(q[i]) * s          # float(q[i]) * s

The conversions saturate and round to nearest even (PTX ``cvt.rn.satfinite`` on sm_89+).
GPU time per call: CUDA events around back-to-back calls, median of ``--reps``; every
result is compared bit for bit with the CUDA C one.  Ratios: CUDA C time / cudalite
time (above 1.00x: cudalite faster).  Nothing is asserted.

    python benchmarks/fp8.py [--quick] [--reps 20] [--n 100000000]
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_util import (  # noqa: E402
    cupy_module, gpu_ms, peers_or_skip, ratio, size_options, sync_both, table,
)

TPB = 256
INNER = 5

CUDA_C = r"""
#include <cuda_fp8.h>

extern "C" __global__ void quantize_e4m3(const float* x, __nv_fp8_e4m3* q, float s, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) q[i] = __nv_fp8_e4m3(x[i] * s);
}

extern "C" __global__ void quantize_e5m2(const float* x, __nv_fp8_e5m2* q, float s, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) q[i] = __nv_fp8_e5m2(x[i] * s);
}

extern "C" __global__ void dequantize_e4m3(const __nv_fp8_e4m3* q, float* y, float s, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = float(q[i]) * s;
}
"""

NAMES = ("quantize_e4m3", "quantize_e5m2", "dequantize_e4m3")
SIGS = {"quantize_e4m3": "void(float32[::1], fp8_e4m3[::1], float32)",
        "quantize_e5m2": "void(float32[::1], fp8_e5m2[::1], float32)",
        "dequantize_e4m3": "void(fp8_e4m3[::1], float32[::1], float32)"}


def kernels(cuda, types):
    """The cudalite kernels, by the CUDA C names."""
    from cudalite.cuda.fp8 import fp8_e4m3, fp8_e5m2

    f32 = types.float32

    def quantize_e4m3(x, q, s):
        i = cuda.grid(1)
        if i < x.size:
            q[i] = fp8_e4m3(x[i] * s)

    def quantize_e5m2(x, q, s):
        i = cuda.grid(1)
        if i < x.size:
            q[i] = fp8_e5m2(x[i] * s)

    def dequantize_e4m3(q, y, s):
        i = cuda.grid(1)
        if i < q.size:
            y[i] = f32(q[i]) * s

    fns = {"quantize_e4m3": quantize_e4m3, "quantize_e5m2": quantize_e5m2, "dequantize_e4m3": dequantize_e4m3}
    return {name: cuda.jit(SIGS[name])(fns[name]) for name in NAMES}


def compile_check(cc=(9, 0)):
    """GPU-less: ``{name: PTX for cc}`` of the cudalite kernels."""
    from cudalite import cuda, types
    from cudalite.core.types import parse_signature

    return {name: k.compile_ptx_for(parse_signature(SIGS[name])[1], cc=cc)
            for name, k in kernels(cuda, types).items()}


def main(argv=None):
    reps, n = size_options(argv, __doc__, "elements", 10**8, 2**22)
    got = peers_or_skip("fp8")
    if got is None:
        return 0
    cuda, dev, cp = got
    import ml_dtypes
    import numpy as np

    from cudalite import types

    lite = kernels(cuda, types)
    peer = cupy_module(cp, CUDA_C, NAMES)
    sync = sync_both(cuda, cp)
    x = (cp.random.standard_normal(n, dtype=cp.float32) * 300).astype(cp.float32)  # past e4m3's 448 at times
    s = np.float32(0.75)
    n64 = np.int64(n)
    blocks = -(-n // TPB)
    rows = []
    dx = cuda.as_cuda_array(x)
    fmts = {"quantize_e4m3": ml_dtypes.float8_e4m3fn, "quantize_e5m2": ml_dtypes.float8_e5m2}
    for name in NAMES:
        if name.startswith("quantize"):
            q_lite = cuda.device_array(n, fmts[name])
            q_c = cp.zeros(n, cp.uint8)
            k = lite[name][blocks, TPB]
            t_lite = gpu_ms(lambda: k(dx, q_lite, s), reps, INNER, cuda.event, cuda.event_elapsed_time, sync)
            t_c = gpu_ms(lambda: peer[name]((blocks,), (TPB,), (x, q_c, s, n64)), reps, INNER, cp.cuda.Event,
                         cp.cuda.get_elapsed_time, sync)
            same = bool((cp.asarray(q_lite.view(np.uint8)) == q_c).all())
            nbytes = 5 * n
        else:
            q_c = cp.zeros(n, cp.uint8)
            peer["quantize_e4m3"]((blocks,), (TPB,), (x, q_c, s, n64))
            q_lite = cuda.as_cuda_array(q_c).view(ml_dtypes.float8_e4m3fn)
            y_lite, y_c = cp.zeros(n, cp.float32), cp.zeros(n, cp.float32)
            dy = cuda.as_cuda_array(y_lite)
            k = lite[name][blocks, TPB]
            t_lite = gpu_ms(lambda: k(q_lite, dy, s), reps, INNER, cuda.event, cuda.event_elapsed_time, sync)
            t_c = gpu_ms(lambda: peer[name]((blocks,), (TPB,), (q_c, y_c, s, n64)), reps, INNER, cp.cuda.Event,
                         cp.cuda.get_elapsed_time, sync)
            same = bool((y_lite.view(cp.uint32) == y_c.view(cp.uint32)).all())
            nbytes = 5 * n
        rows.append([name, f"{t_lite * 1e3:.1f}", f"{t_c * 1e3:.1f}", f"{nbytes / (t_lite * 1e6):.0f}",
                     ratio(t_c, t_lite), "same bits" if same else "DIFFERENT"])
    cc = dev.compute_capability
    print(f"# device: {dev.name} (cc {cc[0]}.{cc[1]}); CuPy {cp.__version__}; n = {n}; "
          f"GPU time per call, median of {reps} x {INNER}")
    table(["kernel", "cudalite µs", "CUDA C µs", "cudalite GB/s", "CUDA C / cudalite", "vs CUDA C"], rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
