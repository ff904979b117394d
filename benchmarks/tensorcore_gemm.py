"""Tensor-core GEMM throughput: the cudalite Python kernel of ``examples/tc_gemm.py``
(mma.sync, ldmatrix, cp.async) against cuBLAS (CuPy's ``matmul`` of float16 arrays), and
the same kernel without asynchronous copies, in one run.

C = A @ B for M = N = K = ``--size`` (default 4096); A, B float16; cudalite's C is
float32 (accumulated in float32, as cuBLAS does for float16 GEMMs), cuBLAS's float16.
Each figure is the median of ``--reps`` timed runs (CUDA events) after a warm-up;
results are checked against cuBLAS within float16 tolerance.  Target (issue 13):
cudalite >= 50% of cuBLAS's throughput at 4096^3 on an H100.
Run on a GPU host with CuPy: ``python benchmarks/tensorcore_gemm.py``.
"""

from __future__ import annotations

import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))


def mma_peak_kernel(cuda, types):
    """Back-to-back mma.sync m16n8k16 (f16 -> f32) on registers, eight independent
    accumulators per warp: the instruction's throughput ceiling, no memory traffic."""

    @cuda.jit
    def peak(out, iters):
        lane = cuda.laneid
        a = (types.uint32(lane), types.uint32(lane + 1), types.uint32(lane + 2), types.uint32(lane + 3))
        b = (types.uint32(lane + 4), types.uint32(lane + 5))
        acc = cuda.local.array(32, types.float32)
        for i in range(32):
            acc[i] = types.float32(0)
        for _ in range(iters):
            for j in range(8):
                d = cuda.mma.m16n8k16_f16_f32(a, b, (acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]))
                acc[4 * j] = d[0]
                acc[4 * j + 1] = d[1]
                acc[4 * j + 2] = d[2]
                acc[4 * j + 3] = d[3]
        total = types.float32(0)
        for i in range(32):
            total += acc[i]
        out[cuda.grid(1)] = total

    return peak


def _time(run, reps, cuda):
    start, end = cuda.event(), cuda.event()
    run()
    cuda.synchronize()
    times = []
    for _ in range(reps):
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(cuda.event_elapsed_time(start, end) / 1e3)
    return statistics.median(times)


def main(argv=None):
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    import numpy as np

    from cudalite import cuda

    try:
        dev = cuda.get_current_device()
    except Exception as e:
        print(f"tensor-core GEMM benchmark skipped: no usable GPU ({e})")
        return
    if dev.compute_capability < (8, 0):
        print("tensor-core GEMM benchmark skipped: needs cc >= 8.0")
        return
    import cupy as cp
    import tc_gemm

    n = args.size
    rng = np.random.default_rng(0)
    a_h = rng.standard_normal((n, n)).astype(np.float16)
    b_h = rng.standard_normal((n, n)).astype(np.float16)
    ca, cb = cp.asarray(a_h), cp.asarray(b_h)
    da, db = cuda.to_device(a_h), cuda.to_device(b_h)
    out = cuda.device_array((n, n), np.float32)
    flop = 2.0 * n * n * n
    ref = {}

    def cublas():
        ref["c"] = ca @ cb

    rows = [("cuBLAS (CuPy matmul, float16)", _time(cublas, args.reps, cuda))]
    expect = cp.asnumpy(ref["c"]).astype(np.float32)
    variants = [("cudalite tc_gemm: 128x256x64 tiles, 3 stages, cp.async", tc_gemm.Config()),
                ("cudalite tc_gemm: 128x256x64 tiles, 3 stages, no async copies", tc_gemm.Config(async_copy=False)),
                ("cudalite tc_gemm: 128x256x64 tiles, 4 stages, cp.async", tc_gemm.Config(stages=4)),
                ("cudalite tc_gemm: 128x256x32 tiles, 4 stages, cp.async", tc_gemm.Config(bk=32, stages=4)),
                ("cudalite tc_gemm: 128x128x64 tiles, 3 stages, cp.async", tc_gemm.Config(wn=32))]
    regs = {}
    for name, config in variants:
        kernel = tc_gemm.make_gemm(config)

        def run(kernel=kernel):
            tc_gemm.matmul(kernel, da, db, out)

        rows.append((name, _time(run, args.reps, cuda)))
        regs[name] = next(iter(kernel.get_regs_per_thread().values()))
        got = out.copy_to_host()
        scale = np.abs(expect).max()
        err = np.abs(got - expect).max() / scale
        if err > 2e-3:
            raise SystemExit(f"{name}: max error {err:.2e} of the largest value against cuBLAS")
    peak = mma_peak_kernel(cuda, __import__("cudalite").types)
    blocks, iters = dev.MULTIPROCESSOR_COUNT * 4, 4096
    sink = cuda.device_array(blocks * 256, np.float32)
    t_peak = _time(lambda: peak[blocks, 256](sink, iters), 5, cuda)
    peak_tflops = blocks * 8 * iters * 8 * (2 * 16 * 8 * 16) / t_peak / 1e12
    base = rows[0][1]
    print(f"# device: {dev.name}; {n}^3 float16 GEMM; median of {args.reps}; mma.sync m16n8k16 f16->f32 "
          f"ceiling (registers only): {peak_tflops:.0f} TFLOP/s")
    print("| kernel | ms | TFLOP/s | of cuBLAS | registers per thread |")
    print("|---|---:|---:|---:|---:|")
    for name, t in rows:
        print(f"| {name} | {t * 1e3:.3f} | {flop / t / 1e12:.1f} | {base / t * 100:.1f}% | {regs.get(name, '')} |")
    print(f"\nasync copies: {rows[2][1] / rows[1][1]:.2f}x faster than plain loads")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "tensorcore_gemm", "device": dev.name, "size": n,
                       "mma_sync_peak_tflops": peak_tflops,
                       "rows": [{"name": r[0], "seconds": r[1], "tflops": flop / r[1] / 1e12,
                                 "registers": regs.get(r[0])} for r in rows]}, f,
                      indent=1)


if __name__ == "__main__":
    main()
