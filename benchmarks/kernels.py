"""Generated-code speed: GPU time of five kernels, cudalite against its CUDA C twin
(CuPy RawKernel, same algorithm) and numba-cuda, all in one run.

Kernels: saxpy (float32, 64M elements), a shared-memory tiled matmul (2048x2048
float32, 16x16 tiles), a block reduction (sum of 64M float32: grid-stride loop,
shared-memory tree, one atomic per block), a shared-memory histogram (256 bins over
64M uint8) and a 5-point 2-D stencil (8192x8192 float32).

GPU time only: a short spin kernel is queued first, then an event, the kernel, an
event, so the launch delay stays out of the interval; median of REPS runs.  The
cudalite and numba-cuda kernels come from the *same* Python source (``PY_KERNELS``,
only the import line differs); each implementation runs in its own subprocess
(``--worker cudalite|numba|cuda-c``) and checks every result against NumPy once.
numba-cuda needs numpy<2.5: ``--numba-path DIR`` puts DIR first on its sys.path
(e.g. a ``pip install --target DIR 'numpy<2.5'``); if it cannot import it is skipped
with the reason.  Ratios are printed, nothing is asserted.  Targets: saxpy >= 0.98x
the CUDA C bandwidth; the others no slower than min(numba-cuda, CUDA C) + 5%.

    python benchmarks/kernels.py [--numba-path /tmp/np24] [--only saxpy,matmul]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

REPS = 20
SPIN_ITERS = 200_000
N_SAXPY = 64 * 1024 * 1024
N_MATMUL = 2048
TPB = 16
N_REDUCE = 64 * 1024 * 1024
N_HIST = 64 * 1024 * 1024
N_STENCIL = 8192
RED_BLOCK = 256
RED_GRID = 132 * 16
HIST_GRID = 132 * 16
NAMES = ("saxpy", "matmul", "reduction", "histogram", "stencil")

# The numba.cuda-style kernels, shared verbatim by cudalite and numba-cuda.
PY_KERNELS = '''
from {package} import cuda, types

TPB = {tpb}
RED_BLOCK = {red_block}


@cuda.jit
def spin(buf, n):
    v = buf[0]
    for i in range(n):
        v = v * 1.0000001 + 1e-7
    buf[0] = v


@cuda.jit
def saxpy(out, x, y, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=types.float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=types.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tmp = types.float32(0.0)
    for i in range(cuda.gridDim.x):
        sA[ty, tx] = 0.0
        sB[ty, tx] = 0.0
        if y < A.shape[0] and tx + i * TPB < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and ty + i * TPB < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


@cuda.jit
def reduction(x, out):
    s = cuda.shared.array(RED_BLOCK, dtype=types.float32)
    tid = cuda.threadIdx.x
    acc = types.float32(0.0)
    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[k]
    s[tid] = acc
    cuda.syncthreads()
    step = RED_BLOCK // 2
    while step > 0:
        if tid < step:
            s[tid] += s[tid + step]
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        cuda.atomic.add(out, 0, s[0])


@cuda.jit
def histogram(data, hist):
    sh = cuda.shared.array(256, dtype=types.uint32)
    tid = cuda.threadIdx.x
    sh[tid] = 0
    cuda.syncthreads()
    for k in range(cuda.grid(1), data.size, cuda.gridsize(1)):
        cuda.atomic.add(sh, data[k], 1)
    cuda.syncthreads()
    cuda.atomic.add(hist, tid, sh[tid])


@cuda.jit
def stencil(a, b):
    x, y = cuda.grid(2)
    if y > 0 and x > 0 and y < a.shape[0] - 1 and x < a.shape[1] - 1:
        b[y, x] = types.float32(0.2) * (a[y, x] + a[y - 1, x] + a[y + 1, x] + a[y, x - 1] + a[y, x + 1])
'''

CUDA_C = r"""
#define TPB %(tpb)d
#define RED_BLOCK %(red_block)d
extern "C" {
__global__ void spin(double* buf, long long n) {
    double v = buf[0];
    for (long long i = 0; i < n; ++i) v = v * 1.0000001 + 1e-7;
    buf[0] = v;
}
__global__ void saxpy(float* out, const float* x, const float* y, float a, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
__global__ void matmul(const float* A, const float* B, float* C, int n) {
    __shared__ float sA[TPB][TPB];
    __shared__ float sB[TPB][TPB];
    int x = blockIdx.x * TPB + threadIdx.x, y = blockIdx.y * TPB + threadIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    float tmp = 0.0f;
    for (int i = 0; i < gridDim.x; ++i) {
        sA[ty][tx] = 0.0f; sB[ty][tx] = 0.0f;
        if (y < n && tx + i * TPB < n) sA[ty][tx] = A[(long long)y * n + tx + i * TPB];
        if (x < n && ty + i * TPB < n) sB[ty][tx] = B[(long long)(ty + i * TPB) * n + x];
        __syncthreads();
        for (int j = 0; j < TPB; ++j) tmp += sA[ty][j] * sB[j][tx];
        __syncthreads();
    }
    if (y < n && x < n) C[(long long)y * n + x] = tmp;
}
__global__ void reduction(const float* x, float* out, long long n) {
    __shared__ float s[RED_BLOCK];
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (long long k = (long long)blockIdx.x * blockDim.x + tid; k < n; k += (long long)gridDim.x * blockDim.x)
        acc += x[k];
    s[tid] = acc;
    __syncthreads();
    for (int step = RED_BLOCK / 2; step > 0; step /= 2) {
        if (tid < step) s[tid] += s[tid + step];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, s[0]);
}
__global__ void histogram(const unsigned char* data, unsigned int* hist, long long n) {
    __shared__ unsigned int sh[256];
    int tid = threadIdx.x;
    sh[tid] = 0;
    __syncthreads();
    for (long long k = (long long)blockIdx.x * blockDim.x + tid; k < n; k += (long long)gridDim.x * blockDim.x)
        atomicAdd(&sh[data[k]], 1u);
    __syncthreads();
    atomicAdd(&hist[tid], sh[tid]);
}
__global__ void stencil(const float* a, float* b, int n, int m) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y > 0 && x > 0 && y < n - 1 && x < m - 1) {
        long long i = (long long)y * m + x;
        b[i] = 0.2f * (a[i] + a[i - m] + a[i + m] + a[i - 1] + a[i + 1]);
    }
}
}
""" % {"tpb": TPB, "red_block": RED_BLOCK}


# -- inputs and checks (NumPy only) -------------------------------------------
def inputs(np):
    rng = np.random.default_rng(1234)
    return {
        "saxpy": (rng.random(N_SAXPY, dtype=np.float32), rng.random(N_SAXPY, dtype=np.float32), np.float32(2.5)),
        "matmul": tuple(rng.random((N_MATMUL, N_MATMUL), dtype=np.float32) for _ in range(2)),
        "reduction": (rng.random(N_REDUCE, dtype=np.float32),),
        "histogram": (rng.integers(0, 256, N_HIST, dtype=np.uint8),),
        "stencil": (rng.random((N_STENCIL, N_STENCIL), dtype=np.float32),),
    }


def check(np, name, data, got):
    """(ok, max relative error) of ``got`` against NumPy."""
    if name == "saxpy":
        x, y, a = data
        want = a * x + y
    elif name == "matmul":
        want = data[0].astype(np.float64) @ data[1].astype(np.float64)
    elif name == "reduction":
        want = np.array([data[0].sum(dtype=np.float64)])
    elif name == "histogram":
        want = np.bincount(data[0], minlength=256).astype(np.uint32)
        return bool((got == want).all()), 0.0
    else:
        a = data[0]
        want = np.zeros_like(a)
        want[1:-1, 1:-1] = np.float32(0.2) * (a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        got = got.copy()
    err = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1.0)))
    return err < {"reduction": 1e-4, "matmul": 1e-4}.get(name, 1e-5), err


def launch_shapes(name):
    """(grid, block) used by every implementation."""
    if name == "saxpy":
        return ((N_SAXPY + 255) // 256,), (256,)
    if name == "matmul":
        g = (N_MATMUL + TPB - 1) // TPB
        return (g, g), (TPB, TPB)
    if name == "reduction":
        return (RED_GRID,), (RED_BLOCK,)
    if name == "histogram":
        return (HIST_GRID,), (256,)
    return ((N_STENCIL + 31) // 32, (N_STENCIL + 7) // 8), (32, 8)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


# -- workers ------------------------------------------------------------------
def _load_py_kernels(package):
    src = PY_KERNELS.format(package=package, tpb=TPB, red_block=RED_BLOCK)
    folder = tempfile.mkdtemp(prefix="cudalite-bench-")
    path = os.path.join(folder, f"bench_kernels_{package.replace('.', '_')}.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def worker_python(package, names):
    """cudalite or numba-cuda: the shared Python kernels."""
    import numpy as np

    cuda = __import__(package, fromlist=["cuda"]).cuda
    k = _load_py_kernels(package)
    data = inputs(np)
    spin_buf = cuda.to_device(np.ones(1, np.float64))
    out = {}
    for name in names:
        d = data[name]
        if name == "saxpy":
            x, y = cuda.to_device(d[0]), cuda.to_device(d[1])
            res = cuda.device_array_like(d[0])
            args = (res, x, y, d[2])
        elif name == "matmul":
            res = cuda.device_array((N_MATMUL, N_MATMUL), np.float32)
            args = (cuda.to_device(d[0]), cuda.to_device(d[1]), res)
        elif name == "reduction":
            res = cuda.to_device(np.zeros(1, np.float32))
            args = (cuda.to_device(d[0]), res)
        elif name == "histogram":
            res = cuda.to_device(np.zeros(256, np.uint32))
            args = (cuda.to_device(d[0]), res)
        else:
            res = cuda.to_device(np.zeros_like(d[0]))
            args = (cuda.to_device(d[0]), res)
        grid, block = launch_shapes(name)
        kern = getattr(k, name)[grid, block]
        kern(*args)  # compile + warm up
        cuda.synchronize()
        if name in ("reduction", "histogram"):  # accumulating kernels: check one clean run
            res.copy_to_device(np.zeros(res.shape, res.dtype))
            kern(*args)
        ok, err = check(np, name, d, res.copy_to_host())
        times = []
        for _ in range(REPS):
            k.spin[1, 1](spin_buf, SPIN_ITERS)
            start, end = cuda.event(), cuda.event()
            start.record()
            kern(*args)
            end.record()
            end.synchronize()
            times.append(cuda.event_elapsed_time(start, end))
        out[name] = {"ms": median(times), "ok": ok, "err": err}
        del args, res
    return out


def worker_cuda_c(names):
    """The CUDA C twins through CuPy RawKernel."""
    import cupy as cp
    import numpy as np

    mod = cp.RawModule(code=CUDA_C, options=("-std=c++17",))
    data = inputs(np)
    spin_buf = cp.ones(1, cp.float64)
    spin = mod.get_function("spin")
    out = {}
    for name in names:
        d = data[name]
        if name == "saxpy":
            res = cp.empty(N_SAXPY, cp.float32)
            args = (res, cp.asarray(d[0]), cp.asarray(d[1]), d[2], np.int64(N_SAXPY))
        elif name == "matmul":
            res = cp.empty((N_MATMUL, N_MATMUL), cp.float32)
            args = (cp.asarray(d[0]), cp.asarray(d[1]), res, np.int32(N_MATMUL))
        elif name == "reduction":
            res = cp.zeros(1, cp.float32)
            args = (cp.asarray(d[0]), res, np.int64(N_REDUCE))
        elif name == "histogram":
            res = cp.zeros(256, cp.uint32)
            args = (cp.asarray(d[0]), res, np.int64(N_HIST))
        else:
            res = cp.zeros((N_STENCIL, N_STENCIL), cp.float32)
            args = (cp.asarray(d[0]), res, np.int32(N_STENCIL), np.int32(N_STENCIL))
        grid, block = launch_shapes(name)
        kern = mod.get_function(name)
        kern(grid, block, args)
        cp.cuda.Device().synchronize()
        if name in ("reduction", "histogram"):
            res[...] = 0
            kern(grid, block, args)
        ok, err = check(np, name, d, cp.asnumpy(res))
        times = []
        for _ in range(REPS):
            spin((1,), (1,), (spin_buf, np.int64(SPIN_ITERS)))
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            kern(grid, block, args)
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end))
        out[name] = {"ms": median(times), "ok": ok, "err": err}
        del args, res
    return out


def run_worker(impl, names, numba_path=None):
    """Run one implementation in a fresh interpreter; its JSON result or an error string."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", impl, "--only", ",".join(names)]
    if numba_path and impl == "numba":
        cmd += ["--prepend-path", numba_path]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
    return " | ".join(tail) or f"exit {proc.returncode}"


