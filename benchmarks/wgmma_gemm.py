"""Hopper GEMM throughput: the cudalite Python kernel of ``examples/wgmma_gemm.py`` (TMA +
wgmma, warp-specialised, persistent; sm_90a) against cuBLAS through torch in the same run.

C = A @ B.T for M = N = K = ``--size`` (default 8192), A (M x K) and B (N x K) K-major,
float16 and bfloat16 (C in the inputs' dtype) and fp8 e4m3 (C bfloat16), float32
accumulation; torch computes the same product with ``torch.nn.functional.linear(a, b)``
(cuBLAS) and, for fp8, ``torch._scaled_mm`` with unit scales (cuBLASLt).  Each figure is the
median of ``--reps`` timed runs (CUDA events) after a warm-up; cudalite's C is checked
against torch's and, on 16 rows, against NumPy.  Targets (issue 27): >= 85% of cuBLAS for
float16/bfloat16, >= 75% of cuBLASLt's fp8 GEMM for e4m3.
Run on an H100/H200 with torch: ``python benchmarks/wgmma_gemm.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))

from bench_util import gpu_ms, gpu_or_skip  # noqa: E402


def _device_of(cuda, a):
    """A device array of ``a`` (any dtype, bfloat16 included) through its bytes."""
    from cudalite.cuda.devicearray import DeviceNDArray

    raw = cuda.to_device(a.view(np.uint8))
    return DeviceNDArray(a.shape, a.strides, a.dtype, ptr=raw._ptr, owner=raw)


def run_case(cuda, torch, wg, name, size, reps):
    """One dtype: cudalite's kernel and torch's cuBLAS (F.linear; for e4m3 ``torch._scaled_mm``,
    cuBLASLt's fp8 GEMM, unit scales, bfloat16 out) on the same inputs."""
    import ml_dtypes

    in_np = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn}[name]
    out_np = np.float16 if name == "f16" else ml_dtypes.bfloat16
    t_in = {"f16": torch.float16, "bf16": torch.bfloat16, "e4m3": torch.float8_e4m3fn}[name]
    bits = np.int16 if name in ("f16", "bf16") else np.uint8
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((size, size)) * 0.5).astype(in_np)
    b = (rng.standard_normal((size, size)) * 0.5).astype(in_np)
    da, db = _device_of(cuda, a), _device_of(cuda, b)
    dc = _device_of(cuda, np.zeros((size, size), out_np))
    gemm = wg.make_gemm(name)
    maps = wg.tensor_maps(da, db, name)
    ta = torch.from_numpy(a.view(bits)).to("cuda").view(t_in)  # the same bits
    tb = torch.from_numpy(b.view(bits)).to("cuda").view(t_in)
    ours = gpu_ms(lambda: wg.matmul(gemm, da, db, dc, maps, dtype=name), reps, 1, cuda.event,
                  cuda.event_elapsed_time, cuda.synchronize) / 1e3
    if name == "e4m3":
        one = torch.ones((), device="cuda")

        def peer():
            return torch._scaled_mm(ta, tb.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    else:
        def peer():
            return torch.nn.functional.linear(ta, tb)
    tc = peer()
    theirs = gpu_ms(peer, reps, 1, lambda: torch.cuda.Event(enable_timing=True), lambda s, e: s.elapsed_time(e),
                    torch.cuda.synchronize) / 1e3
    got = dc.copy_to_host().astype(np.float32)
    ref = tc.float().cpu().numpy()
    err = float(np.abs(got - ref).max() / np.abs(ref).max())
    rows = rng.choice(size, 16, replace=False)  # an independent check: NumPy on 16 rows
    exact = a[rows].astype(np.float32) @ b.astype(np.float32).T
    np_err = float(np.abs(got[rows] - exact).max() / np.abs(exact).max())
    flops = 2.0 * size ** 3
    return {"dtype": name, "size": size, "cudalite_s": ours, "cublas_s": theirs,
            "cudalite_tflops": flops / ours / 1e12, "cublas_tflops": flops / theirs / 1e12,
            "ratio": theirs / ours, "max_rel_err": err, "numpy_rel_err": np_err}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--dtypes", default="f16,bf16,e4m3")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    found = gpu_or_skip("wgmma GEMM", (9, 0))
    if found is None:
        return
    cuda, dev = found
    if tuple(dev.compute_capability) != (9, 0):
        print(f"wgmma GEMM benchmark skipped: wgmma exists only on sm_90a (H100/H200), not {dev.name}")
        return
    try:
        import torch
    except ImportError:
        print("wgmma GEMM benchmark skipped: no torch (cuBLAS) to compare with")
        return
    import wgmma_gemm as wg

    print(f"# device: {dev.name}; C = A @ B.T, {args.size}^3, median of {args.reps}; cuBLAS = torch "
          f"{torch.__version__} F.linear")
    print("| dtype | cudalite TFLOP/s | cuBLAS TFLOP/s | cudalite / cuBLAS | max rel err vs cuBLAS | vs NumPy |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = []
    for name in args.dtypes.split(","):
        r = run_case(cuda, torch, wg, name, args.size, args.reps)
        rows.append(r)
        print(f"| {name} | {r['cudalite_tflops']:.0f} | {r['cublas_tflops']:.0f} | {r['ratio']:.3f} | "
              f"{r['max_rel_err']:.1e} | {r['numpy_rel_err']:.1e} |")
    print("targets: cudalite / cuBLAS >= 0.85 (f16, bf16), >= 0.75 (e4m3 vs cuBLASLt's fp8 GEMM)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "wgmma_gemm", "device": dev.name, "rows": rows}, f, indent=1)

if __name__ == "__main__":
    main()
