"""Kernels shipped to other processes (GPU-less): a ``multiprocessing`` spawn child and
Dask ``distributed`` worker processes receive a kernel defined in a script's
``__main__`` by value, with the code compiled in the parent, and load it without
compiling (each child refuses to compile; kernels are built for sm_90 without loading,
and "the device" is made to report compute capability 9.0)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

# The child side: make "the device" sm_90, refuse to compile, load the kernel's code
# without a GPU (CompiledKernel(load=False)) and report how it was obtained.
CHILD = textwrap.dedent("""
    def in_child(kernel, cc=(9, 0)):
        import functools, os
        from cudalite.cuda import types
        from cudalite.cuda._compiler import compile_code
        from cudalite.cuda._dispatch import kernel as _dispatcher
        from cudalite.cuda._compiler.kernel import CompiledKernel

        def refuse(pyfunc, argtypes, opts, options, **kw):  # the compile stage's compiler call
            raise AssertionError(f"process {os.getpid()} compiled {pyfunc.__qualname__} for {tuple(options.cc)}")

        compile_code.compile_with = refuse
        _dispatcher.current_cc = lambda: cc
        kernel._compiler.fallback = functools.partial(CompiledKernel, load=False)
        sig = (types.float32[::1], types.float32[::1], types.float32)
        try:
            status = kernel.compile(sig).status
        except AssertionError as e:
            status = str(e)
        return {"pid": os.getpid(), "status": status, "carried": type(kernel._compiler).__name__,
                "pickle_loads": sum(kernel.stats.pickle_loads.values()),
                "compiles": sum(kernel.stats.cache_misses.values())}
""")

PARENT = textwrap.dedent("""
    import functools, json, math, os, sys
    from cudalite import cuda
    from cudalite.cuda import types
    from cudalite.cuda._dispatch import kernel as _dispatcher
    from cudalite.cuda._compiler.kernel import CompiledKernel

    if __name__ == "__main__":
        @cuda.jit(device=True)
        def sin2(v):
            s = math.sin(v)
            return s * s

        @cuda.jit
        def shift_sin2(x, out, a):
            i = cuda.grid(1)
            if i < x.size:
                out[i] = a * x[i] + sin2(x[i])

        # compile here for sm_90 (built, not loaded: no GPU)
        real_cc = _dispatcher.current_cc
        _dispatcher.current_cc = lambda: (9, 0)
        shift_sin2._compiler = functools.partial(CompiledKernel, load=False)
        shift_sin2.compile((types.float32[::1], types.float32[::1], types.float32))
        _dispatcher.current_cc = real_cc
""")


def _run(tmp_path, body, timeout):
    script = tmp_path / "parent.py"
    script.write_text(CHILD + PARENT + textwrap.indent(textwrap.dedent(body), "    "))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_spawned_process_loads_the_carried_code(tmp_path):
    out = _run(tmp_path, """
        import multiprocessing as mp
        with mp.get_context("spawn").Pool(1) as pool:
            same = pool.apply(in_child, (shift_sin2,))
            other = pool.apply(in_child, (shift_sin2, (8, 0)))
        print(json.dumps({"same": same, "other": other, "parent": os.getpid()}))
    """, timeout=240)
    same, other = out["same"], out["other"]
    assert same["pid"] != out["parent"]
    assert same == {**same, "status": "pickled", "carried": "CarriedCode", "pickle_loads": 1, "compiles": 0}
    assert "compiled shift_sin2 for (8, 0)" in other["status"]  # another cc: compiles (refused here)


def test_dask_workers_load_the_carried_code(tmp_path):
    pytest.importorskip("distributed", reason="dask distributed is not installed")
    out = _run(tmp_path, """
        import dask.array as da
        import numpy as np
        from distributed import Client, LocalCluster

        def block(b):  # a map_blocks function: reports through its block
            r = in_child(shift_sin2)
            return np.array([r["pid"], r["status"] == "pickled", r["compiles"]], dtype=np.int64)

        with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, \\
                Client(cluster) as client:
            runs = client.run(in_child, shift_sin2)
            task = client.submit(in_child, shift_sin2).result()
            blocks = da.zeros(8, chunks=1, dtype=np.int64).map_blocks(
                block, chunks=(3,), dtype=np.int64, meta=np.empty(0, np.int64)).compute().reshape(-1, 3)
        print(json.dumps({"runs": list(runs.values()), "task": task, "blocks": blocks.tolist(),
                          "parent": os.getpid()}))
    """, timeout=400)
    runs = out["runs"]
    assert len(runs) == 2 and len({r["pid"] for r in runs} | {out["parent"]}) == 3  # two worker processes
    for r in runs + [out["task"]]:
        assert r == {**r, "status": "pickled", "carried": "CarriedCode", "pickle_loads": 1, "compiles": 0}
    assert len(out["blocks"]) == 8 and all(ok == 1 and compiles == 0 for _pid, ok, compiles in out["blocks"])
