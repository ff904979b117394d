"""CUDA graphs: 1,000 dependent small-kernel launches as one graph vs one by one,
cudalite next to the same program in CUDA C (nvcc, the CUDA runtime's stream capture),
all in one run.

The kernel is ``a[0] += 1`` on one thread, launched 1,000 times on one stream (each
launch depends on the previous one).  For each way of running it, best of ``--reps``:

* enqueue  -- host time to queue the 1,000 launches (or the one graph launch; a single
  call, so the graph's is timed ``--graph-reps`` times and its best and median reported);
* total    -- enqueue plus the stream synchronization (the work done on the GPU).

Targets (issue 13): the cudalite graph's total time >= 3x faster than cudalite's
individual launches, and within 1.1x of the CUDA C graph.  The result (``a[0]``) is
checked after every variant.  Run on a GPU host with nvcc on PATH or in CUDA_HOME:
``python benchmarks/graphs.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CUDA_C = r"""
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void bump(long long *a) { a[0] += 1; }

static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

int main(int argc, char **argv) {
    int n = atoi(argv[1]), reps = atoi(argv[2]), greps = atoi(argv[3]);
    long long *a, host = 0, expect = 1;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&a, sizeof(long long)));
    CHECK(cudaMemset(a, 0, sizeof(long long)));
    bump<<<1, 1, 0, s>>>(a);
    CHECK(cudaStreamSynchronize(s));
    double ind_enq = 1e30, ind_tot = 1e30, g_enq = 1e30, g_tot = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int i = 0; i < n; i++) bump<<<1, 1, 0, s>>>(a);
        double t1 = now();
        CHECK(cudaStreamSynchronize(s));
        double t2 = now();
        if (t1 - t0 < ind_enq) ind_enq = t1 - t0;
        if (t2 - t0 < ind_tot) ind_tot = t2 - t0;
        expect += n;
    }
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < n; i++) bump<<<1, 1, 0, s>>>(a);
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaStreamSynchronize(s));
    expect += n;
    std::vector<double> enq;
    for (int r = 0; r < greps; r++) {
        double t0 = now();
        CHECK(cudaGraphLaunch(ge, s));
        double t1 = now();
        CHECK(cudaStreamSynchronize(s));
        double t2 = now();
        enq.push_back(t1 - t0);
        if (t1 - t0 < g_enq) g_enq = t1 - t0;
        if (t2 - t0 < g_tot) g_tot = t2 - t0;
        expect += n;
    }
    std::sort(enq.begin(), enq.end());
    CHECK(cudaMemcpy(&host, a, sizeof(long long), cudaMemcpyDeviceToHost));
    printf("{\"ok\": %s, \"individual\": [%g, %g], \"graph\": [%g, %g], \"graph_enqueue_median\": %g}\n",
           host == expect ? "true" : "false", ind_enq, ind_tot, g_enq, g_tot, enq[enq.size() / 2]);
    return 0;
}
"""


def bump(a):
    a[0] += 1


def _nvcc():
    found = shutil.which("nvcc")
    if found:
        return found
    home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    path = os.path.join(home, "bin", "nvcc")
    return path if os.path.exists(path) else None


def cuda_c(n, reps, greps, arch):
    """The CUDA C program's figures, or None (with a message) when nvcc is missing."""
    nvcc = _nvcc()
    if nvcc is None:
        print("# CUDA C rows skipped: no nvcc (set CUDA_HOME)")
        return None
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "graphs.cu"), os.path.join(tmp, "graphs")
        with open(src, "w") as f:
            f.write(CUDA_C)
        subprocess.run([nvcc, "-O3", f"-arch={arch}", "-o", exe, src], check=True)
        out = subprocess.run([exe, str(n), str(reps), str(greps)], check=True, capture_output=True, text=True).stdout
    data = json.loads(out)
    if not data["ok"]:
        raise SystemExit("the CUDA C program computed a wrong count")
    return data


