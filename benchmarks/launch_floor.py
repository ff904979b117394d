"""How stable is the launch floor?  The same measurement in several fresh processes.

``benchmarks/jit_launch.py`` divides every launch time by the floor: cuda.bindings'
``cuLaunchKernel`` of an empty kernel with a prebuilt parameter array, called in a
tight loop.  On the H200 and H100 machines we use, that floor is not one number: in
some processes it is ~1.8 µs, in others, running the same code, ~3.6-4.1 µs (and
always ~4-5 µs in a process pinned to one core with ``taskset``), while the launches
that do any Python work between driver calls cost about the same in both states.  A
ratio to the floor therefore moves by 2x between runs without any code changing.

This script shows it: it starts ``--procs`` fresh interpreters, each measuring, with
interleaved rounds (best of 5, 200 launches between synchronizations):

* ``floor``   -- cuda.bindings ``cuLaunchKernel``, prebuilt parameters;
* ``shim``    -- the driver package's compiled shim, prebuilt parameters;
* ``cupy``    -- ``kernel[1, 1](a, b, c, 1.5)`` with three CuPy arrays (if installed);
* ``devarr``  -- the same with DeviceNDArrays;
* ``torch`` / ``core`` -- the same with three torch tensors / three cuda.core ``Buffer`` s
  (256-byte ``uint8`` arrays to the kernel), where installed;
* ``floor+work`` / ``work`` -- the floor loop with a trivial Python call (a dict
  read and store) between driver calls, and that call alone: does *any* work between
  launches take the floor out of its fast state?
* ``cupy_raw`` -- CuPy's own ``RawKernel`` launch of the same empty kernel with the
  same three CuPy arrays and a float64, the peer's launch path;

and prints one row per process with the ratios, then the spread.  The cudalite
launches' cost *above the driver call* (``cupy - shim``) is the figure that does not
depend on the floor's state.  Run on a GPU host: ``python benchmarks/launch_floor.py``.
"""

from __future__ import annotations

import ctypes
import json
import os
import statistics
import subprocess
import sys
import time


