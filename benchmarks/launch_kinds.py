"""Host time per launch of one empty kernel ``(a, b, c, x)`` by argument kind, in one
process: three DeviceNDArrays, torch tensors, CuPy arrays or cuda.core ``Buffer`` s (each
64 float32 / 256 bytes) and a Python float, each kind through a kernel of its own with the
configured launch held (``cfg = kernel[1, 1]; cfg(*args)``), rounds interleaved, best round
per kind.  What it shows: each kind's own cost above the device arrays' (whose values the
direct launch keeps in C), the libraries' attribute reads included (issue 26's part 3;
``benchmarks/launch_floor.py`` gives the same kinds against the driver's floor in fresh
processes).  Kinds whose library is missing are left out, with the reason printed.  The
driver call itself can differ between two kernels of one process (the floor's two states,
``launch_floor.py``'s docstring): a kind measuring *below* the device arrays is such a case;
compare a kind across runs.

    python benchmarks/launch_kinds.py
"""

from __future__ import annotations

import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import gpu_or_skip, host_us  # noqa: E402

BATCH, BATCHES, ROUNDS = 200, 30, 5


def body(a, b, c, x):
    pass


def kinds(cuda):
    """``{kind: args}`` for every kind this host has."""
    import numpy as np

    rows = {"DeviceNDArray": tuple(cuda.device_array(64, np.float32) for _ in range(3)) + (1.5,)}
    try:
        import torch

        rows["torch"] = tuple(torch.zeros(64, device="cuda") for _ in range(3)) + (1.5,)
    except Exception as e:  # no torch, or no CUDA build of it
        print(f"# torch left out: {type(e).__name__}: {e}")
    try:
        import cupy as cp

        rows["CuPy"] = tuple(cp.zeros(64, cp.float32) for _ in range(3)) + (1.5,)
    except Exception as e:
        print(f"# CuPy left out: {type(e).__name__}: {e}")
    try:
        try:
            from cuda.core import Device
        except ImportError:
            from cuda.core.experimental import Device
        dev = Device(cuda.get_current_device().id)
        dev.set_current()
        stream = dev.default_stream
        bufs = tuple(dev.allocate(256, stream=stream) for _ in range(3))
        stream.sync()
        rows["cuda.core Buffer"] = bufs + (1.5,)
    except Exception as e:
        print(f"# cuda.core left out: {type(e).__name__}: {e}")
    return rows


def _version_bump():
    """``bump(tensors)``: what an in-place write does to their version counters
    (``torch.autograd.graph.increment_version``), or None without it."""
    try:
        from torch.autograd.graph import increment_version
    except Exception:
        return None

    def bump(tensors):
        for t in tensors:
            increment_version(t)

    return bump


def main(argv=None):
    warnings.simplefilter("ignore")
    got = gpu_or_skip("launch kinds")
    if got is None:
        return
    cuda, dev = got
    rows = kinds(cuda)
    cfgs = {}
    for name, args in rows.items():
        cfgs[name] = cfg = cuda.jit(body)[1, 1]
        cfg(*args)  # compiles; cfg becomes the kernel's launcher for these kinds
    runs = {name: (lambda a=args, c=cfgs[name]: c(*a)) for name, args in rows.items()}
    bump = _version_bump()
    if "torch" in rows and bump is not None:
        # tensors written in place by torch between launches: their version counters move, so
        # each launch re-validates them (the bump's own time is measured alone and subtracted)
        name = "torch, version bumped before each launch"
        ts, cfg = rows["torch"][:3], cfgs["torch"]
        rows[name], cfgs[name] = rows["torch"], cfg
        runs[name] = lambda a=rows["torch"], c=cfg, t=ts: (bump(t), c(*a))
        runs["(the bump alone)"] = lambda t=ts: bump(t)
    best = {}
    for _ in range(ROUNDS):
        for name, run in runs.items():
            t = host_us(run, BATCH, BATCHES, cuda.synchronize)
            best[name] = min(best.get(name, float("inf")), t)
    if "(the bump alone)" in best:
        alone = best.pop("(the bump alone)")
        best["torch, version bumped before each launch"] -= alone
    base = best["DeviceNDArray"]
    print(f"# device: {dev.name}; Python {sys.version.split()[0]}; µs per launch, {BATCH} launches between syncs, "
          f"best of {BATCHES} batches and {ROUNDS} interleaved rounds")
    print("| arguments (x3, + a float) | µs per launch | above DeviceNDArray µs | launcher |")
    print("|---|---:|---:|---|")
    for name, t in best.items():
        print(f"| {name} | {t:.2f} | {t - base:+.2f} | {getattr(cfgs[name].func, '__name__', '?')} |")
    if "torch, version bumped before each launch" in best:
        print("# the bumped row: host time of (increment_version of the 3 tensors + launch) minus the bumps alone")


if __name__ == "__main__":
    main()
