"""What the peer benchmarks (vectorize.py, clusters.py, smem_big.py, inline_ptx.py)
share: the no-GPU / no-CuPy skip, GPU and host timers, CUDA C modules through CuPy
(NVRTC, with nvcc as a fallback) and the GPU-less check of their CUDA C source.

Nothing here asserts a time: the scripts print markdown tables of measured figures
and ratios of programs measured in the same run.  CuPy compiles every CUDA C kernel
(RawModule and ElementwiseKernel alike) with ``-ftz=true`` (float32 denormals flushed);
cudalite keeps denormals unless ``fastmath``: the inputs of these benchmarks produce
none, so both compute the same values.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import tempfile
import time

__all__ = ["gpu_or_skip", "cupy_or_skip", "peers_or_skip", "size_options", "sync_both", "gpu_ms", "host_us", "table",
           "ratio", "cupy_module", "check_cuda_c", "CUDA_C_OPTIONS"]

CUDA_C_OPTIONS = ("--std=c++17",)  # CuPy adds -arch=sm_XX of the current device itself


def gpu_or_skip(name, min_cc=None):
    """``(cuda, device)``, or None after printing why the benchmark ``name`` is skipped
    (no GPU, no driver, or a compute capability below ``min_cc``)."""
    try:
        from cudalite import cuda

        dev = cuda.get_current_device()
        cc = tuple(dev.compute_capability)
    except Exception as e:  # no driver, no device: say so and exit 0
        print(f"{name} benchmark skipped: no usable GPU ({e})")
        return None
    if min_cc and cc < tuple(min_cc):
        print(f"{name} benchmark skipped: needs compute capability >= {min_cc[0]}.{min_cc[1]}, "
              f"{dev.name} is {cc[0]}.{cc[1]}")
        return None
    return cuda, dev


def cupy_or_skip(name):
    """The ``cupy`` module, or None after printing that the CUDA C peers need it."""
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        return cupy
    except Exception as e:
        print(f"{name} benchmark skipped: the CUDA C / CuPy peers need CuPy ({type(e).__name__}: {e})")
        return None


def peers_or_skip(name, min_cc=None):
    """``(cuda, device, cupy)`` for a benchmark against CUDA C / CuPy peers, or None after
    printing why ``name`` is skipped (:func:`gpu_or_skip`, then :func:`cupy_or_skip`)."""
    got = gpu_or_skip(name, min_cc)
    if got is None:
        return None
    cp = cupy_or_skip(name)
    return None if cp is None else (*got, cp)


def size_options(argv, doc, what, n_full, n_quick):
    """Parse the scripts' common options (``--quick``, ``--reps``, ``--n``); returns
    ``(repetitions, n)``: 20 and ``n_full`` by default, 5 and ``n_quick`` with ``--quick``."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"{what} = {n_quick}, 5 repetitions")
    ap.add_argument("--reps", type=int, default=None, help="timed repetitions (median); default 20, quick 5")
    ap.add_argument("--n", type=int, default=None, help=f"{what} (default {n_full})")
    args = ap.parse_args(argv)
    return args.reps or (5 if args.quick else 20), args.n or (n_quick if args.quick else n_full)


def sync_both(cuda, cp):
    """A function waiting for cudalite's and CuPy's work on the current device."""
    def sync():
        cuda.synchronize()
        cp.cuda.Device().synchronize()

    return sync


def gpu_ms(run, reps, inner, event, elapsed, sync):
    """GPU milliseconds per call of ``run``: events around ``inner`` back-to-back calls,
    median of ``reps``, after one warm-up call.  ``event()`` makes an event with
    ``record()``/``synchronize()``; ``elapsed(a, b)`` is in ms; ``sync()`` waits for the device."""
    run()
    sync()
    times = []
    for _ in range(reps):
        start, end = event(), event()
        start.record()
        for _ in range(inner):
            run()
        end.record()
        end.synchronize()
        times.append(elapsed(start, end) / inner)
    return statistics.median(times)


def host_us(run, calls, rounds, sync):
    """Host microseconds per call of ``run`` (the time to enqueue it: no
    synchronization inside the loop), best of ``rounds`` loops of ``calls`` calls."""
    run()
    sync()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            run()
        t1 = time.perf_counter()
        sync()
        best = min(best, (t1 - t0) / calls)
    return best * 1e6


def host_us_pair(run_a, run_b, calls, rounds, sync):
    """:func:`host_us` of two callables measured in alternating loops (a, b, a, b, ...):
    ``(us per call of a, us per call of b)``, each the best of its ``rounds`` loops, so a
    change of the host's speed during the run reaches both sides alike."""
    run_a()
    run_b()
    sync()
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for i, run in enumerate((run_a, run_b)):
            t0 = time.perf_counter()
            for _ in range(calls):
                run()
            t1 = time.perf_counter()
            sync()
            best[i] = min(best[i], (t1 - t0) / calls)
    return best[0] * 1e6, best[1] * 1e6


def ratio(peer, mine):
    """``peer / mine`` as ``"1.23x"`` (above 1: cudalite faster), ``"-"`` if either is missing."""
    return f"{peer / mine:.2f}x" if peer and mine else "-"


def table(headers, rows):
    """Print a markdown table; numbers right-aligned (every column but the first)."""
    print("| " + " | ".join(headers) + " |")
    print("|---|" + "---:|" * (len(headers) - 1))
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")


def _nvcc():
    found = shutil.which("nvcc")
    if found:
        return found
    path = os.path.join(os.environ.get("CUDA_HOME") or "/usr/local/cuda", "bin", "nvcc")
    return path if os.path.exists(path) else None


def cupy_module(cp, code, names, options=CUDA_C_OPTIONS):
    """``{name: cupy RawKernel}`` of the ``extern "C"`` kernels ``names`` in ``code``,
    compiled by CuPy's NVRTC for the current device; if that fails (e.g. no CUDA
    headers for ``cooperative_groups.h``), by nvcc into a cubin loaded with
    ``RawModule(path=...)``.  Raises with both errors when neither works."""
    try:
        mod = cp.RawModule(code=code, options=tuple(options))
        return {n: mod.get_function(n) for n in names}
    except Exception as first:
        nvcc = _nvcc()
        if nvcc is None:
            raise RuntimeError(f"CuPy could not compile the CUDA C ({first}) and there is no nvcc") from first
        cc = cp.cuda.Device().compute_capability  # a string such as "90"
        folder = tempfile.mkdtemp(prefix="cudalite-bench-cu-")
        src, cubin = os.path.join(folder, "peer.cu"), os.path.join(folder, "peer.cubin")
        with open(src, "w") as f:
            f.write(code)
        cmd = [nvcc, "-cubin", f"-arch=sm_{cc}", "-O3", *options, "-o", cubin, src]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(f"CuPy could not compile the CUDA C ({first}); nor could nvcc: "
                               f"{proc.stderr.strip()}") from first
        print(f"# CUDA C compiled by nvcc (CuPy's NVRTC failed: {str(first).splitlines()[0][:120]})")
        mod = cp.RawModule(path=cubin)
        return {n: mod.get_function(n) for n in names}


def check_cuda_c(code, arch="sm_90", options=CUDA_C_OPTIONS):
    """Compile ``code`` GPU-less with NVRTC (cudalite.linker, the pip wheels' headers)
    to a cubin for ``arch``; the NVRTC error names the line when it does not compile."""
    from cudalite.linker import compile_cuda

    return compile_cuda(code, arch=arch, cubin=True, relocatable=False, options=tuple(options))
