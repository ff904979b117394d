"""Inline PTX: a cudalite kernel using ``cuda.inline_ptx`` (``lop3.b32`` and ``prmt.b32``)
against the same CUDA C with ``asm volatile`` (CuPy RawKernel, NVRTC), and both against
their versions without inline assembly, in one run.

The kernel mixes three uint32 arrays element-wise, ``ROUNDS`` times per element::

    t = a ^ b ^ c                   # lop3.b32 t, a, b, c, 0x96
    t = rotate_right(t, 8)          # prmt.b32 t, t, t, 0x0321
    a, b, c = b, c, t + a

then stores ``a ^ b ^ c``.  With 1 round it is bandwidth-bound (16 bytes per element),
with 64 compute-bound.  ``cuda.inline_ptx`` is emitted with side effects (as CUDA C's
``asm volatile``: never removed, merged or moved), so the CUDA C peer uses
``asm volatile`` too.  The versions without inline assembly spell the same operations
in the language (``^``, shifts) and leave instruction choice to the compiler.

GPU time per call: CUDA events around back-to-back calls, median of ``--reps``; every
result is compared with the CUDA C one, and the first 65,536 elements with NumPy.
Ratios: CUDA C time / cudalite time (above 1.00x: cudalite faster).  Nothing is asserted.

    python benchmarks/inline_ptx.py [--quick] [--reps 20] [--n 33554432]
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_util import (  # noqa: E402
    cupy_module, gpu_ms, peers_or_skip, ratio, size_options, sync_both, table,
)

ROUNDS = (1, 64)
TPB = 256
INNER = 5
CHECKED = 1 << 16

CUDA_C = r"""
template <int ROUNDS>
__device__ __forceinline__ void mix_asm(const unsigned* A, const unsigned* B, const unsigned* C, unsigned* out,
                                        long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned a = A[i], b = B[i], c = C[i];
        for (int r = 0; r < ROUNDS; ++r) {
            unsigned t, u;
            asm volatile("lop3.b32 %%0, %%1, %%2, %%3, 0x96;" : "=r"(t) : "r"(a), "r"(b), "r"(c));
            asm volatile("prmt.b32 %%0, %%1, %%1, 0x0321;" : "=r"(u) : "r"(t));
            unsigned na = b;
            b = c;
            c = u + a;
            a = na;
        }
        out[i] = a ^ b ^ c;
    }
}

template <int ROUNDS>
__device__ __forceinline__ void mix_plain(const unsigned* A, const unsigned* B, const unsigned* C, unsigned* out,
                                          long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned a = A[i], b = B[i], c = C[i];
        for (int r = 0; r < ROUNDS; ++r) {
            unsigned t = a ^ b ^ c;
            t = (t >> 8) | (t << 24);
            unsigned na = b;
            b = c;
            c = t + a;
            a = na;
        }
        out[i] = a ^ b ^ c;
    }
}

#define STAMP(R)                                                                                              \
extern "C" __global__ void mix_asm_##R(const unsigned* A, const unsigned* B, const unsigned* C, unsigned* out, \
                                       long long n) { mix_asm<R>(A, B, C, out, n); }                          \
extern "C" __global__ void mix_plain_##R(const unsigned* A, const unsigned* B, const unsigned* C, unsigned* out, \
                                         long long n) { mix_plain<R>(A, B, C, out, n); }
%(stamps)s
""" % {"stamps": "\n".join(f"STAMP({r})" for r in ROUNDS)}

C_NAMES = tuple(f"mix_{kind}_{r}" for r in ROUNDS for kind in ("asm", "plain"))


def kernels(cuda, types):
    """The cudalite kernels ``{"mix_ptx_R", "mix_plain_R"}`` for R in ROUNDS."""
    u32 = types.uint32

    def make_ptx(rounds):
        def mix_ptx(a_in, b_in, c_in, out):
            i = cuda.grid(1)
            if i < out.size:
                a, b, c = a_in[i], b_in[i], c_in[i]
                for _ in range(rounds):
                    t = cuda.inline_ptx("lop3.b32 $0, $1, $2, $3, 0x96;", "=r,r,r,r", u32, a, b, c)
                    u = cuda.inline_ptx("prmt.b32 $0, $1, $1, 0x0321;", "=r,r", u32, t)
                    a, b, c = b, c, u32(u + a)
                out[i] = u32(a ^ b ^ c)

        return mix_ptx

    def make_plain(rounds):
        def mix_plain(a_in, b_in, c_in, out):
            i = cuda.grid(1)
            if i < out.size:
                a, b, c = a_in[i], b_in[i], c_in[i]
                for _ in range(rounds):
                    t = u32(a ^ b ^ c)
                    t = u32((t >> u32(8)) | (t << u32(24)))
                    a, b, c = b, c, u32(t + a)
                out[i] = u32(a ^ b ^ c)

        return mix_plain

    out = {}
    for r in ROUNDS:
        out[f"mix_ptx_{r}"] = cuda.jit(make_ptx(r))
        out[f"mix_plain_{r}"] = cuda.jit(make_plain(r))
    return out


def reference(np, a, b, c, rounds):
    """NumPy's result of the mix (uint32 arithmetic wraps)."""
    a, b, c = (np.asarray(v, np.uint32) for v in (a, b, c))
    for _ in range(rounds):
        t = a ^ b ^ c
        t = (t >> np.uint32(8)) | (t << np.uint32(24))
        a, b, c = b, c, t + a
    return a ^ b ^ c


