"""Map a cudalite kernel over CuPy-backed chunks with Dask ``distributed``.

A ``LocalCluster`` of worker *processes* (by default one per GPU, each pinned to its
own GPU; ``--workers 2`` puts two on one GPU) evaluates a ``dask.array`` whose blocks
are CuPy arrays: ``map_blocks`` applies a function that launches a ``@cuda.jit``
kernel on each block, and the result is checked against NumPy.

The kernel is defined in this script (``__main__``), so Dask pickles it *by value*,
and because it was compiled here first (on this process's GPU), the pickle carries the
compiled cubin: a worker whose GPU has the same compute capability loads it without
compiling.  Each worker reports ``kernel.stats``: ``cache_misses`` counts compiles,
``pickle_loads`` the specializations loaded from the pickle.

Everything that touches CUDA sits under the ``__main__`` guard: Dask's worker processes
are spawned, so they import this script again (as ``__mp_main__``), and they must not
start CUDA before the plugin below has pinned them to their GPU.

Needs ``dask``, ``distributed`` and ``cupy``::

    python examples/dask_map.py                 # one worker per GPU
    python examples/dask_map.py --workers 2     # two workers (on one GPU if there is one)

Prints one line per worker, then ``OK`` (exit status 1 when a result is wrong or a
worker with this process's compute capability compiled the kernel).
"""

import argparse
import math
import os
import sys

import numpy as np

from cudalite import cuda

THREADS = 256


def reference(x, a):
    """What the kernel computes, in NumPy (float32 in, float32 out)."""
    return (a * x + np.sin(x) * np.sin(x)).astype(np.float32)


if __name__ == "__main__":
    from distributed import WorkerPlugin

    @cuda.jit
    def shift_sin2(x, out, a):
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < x.size:
            s = math.sin(x[i])
            out[i] = a * x[i] + s * s
            i += stride

    def launch(x, out, a):
        """``shift_sin2`` over CuPy arrays (a grid of at most 1024 blocks: the loop strides)."""
        blocks = min(1024, max(1, (x.size + THREADS - 1) // THREADS))
        shift_sin2[blocks, THREADS](x, out, np.float32(a))

    def apply_block(block, a):
        """The ``map_blocks`` function: runs in a worker, on a CuPy block."""
        import cupy

        out = cupy.empty_like(block)
        launch(block, out, a)
        return out

    def report():
        """Run in every worker (``client.run``): launch the kernel once and say how this
        process's copy of it got its code."""
        import cupy

        x = cupy.arange(1000, dtype=cupy.float32)
        out = cupy.empty_like(x)
        launch(x, out, 0.5)
        ok = bool(np.allclose(cupy.asnumpy(out), reference(np.arange(1000, dtype=np.float32), np.float32(0.5)),
                              rtol=1e-5, atol=1e-5))
        dev = cuda.get_current_device()
        stats = shift_sin2.stats
        return {"pid": os.getpid(), "gpu": os.environ.get("CUDA_VISIBLE_DEVICES", "all"),
                "cc": tuple(dev.compute_capability), "compiled": sum(stats.cache_misses.values()),
                "from_pickle": sum(stats.pickle_loads.values()), "ok": ok}

    class PinGPU(WorkerPlugin):
        """Each worker process sees one GPU (``CUDA_VISIBLE_DEVICES``), chosen by its
        index, before it runs any task (nothing in it has started CUDA yet)."""

        def __init__(self, gpus):
            self.gpus = gpus

        def setup(self, worker):
            index = worker.name if isinstance(worker.name, int) else 0
            os.environ["CUDA_VISIBLE_DEVICES"] = self.gpus[index % len(self.gpus)]

    def main():
        import cupy
        import dask.array as da
        from distributed import Client, LocalCluster

        ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        ap.add_argument("--workers", type=int, default=None, help="worker processes (default: one per GPU)")
        ap.add_argument("--n", type=int, default=1 << 22, help="elements (float32)")
        ap.add_argument("--chunk", type=int, default=1 << 20, help="elements per block")
        args = ap.parse_args()

        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        gpus = visible.split(",") if visible else [str(i) for i in range(len(cuda.gpus))]
        nworkers = args.workers or len(gpus)
        a = np.float32(0.75)

        # compile here, on this process's GPU: the pickle sent to the workers carries the code
        probe = cupy.arange(8, dtype=cupy.float32)
        launch(probe, cupy.empty_like(probe), a)
        here = tuple(cuda.get_current_device().compute_capability)
        print(f"dask_map: kernel compiled in the client for compute capability {here[0]}.{here[1]}; "
              f"{nworkers} worker process(es) on {len(gpus)} GPU(s)")

        host = np.random.default_rng(0).standard_normal(args.n).astype(np.float32)
        with LocalCluster(n_workers=nworkers, processes=True, threads_per_worker=1,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            client.register_plugin(PinGPU(gpus))
            # CuPy blocks, made in the workers; meta= tells Dask the block type without calling the function
            x = da.from_array(host, chunks=args.chunk).map_blocks(cupy.asarray, meta=cupy.empty(0, np.float32))
            y = x.map_blocks(apply_block, a, dtype=np.float32, meta=cupy.empty(0, np.float32))
            result = y.map_blocks(cupy.asnumpy, dtype=np.float32, meta=np.empty(0, np.float32)).compute()
            reports = client.run(report)

        failed = False
        if not np.allclose(result, reference(host, a), rtol=1e-5, atol=1e-5):
            print(f"wrong result: max error {np.max(np.abs(result - reference(host, a)))}")
            failed = True
        else:
            print(f"  {x.numblocks[0]} CuPy blocks of up to {args.chunk} float32 match NumPy")
        for address, r in sorted(reports.items()):
            print(f"  worker pid {r['pid']} (GPU {r['gpu']}, cc {r['cc'][0]}.{r['cc'][1]}): compiled "
                  f"{r['compiled']} time(s), loaded {r['from_pickle']} specialization(s) from the pickle")
            if not r["ok"] or (r["cc"] == here and r["compiled"]):
                failed = True
        if failed:
            print("FAILED")
            sys.exit(1)
        print("OK")

    main()
