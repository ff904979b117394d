"""CUDA ufuncs: ``@cuda.vectorize`` / ``@cuda.guvectorize`` against CuPy's
``ElementwiseKernel`` / ``RawKernel`` / ``ReductionKernel`` doing the same math, in one run.

Element-wise functions: ``axpy(a, x, y) = a * x + y`` (``a`` a scalar) and
``gauss(x, y) = exp(-x * x) * y``, float32 and float64, on 1e3 (launch-dominated),
1e6 and 1e8 elements (``--quick``: 1e7).  Tables:

* GPU time per call (CUDA events around back-to-back calls, median of ``--reps``) and
  bandwidth, device arrays with a preallocated ``out=`` (at 1e3 elements the GPU waits
  for the host: this is the sustained call rate);
* host time per call at the smallest size (enqueue cost: what the launch overhead is;
  cudalite's and CuPy's loops alternate, best of 7 each), for four ways of calling:
  cudalite device arrays or CuPy arrays (through the CUDA array interface) as inputs,
  with ``out=`` or a new output per call;
* broadcasting: ``gauss`` of an (N, 1) and a (1, N) array into (N, N);
* ``@cuda.guvectorize`` row sums ``'(n)->()'`` against a CuPy RawKernel of the same
  algorithm (one thread per row) and a CuPy ReductionKernel over axis 1.

Each cudalite result is checked against CuPy's.  Ratios are CuPy time / cudalite time
(above 1.00x: cudalite faster); nothing is asserted.  Note: a cudalite ufunc given CuPy
arrays synchronizes their stream per call (the CUDA array interface's rule;
``CUDALITE_CUDA_ARRAY_INTERFACE_SYNC=0`` turns it off), which the CuPy-input rows show.

    python benchmarks/vectorize.py [--quick] [--reps 20]
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_util import gpu_ms, host_us, host_us_pair, peers_or_skip, ratio, table  # noqa: E402

SIGS2 = ["float32(float32, float32)", "float64(float64, float64)"]
SIGS3 = ["float32(float32, float32, float32)", "float64(float64, float64, float64)"]
GU_SIGS = ["void(float32[:], float32[:])", "void(float64[:], float64[:])"]
A = 2.5
GU_COLS = 64

CUDA_C = r"""
template <typename T>
__device__ void rowsum(const T* x, T* out, long long rows, long long cols) {
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < rows;
         r += (long long)gridDim.x * blockDim.x) {
        const T* row = x + r * cols;
        T s = row[0];
        for (long long k = 1; k < cols; ++k) s += row[k];
        out[r] = s;
    }
}
extern "C" __global__ void rowsum_f32(const float* x, float* out, long long rows, long long cols) {
    rowsum<float>(x, out, rows, cols);
}
extern "C" __global__ void rowsum_f64(const double* x, double* out, long long rows, long long cols) {
    rowsum<double>(x, out, rows, cols);
}
"""


def axpy(a, x, y):
    return a * x + y


def gauss(x, y):
    return math.exp(-x * x) * y


def rowsum(x, r):
    s = x[0]
    for i in range(1, x.shape[0]):
        s += x[i]
    r[0] = s


def ufuncs(cuda):
    """The cudalite ufuncs of this benchmark: ``{"axpy", "gauss", "rowsum"}``."""
    return {"axpy": cuda.vectorize(SIGS3)(axpy),
            "gauss": cuda.vectorize(SIGS2, target="cuda")(gauss),
            "rowsum": cuda.guvectorize(GU_SIGS, "(n)->()")(rowsum)}


def compile_check(cc=(9, 0)):
    """GPU-less: the PTX (for ``cc``) of every loop kernel the benchmark launches
    (1-d contiguous and 2-d broadcast element-wise kernels, the gufunc's kernel),
    ``{description: ptx}``.  Uses the ufuncs' generated kernels (``_kernel``,
    internal: keep in step with cudalite.cuda._ufuncs.vectorize / gufunc)."""
    from cudalite import cuda, types

    uf = ufuncs(cuda)
    out = {}
    for index, t in enumerate((types.float32, types.float64)):
        vec, mat = t[::1], t[:, :]
        k = uf["axpy"]._kernel(index, 1, (True, False, False))
        out[f"axpy {t}"] = k.compile_ptx_for((vec, t, vec, vec), cc=cc)
        k = uf["gauss"]._kernel(index, 1, (False, False))
        out[f"gauss {t}"] = k.compile_ptx_for((vec, vec, vec), cc=cc)
        k = uf["gauss"]._kernel(index, 2, (False, False))
        out[f"gauss {t} broadcast"] = k.compile_ptx_for((t[:, ::1], mat, mat), cc=cc)
        k = uf["rowsum"]._kernel(index, 1, (False, False))
        out[f"rowsum {t}"] = k.compile_ptx_for((types.int64, mat, mat), cc=cc)
    return out


def cupy_kernels(cp):
    """The CuPy peers: element-wise kernels, the row-sum RawKernels and ReductionKernel."""
    from bench_util import cupy_module

    raw = cupy_module(cp, CUDA_C, ("rowsum_f32", "rowsum_f64"))
    return {"axpy": cp.ElementwiseKernel("T a, T x, T y", "T z", "z = a * x + y", "bench_axpy"),
            "gauss": cp.ElementwiseKernel("T x, T y", "T z", "z = exp(-x * x) * y", "bench_gauss"),
            "rowsum_raw": {"float32": raw["rowsum_f32"], "float64": raw["rowsum_f64"]},
            "rowsum_red": cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "bench_rowsum")}


class Timers:
    """GPU (events) and host timers for cudalite's and CuPy's calls."""

    def __init__(self, cuda, cp, reps):
        self.cuda, self.cp, self.reps = cuda, cp, reps

    def sync(self):
        self.cuda.synchronize()
        self.cp.cuda.Device().synchronize()

    def lite_ms(self, run, inner):
        c = self.cuda
        return gpu_ms(run, self.reps, inner, c.event, c.event_elapsed_time, self.sync)

    def cupy_ms(self, run, inner):
        cp = self.cp
        return gpu_ms(run, self.reps, inner, cp.cuda.Event, cp.cuda.get_elapsed_time, self.sync)

    def host(self, run, calls):
        return host_us(run, calls, 5, self.sync)

    def host_pair(self, run, peer, calls):
        """Host us per call of ``run`` and of ``peer``, in alternating loops (7 rounds)."""
        return host_us_pair(run, peer, calls, 7, self.sync)


def inner_calls(n):
    """Back-to-back calls per timed interval: many for small sizes (launch-bound)."""
    return max(1, min(100, 10**7 // max(n, 1)))


def close(cp, got, want, dtype):
    rtol = 1e-5 if dtype == "float32" else 1e-12
    return "ok" if bool(cp.allclose(cp.asarray(got), want, rtol=rtol, atol=rtol)) else "BAD"


def elementwise_rows(cuda, cp, uf, peers, timers, sizes):
    """Rows of the GPU-time table (device arrays, ``out=``)."""
    rows = []
    for name, nin in (("axpy", 3), ("gauss", 2)):
        for dtype in ("float32", "float64"):
            for n in sizes:
                x = cp.random.random(n, dtype=dtype)
                y = cp.random.random(n, dtype=dtype)
                out_c, out_l = cp.empty(n, dtype), cp.empty(n, dtype)
                dx, dy, dout = cuda.as_cuda_array(x), cuda.as_cuda_array(y), cuda.as_cuda_array(out_l)
                a = np.dtype(dtype).type(A)
                lite_args = (a, dx, dy) if name == "axpy" else (dx, dy)
                peer_args = (a, x, y) if name == "axpy" else (x, y)
                f, k = uf[name], peers[name]
                inner = inner_calls(n)
                t_l = timers.lite_ms(lambda: f(*lite_args, out=dout), inner)
                t_c = timers.cupy_ms(lambda: k(*peer_args, out_c), inner)
                check = close(cp, out_l, out_c, dtype)
                nbytes = (nin - (name == "axpy") + 1) * np.dtype(dtype).itemsize * n
                rows.append([f"{name} {dtype}", f"{n:.0e}", f"{t_l * 1e3:.2f}", f"{t_c * 1e3:.2f}",
                             f"{nbytes / (t_l * 1e6):.0f}", f"{nbytes / (t_c * 1e6):.0f}", ratio(t_c, t_l), check])
    return rows


def host_rows(cuda, cp, uf, peers, timers, n, calls):
    """Rows of the host-time table: four ways of calling at size ``n``."""
    rows = []
    for name in ("axpy", "gauss"):
        for dtype in ("float32", "float64"):
            x, y = cp.random.random(n, dtype=dtype), cp.random.random(n, dtype=dtype)
            out_c, out_l = cp.empty(n, dtype), cp.empty(n, dtype)
            dx, dy, dout = cuda.as_cuda_array(x), cuda.as_cuda_array(y), cuda.as_cuda_array(out_l)
            a = np.dtype(dtype).type(A)
            f, k = uf[name], peers[name]
            dev_in = (a, dx, dy) if name == "axpy" else (dx, dy)
            cp_in = (a, x, y) if name == "axpy" else (x, y)
            variants = [("device arrays, out=", lambda: f(*dev_in, out=dout), lambda: k(*cp_in, out_c)),
                        ("device arrays, new out", lambda: f(*dev_in), lambda: k(*cp_in)),
                        ("CuPy arrays, out=", lambda: f(*cp_in, out=out_c), lambda: k(*cp_in, out_c)),
                        ("CuPy arrays, new out", lambda: f(*cp_in), lambda: k(*cp_in))]
            check = close(cp, f(*cp_in), k(*cp_in), dtype)
            for label, lite, peer in variants:
                h_l, h_c = timers.host_pair(lite, peer, calls)
                g_l, g_c = timers.lite_ms(lite, 100) * 1e3, timers.cupy_ms(peer, 100) * 1e3
                rows.append([f"{name} {dtype}", label, f"{h_l:.1f}", f"{h_c:.1f}", ratio(h_c, h_l),
                             f"{g_l:.1f}", f"{g_c:.1f}", ratio(g_c, g_l), check])
    return rows


def broadcast_rows(cuda, cp, uf, peers, timers, side):
    rows = []
    for dtype in ("float32", "float64"):
        xc = cp.random.random((side, 1), dtype=dtype)
        yr = cp.random.random((1, side), dtype=dtype)
        out_c, out_l = cp.empty((side, side), dtype), cp.empty((side, side), dtype)
        dxc, dyr, dout = cuda.as_cuda_array(xc), cuda.as_cuda_array(yr), cuda.as_cuda_array(out_l)
        f, k = uf["gauss"], peers["gauss"]
        t_l = timers.lite_ms(lambda: f(dxc, dyr, out=dout), 1)
        t_c = timers.cupy_ms(lambda: k(xc, yr, out_c), 1)
        nbytes = out_c.nbytes
        rows.append([f"gauss {dtype} ({side},1) x (1,{side})", f"{t_l * 1e3:.1f}", f"{t_c * 1e3:.1f}",
                     f"{nbytes / (t_l * 1e6):.0f}", f"{nbytes / (t_c * 1e6):.0f}", ratio(t_c, t_l),
                     close(cp, out_l, out_c, dtype)])
    return rows


def gufunc_rows(cuda, cp, dev, uf, peers, timers, nrows, small, calls):
    rows = []
    for dtype in ("float32", "float64"):
        x = cp.random.random((nrows, GU_COLS), dtype=dtype)
        out_l, out_r, out_red = cp.empty(nrows, dtype), cp.empty(nrows, dtype), cp.empty(nrows, dtype)
        dx, dout = cuda.as_cuda_array(x), cuda.as_cuda_array(out_l)
        f, raw, red = uf["rowsum"], peers["rowsum_raw"][dtype], peers["rowsum_red"]
        blocks = min(-(-nrows // 128), dev.MULTIPROCESSOR_COUNT * 32)  # cudalite's gufunc launch shape
        raw_args = (x, out_r, np.int64(nrows), np.int64(GU_COLS))
        t_l = timers.lite_ms(lambda: f(dx, out=dout), 1)
        t_r = timers.cupy_ms(lambda: raw((blocks,), (128,), raw_args), 1)
        t_red = timers.cupy_ms(lambda: red(x, axis=1, out=out_red), 1)
        checks = "/".join(close(cp, out_l, o, dtype) for o in (out_r, out_red))
        nbytes = x.nbytes + out_l.nbytes
        rows.append([f"rowsum {dtype} ({nrows}, {GU_COLS})", "GPU µs", f"{t_l * 1e3:.1f}", f"{t_r * 1e3:.1f}",
                     f"{t_red * 1e3:.1f}", ratio(t_r, t_l), ratio(t_red, t_l),
                     f"{nbytes / (t_l * 1e6):.0f} GB/s", checks])
        xs = x[:small]
        dxs, douts = cuda.as_cuda_array(xs), cuda.as_cuda_array(out_l[:small])
        sargs = (xs, out_r[:small], np.int64(small), np.int64(GU_COLS))
        sblocks = min(-(-small // 128), dev.MULTIPROCESSOR_COUNT * 32)
        h_l = timers.host(lambda: f(dxs, out=douts), calls)
        h_r = timers.host(lambda: raw((sblocks,), (128,), sargs), calls)
        h_red = timers.host(lambda: red(xs, axis=1, out=out_red[:small]), calls)
        rows.append([f"rowsum {dtype} ({small}, {GU_COLS})", "host µs", f"{h_l:.1f}", f"{h_r:.1f}", f"{h_red:.1f}",
                     ratio(h_r, h_l), ratio(h_red, h_l), "", ""])
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes and fewer repetitions")
    ap.add_argument("--reps", type=int, default=None, help="timed repetitions (median); default 20, quick 5")
    args = ap.parse_args(argv)
    reps = args.reps or (5 if args.quick else 20)
    sizes = (10**3, 10**6, 10**7) if args.quick else (10**3, 10**6, 10**8)
    side = 2000 if args.quick else 10000
    gu_rows = 2**18 if args.quick else 2**21
    calls = 100 if args.quick else 300
    got = peers_or_skip("vectorize")
    if got is None:
        return 0
    cuda, dev, cp = got
    uf, peers = ufuncs(cuda), cupy_kernels(cp)
    timers = Timers(cuda, cp, reps)
    cc = dev.compute_capability
    print(f"# device: {dev.name} (cc {cc[0]}.{cc[1]}); CuPy {cp.__version__}; median of {reps}; "
          "ratios: CuPy time / cudalite time (above 1.00x: cudalite faster)")
    print("\n## GPU time per call: device arrays, out= preallocated\n")
    table(["ufunc", "n", "cudalite µs", "CuPy µs", "cudalite GB/s", "CuPy GB/s", "CuPy / cudalite", "check"],
          elementwise_rows(cuda, cp, uf, peers, timers, sizes))
    print(f"\n## Host time per call (enqueue, best of 5 x {calls}) and GPU time per call "
          f"(100 back to back), n = {sizes[0]:.0e}\n")
    table(["ufunc", "inputs", "cudalite host µs", "CuPy host µs", "host ratio", "cudalite GPU µs", "CuPy GPU µs",
           "GPU ratio", "check"], host_rows(cuda, cp, uf, peers, timers, sizes[0], calls))
    print("\n## Broadcasting: gauss(x[:, None], y[None, :], out=)\n")
    table(["case", "cudalite µs", "CuPy µs", "cudalite GB/s (out)", "CuPy GB/s (out)", "CuPy / cudalite", "check"],
          broadcast_rows(cuda, cp, uf, peers, timers, side))
    print("\n## guvectorize '(n)->()' row sums, out= preallocated\n")
    table(["gufunc", "measure", "cudalite", "CuPy RawKernel (same algorithm)", "CuPy ReductionKernel",
           "Raw / cudalite", "Reduction / cudalite", "cudalite bandwidth", "check (Raw/Reduction)"],
          gufunc_rows(cuda, cp, dev, uf, peers, timers, gu_rows, 1000, calls))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