def _child() -> dict:
    import warnings

    warnings.simplefilter("ignore")
    import numpy as np
    from cuda.bindings import driver as cu

    from cudalite import cuda
    from cudalite.driver.launch import get_driver

    def empty4(a, b, c, x):
        pass

    kernel = cuda.jit(empty4)
    da, db, dc = (cuda.device_array(64, np.float32) for _ in range(3))
    kernel[1, 1](da, db, dc, 1.5)
    ck = next(iter(kernel.overloads.values()))
    vals = [ctypes.c_uint64(da._ptr), ctypes.c_int64(64), ctypes.c_uint64(db._ptr), ctypes.c_int64(64),
            ctypes.c_uint64(dc._ptr), ctypes.c_int64(64), ctypes.c_double(1.5)]
    arr = (ctypes.c_void_p * len(vals))(*[ctypes.addressof(v) for v in vals])
    params, f_cu, s_cu, lk = ctypes.addressof(arr), ck.function._cu, cu.CUstream(0), cu.cuLaunchKernel
    rows = {}

    def floor(n):
        for _ in range(n):
            lk(f_cu, 1, 1, 1, 1, 1, 1, 0, s_cu, params, 0)

    rows["floor"] = floor
    box = {"k": 0}

    def work():  # ~0.1-0.2 µs of Python: a call, a dict read and a store
        box["k"] = box["k"] + 1

    def floor_work(n):
        for _ in range(n):
            work()
            lk(f_cu, 1, 1, 1, 1, 1, 1, 0, s_cu, params, 0)

    def work_only(n):
        for _ in range(n):
            work()

    rows["floor+work"] = floor_work
    rows["work"] = work_only
    native = get_driver().native("shim") if ck.launcher.backend == "shim" else None
    if native is not None:
        cl, entry, fh = native[0].lib.cl_launch, native[1], ck.function.handle

        def shim(n):
            for _ in range(n):
                cl(entry, fh, 1, 1, 1, 1, 1, 1, 0, 0, params)

        rows["shim"] = shim
    try:
        import cupy as cp

        ca, cb, cc = (cp.zeros(64, cp.float32) for _ in range(3))

        def cupy(n):
            for _ in range(n):
                kernel[1, 1](ca, cb, cc, 1.5)

        rows["cupy"] = cupy
        raw = cp.RawKernel(r'''extern "C" __global__ void empty4(float *a, float *b, float *c, double x) {}''',
                           "empty4")
        x64 = np.float64(1.5)
        raw((1,), (1,), (ca, cb, cc, x64))

        def cupy_raw(n):
            for _ in range(n):
                raw((1,), (1,), (ca, cb, cc, x64))

        rows["cupy_raw"] = cupy_raw
    except Exception:  # no CuPy: the rows are left out
        pass

    def devarr(n):
        for _ in range(n):
            kernel[1, 1](da, db, dc, 1.5)

    rows["devarr"] = devarr
    try:
        import torch

        ta, tb, tc = (torch.zeros(64, device="cuda", dtype=torch.float32) for _ in range(3))
        torch.cuda.synchronize()
        kernel[1, 1](ta, tb, tc, 1.5)

        def torch_rows(n):
            for _ in range(n):
                kernel[1, 1](ta, tb, tc, 1.5)

        rows["torch"] = torch_rows
    except Exception as exc:  # no torch (or no CUDA build of it): the row is left out
        print(f"# torch row skipped: {type(exc).__name__}: {exc}", file=sys.stderr)
    try:
        try:
            from cuda.core import Device
        except ImportError:
            from cuda.core.experimental import Device
        core_dev = Device(cuda.get_current_device().id)
        core_dev.set_current()
        cs = core_dev.default_stream  # uint8 arrays of 256 bytes to a kernel:
        ba, bb, bc = (core_dev.allocate(256, stream=cs) for _ in range(3))
        cs.sync()
        kernel[1, 1](ba, bb, bc, 1.5)

        def core(n):
            for _ in range(n):
                kernel[1, 1](ba, bb, bc, 1.5)

        rows["core"] = core
    except Exception as exc:  # no cuda.core: the row is left out
        print(f"# cuda.core row skipped: {type(exc).__name__}: {exc}", file=sys.stderr)
    sync, best = cuda.synchronize, {}
    for _ in range(5):
        for name, run in rows.items():
            run(1000)
            sync()
            for _ in range(50):
                t0 = time.perf_counter()
                run(200)
                t1 = time.perf_counter()
                sync()
                best[name] = min(best.get(name, float("inf")), (t1 - t0) / 200 * 1e6)
    return best


def main(argv=None) -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--procs", type=int, default=6, help="fresh processes to measure in (default 6)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_child()))
        return
    results = []
    for _ in range(args.procs):
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"], capture_output=True, text=True)
        if p.returncode:
            print(f"launch floor benchmark skipped: the child failed:\n{p.stderr.strip()[-2000:]}")
            return
        results.append(json.loads(p.stdout.strip().splitlines()[-1]))
        if len(results) == 1:  # the rows the first process left out, and why
            for line in p.stderr.splitlines():
                if line.startswith("# "):
                    print(line)
    names = list(results[0])
    print("| process | " + " | ".join(f"{n} µs" for n in names) + " | "
          + " | ".join(f"{n} / floor" for n in names[1:]) + " |")
    print("|---:|" + "---:|" * (2 * len(names) - 1))
    for i, r in enumerate(results):
        print(f"| {i + 1} | " + " | ".join(f"{r[n]:.2f}" for n in names) + " | "
              + " | ".join(f"{r[n] / r['floor']:.2f}x" for n in names[1:]) + " |")
    floors = [r["floor"] for r in results]
    print(f"\nfloor: {min(floors):.2f} to {max(floors):.2f} µs over {len(results)} processes")
    if "floor+work" in names:
        fw = [r["floor+work"] - r["work"] for r in results]
        print(f"floor with ~{statistics.median(r['work'] for r in results):.2f} µs of Python between driver calls: "
              f"{min(fw):.2f} to {max(fw):.2f} µs per launch (work subtracted)")
    for n in ("cupy", "devarr", "torch", "core", "cupy_raw"):
        if "shim" in names and n in names:
            above = [r[n] - r["shim"] for r in results]
            print(f"{n}: {statistics.median(above):.2f} µs above the shim's prebuilt launch (median; "
                  f"{min(above):.2f} to {max(above):.2f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "launch_floor", "python": sys.version.split()[0], "processes": results}, f,
                      indent=1)


if __name__ == "__main__":
    main()