def compile_check(cc=(9, 0)):
    """GPU-less: ``{name: PTX for cc}`` of the cudalite kernels."""
    from cudalite import cuda, types

    arr = types.uint32[::1]
    return {name: k.compile_ptx_for((arr, arr, arr, arr), cc=cc) for name, k in kernels(cuda, types).items()}


def main(argv=None):
    reps, n = size_options(argv, __doc__, "elements", 2**25, 2**23)
    got = peers_or_skip("inline_ptx")
    if got is None:
        return 0
    cuda, dev, cp = got
    import numpy as np

    from cudalite import types

    lite = kernels(cuda, types)
    peer = cupy_module(cp, CUDA_C, C_NAMES)

    sync = sync_both(cuda, cp)

    ins = [(cp.random.random(n) * 2.0**32).astype(cp.uint32) for _ in range(3)]  # 32 random bits each
    host_ins = [cp.asnumpy(v[:CHECKED]) for v in ins]
    dins = [cuda.as_cuda_array(v) for v in ins]
    n64 = np.int64(n)
    blocks = -(-n // TPB)
    rows = []
    for r in ROUNDS:
        want = reference(np, *host_ins, r)
        results, times = {}, {}
        for impl in ("ptx", "asm", "plain-lite", "plain-c"):
            out = cp.zeros(n, cp.uint32)
            if impl in ("ptx", "plain-lite"):
                k = lite[f"mix_{'ptx' if impl == 'ptx' else 'plain'}_{r}"][blocks, TPB]
                dout = cuda.as_cuda_array(out)
                times[impl] = gpu_ms(lambda: k(*dins, dout), reps, INNER, cuda.event, cuda.event_elapsed_time, sync)
            else:
                k = peer[f"mix_{'asm' if impl == 'asm' else 'plain'}_{r}"]
                args_c = (*ins, out, n64)
                times[impl] = gpu_ms(lambda: k((blocks,), (TPB,), args_c), reps, INNER, cp.cuda.Event,
                                     cp.cuda.get_elapsed_time, sync)
            results[impl] = out
        ok = {i: "ok" if bool((cp.asnumpy(o[:CHECKED]) == want).all()) and bool((o == results["asm"]).all())
              else "BAD" for i, o in results.items()}
        nbytes = 16 * n
        rows.append([r, "inline PTX", f"{times['ptx'] * 1e3:.1f}", f"{times['asm'] * 1e3:.1f}",
                     f"{nbytes / (times['ptx'] * 1e6):.0f}", ratio(times["asm"], times["ptx"]),
                     f"{ok['ptx']}/{ok['asm']}"])
        rows.append([r, "no inline assembly", f"{times['plain-lite'] * 1e3:.1f}", f"{times['plain-c'] * 1e3:.1f}",
                     f"{nbytes / (times['plain-lite'] * 1e6):.0f}", ratio(times["plain-c"], times["plain-lite"]),
                     f"{ok['plain-lite']}/{ok['plain-c']}"])
        del results
    cc = dev.compute_capability
    print(f"# device: {dev.name} (cc {cc[0]}.{cc[1]}); CuPy {cp.__version__}; n = {n} uint32 x 3 in, 1 out; "
          f"GPU time per call, median of {reps} x {INNER}")
    table(["rounds", "variant", "cudalite µs", "CUDA C µs", "cudalite GB/s", "CUDA C / cudalite",
           "check (cudalite/CUDA C)"], rows)
    print("# 'inline PTX': cudalite cuda.inline_ptx vs CUDA C asm volatile; 'no inline assembly': "
          "both in plain operators")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