def cudalite_rows(n, reps, greps):
    import numpy as np

    from cudalite import cuda

    k = cuda.jit(bump)
    s = cuda.stream()
    a = cuda.to_device(np.zeros(1, np.int64))
    k[1, 1, s](a)
    s.synchronize()
    expect = 1
    ind_enq = ind_tot = g_enq = g_tot = float("inf")
    cfg = k[1, 1, s]
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(n):
            cfg(a)
        t1 = time.perf_counter()
        s.synchronize()
        t2 = time.perf_counter()
        ind_enq, ind_tot = min(ind_enq, t1 - t0), min(ind_tot, t2 - t0)
        expect += n
    t = time.perf_counter()
    with s.capture() as graph:
        for _ in range(n):
            cfg(a)
    capture_s = time.perf_counter() - t
    graph.launch()
    s.synchronize()
    expect += n
    enq = []
    for _ in range(greps):
        t0 = time.perf_counter()
        graph.launch()
        t1 = time.perf_counter()
        s.synchronize()
        t2 = time.perf_counter()
        enq.append(t1 - t0)
        g_enq, g_tot = min(g_enq, t1 - t0), min(g_tot, t2 - t0)
        expect += n
    raw = _raw_enqueue(graph, s, greps)  # the same executable graph through cuda.bindings: the driver's own cost
    expect += n * greps if raw is not None else 0
    got = int(a.copy_to_host()[0])
    if got != expect:
        raise SystemExit(f"cudalite computed {got}, expected {expect}")
    arch = cuda.get_current_device().compute_capability
    return {"individual": [ind_enq, ind_tot], "graph": [g_enq, g_tot], "capture_s": capture_s,
            "graph_enqueue_median": sorted(enq)[len(enq) // 2], "raw_enqueue_median": raw,
            "arch": f"sm_{arch[0]}{arch[1]}", "device": cuda.get_current_device().name}


def _raw_enqueue(graph, stream, reps):
    """The median host time of ``cuGraphLaunch`` called through cuda.bindings on the same
    executable graph and stream (no cudalite code between): what the driver entry point
    costs in this process.  None without cuda.bindings."""
    try:
        from cuda.bindings import driver as drv
    except ImportError:
        return None
    exe, handle = graph._exec._cu, drv.CUstream(stream.__cuda_stream__()[1])
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        drv.cuGraphLaunch(exe, handle)
        t1 = time.perf_counter()
        stream.synchronize()
        times.append(t1 - t0)
    return sorted(times)[len(times) // 2]


def main(argv=None):
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--launches", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=20, help="repetitions of the 1,000 one-by-one launches")
    ap.add_argument("--graph-reps", type=int, default=200,
                    help="graph launches timed (a single call's enqueue is noisy: best and median of these)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    try:
        from cudalite import cuda

        cuda.get_current_device()
    except Exception as e:
        print(f"graphs benchmark skipped: no usable GPU ({e})")
        return
    mine = cudalite_rows(args.launches, args.reps, args.graph_reps)
    theirs = cuda_c(args.launches, args.reps, args.graph_reps, mine["arch"])
    print(f"# device: {mine['device']}; Python {sys.version.split()[0]}; {args.launches} dependent launches of "
          f"a one-thread kernel; best of {args.reps} (graphs: of {args.graph_reps}); "
          f"capture took {mine['capture_s'] * 1e3:.2f} ms")
    print("| variant | enqueue µs | total µs |")
    print("|---|---:|---:|")
    rows = [("cudalite, one by one", mine["individual"]), ("cudalite graph", mine["graph"])]
    if theirs:
        rows += [("CUDA C, one by one", theirs["individual"]), ("CUDA C graph", theirs["graph"])]
    for name, (enq, tot) in rows:
        print(f"| {name} | {enq * 1e6:.1f} | {tot * 1e6:.1f} |")
    speed = mine["individual"][1] / mine["graph"][1]
    print(f"\ncudalite graph vs one by one (total): {speed:.2f}x faster (target >= 3x)")
    if theirs:
        print(f"cudalite graph / CUDA C graph (total): {mine['graph'][1] / theirs['graph'][1]:.3f}x (target <= 1.1x)")
        print(f"cudalite graph / CUDA C graph (enqueue): best {mine['graph'][0] / theirs['graph'][0]:.2f}x, median "
              f"{mine['graph_enqueue_median'] / theirs['graph_enqueue_median']:.2f}x "
              f"({mine['graph_enqueue_median'] * 1e6:.1f} vs {theirs['graph_enqueue_median'] * 1e6:.1f} µs; "
              "target <= 1.5x)")
        if mine.get("raw_enqueue_median"):
            print(f"  the same graph through cuda.bindings' cuGraphLaunch in this process: median "
                  f"{mine['raw_enqueue_median'] * 1e6:.1f} µs")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "graphs", "device": mine["device"], "cudalite": mine, "cuda_c": theirs}, f,
                      indent=1)


if __name__ == "__main__":
    main()