# -- report ---------------------------------------------------------------------
def report(results, names):
    impls = ("cudalite", "cuda-c", "numba")
    for impl in impls:
        if isinstance(results[impl], str):
            print(f"# {impl} skipped: {results[impl]}")
    print("| kernel    | cudalite ms | CUDA C ms | numba-cuda ms | vs CUDA C | vs best peer | target | checks |")
    print("|-----------|------------:|----------:|--------------:|----------:|-------------:|--------|--------|")
    for name in names:
        ms = {i: results[i].get(name, {}).get("ms") if isinstance(results[i], dict) else None for i in impls}
        done = {i: results[i][name] for i in impls if isinstance(results[i], dict) and name in results[i]}
        oks = "/".join(("ok" if done[i]["ok"] else "BAD") if i in done else "-" for i in impls)
        cells = [f"{ms[i]:.3f}" if ms[i] else "-" for i in impls]
        mine, c_ms = ms["cudalite"], ms["cuda-c"]
        peers = [v for v in (c_ms, ms["numba"]) if v]
        vs_c = f"{c_ms / mine:.2f}x" if mine and c_ms else "-"  # >1: cudalite faster
        vs_best = f"{min(peers) / mine:.2f}x" if mine and peers else "-"
        if not mine or not peers:
            met = "-"
        elif name == "saxpy":
            met = "yes" if c_ms and c_ms / mine >= 0.98 else "NO"
        else:
            met = "yes" if mine <= 1.05 * min(peers) else "NO"
        print(f"| {name:<9} | {cells[0]:>11} | {cells[1]:>9} | {cells[2]:>13} | {vs_c:>9} | {vs_best:>12} "
              f"| {met:<6} | {oks} |")
    if "saxpy" in names:
        gbs = {i: 3 * 4 * N_SAXPY / (results[i]["saxpy"]["ms"] * 1e6) for i in impls
               if isinstance(results[i], dict) and "saxpy" in results[i]}
        print("# saxpy GB/s: " + ", ".join(f"{i} {v:.0f}" for i, v in gbs.items()))
    print("# ratios are peer time / cudalite time (above 1.00x: cudalite faster); "
          "checks: cudalite/CUDA C/numba vs NumPy")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worker", choices=("cudalite", "numba", "cuda-c"))
    ap.add_argument("--only", default=",".join(NAMES))
    ap.add_argument("--numba-path", help="directory put first on numba-cuda's sys.path (numpy<2.5)")
    ap.add_argument("--prepend-path", help=argparse.SUPPRESS)
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON (benchmarks/report.py)")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n]
    if args.worker:
        if args.prepend_path:
            sys.path.insert(0, args.prepend_path)
        if args.worker == "cuda-c":
            res = worker_cuda_c(names)
        else:
            res = worker_python("cudalite" if args.worker == "cudalite" else "numba", names)
        print(json.dumps(res))
        return
    results = {impl: run_worker(impl, names, args.numba_path) for impl in ("cudalite", "cuda-c", "numba")}
    print(f"# GPU time per kernel, median of {REPS} (events around the kernel, after a spin kernel)")
    report(results, names)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "kernels", "reps": REPS, "names": names, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
