"""cuda.compute's operator compiler: cudalite (``cudalite.cuda.cccl.op``) against
numba-cuda-mlir (cuda.compute's own), measured in the same run.

Rows (ratio column = cudalite / numba-cuda-mlir; target <= 0.5, lower is better):

* (a) operator compile, cold -- in a fresh process, after ``import cuda.compute`` and the
  CUDA device are ready (timed apart, not counted): importing the compiler, making the
  adapter and the first ``compile((int32, int32), int32)`` of ``def add(a, b): return a + b``
  to LTO-IR (cudalite: ``cccl.op(add).compile(...)``; numba-cuda-mlir: its adapter from
  ``cuda.compute.op._jit_op_adapter_factory()``).  Both compile for the device's compute
  capability given through ``cuda.compute._target_cc.target_cc`` (no device query inside).
  Median of RUNS processes.
* (b) operator compile, warm -- the same process, then 5 *different* operators (new
  function bodies: no cache hit), median.
* (c) first ``cuda.compute.reduce_into`` in a fresh process: from the parent's spawn to the
  result copied back (interpreter, imports, CUB build, operator compile, launch), and the
  call + copy alone.  Median of RUNS processes.  The backends' processes alternate (cudalite, numba-cuda-mlir,
  cudalite, ...), so a drift of the machine reaches both alike.
* (d) host time of a repeated ``reduce_into`` of 1,000 int32 with the same operator,
  synchronizing after each call (median of REPS): the object API (``make_reduce_into``
  once, then calls with a preallocated temporary) and the one-shot function.
* floors: the same (c) and (d) calls with ``OpKind.PLUS`` -- cuda.compute alone, no Python
  operator, no operator compiler -- in the same processes (the (d) figures interleaved in
  rounds), and each figure above its floor: what the operator compiler adds.  An operator
  compiler cannot make a call faster than its floor, so the ratio that measures it is the one
  above the floor.
* the compiler's own per-call work: ``make_op_adapter(op).get_state()``, what every algorithm
  call does with a plain Python callable (best of 5 loops of 20,000).

Each backend is selected by setting ``cuda.compute.op._jit_adapter`` (``cccl.op``, or the
factory's numba-cuda-mlir adapter) in the benchmark's own processes: a benchmark's
substitution, which shipped code never makes.  Every child runs with this interpreter and
this PYTHONPATH, and with no on-disk cache to hit: ``CUDALITE_CACHE=0`` and a fresh
``CUDALITE_CACHE_DIR`` (cudalite's kernel cache is off unless configured, and ``cccl.op``
caches in memory only), ``CCCL_ENABLE_PCH=0`` (cuda.compute's precompiled-header cache,
its only disk cache), ``CUDA_CACHE_DISABLE=1`` (the driver's JIT cache) and a fresh
``NUMBA_CACHE_DIR`` (numba-cuda-mlir writes to disk only for ``cache=True`` kernels,
which cuda.compute does not use).  Nothing is asserted.  Without a GPU, cuda.compute,
CuPy or numba-cuda-mlir, it says what is skipped and exits 0.

    python benchmarks/cccl_ops.py [--runs 3] [--reps 200] [--json cccl_ops.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import gpu_or_skip, table  # noqa: E402

BACKENDS = ("cudalite", "numba-cuda-mlir")
WARM_OPS = 5
N_ITEMS = 1000

OPS = '''
def add(a, b):
    return a + b
''' + "".join(f'''

def warm_{i}(a, b):
    return a * {i + 2} + b - {i}
''' for i in range(WARM_OPS)) + f'''

WARM = [{", ".join(f"warm_{i}" for i in range(WARM_OPS))}]
'''

CHILD = r'''
import json, statistics, sys, time
backend, mode, ops_dir, reps, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
ROUNDS = 5
sys.path.insert(0, ops_dir)
t0 = time.perf_counter()
import numpy as np
import cuda.compute
import cuda.compute.op as cc_op
from cuda.compute import types as ct
from cuda.compute._target_cc import target_cc
from cuda.core import Device
dev = Device()
dev.set_current()
cc = tuple(dev.compute_capability)
import bench_cccl_ops as ops
t1 = time.perf_counter()


def adapter_maker():
    if backend == "cudalite":
        from cudalite.cuda import cccl
        return cccl.op
    return cc_op._jit_op_adapter_factory()


def reduce_arrays():
    import cupy as cp
    d_in = cp.arange(n, dtype=np.int32)
    return cp, d_in, cp.empty(1, dtype=np.int32), np.zeros(1, dtype=np.int32), int(np.arange(n).sum())


out = {"setup_s": t1 - t0}
if mode == "compile":
    with target_cc(cc):
        t2 = time.perf_counter()
        make = adapter_maker()
        make(ops.add).compile((ct.int32, ct.int32), ct.int32)
        t3 = time.perf_counter()
        warm = []
        for f in ops.WARM:
            a = time.perf_counter()
            make(f).compile((ct.int32, ct.int32), ct.int32)
            warm.append(time.perf_counter() - a)
    out.update(cold_s=t3 - t2, warm_s=statistics.median(warm))
    cc_op._jit_adapter = make
    cp, d_in, d_out, h_init, want = reduce_arrays()
    sync = cp.cuda.Device().synchronize
    kw = dict(d_in=d_in, d_out=d_out, h_init=h_init)

    def runners(op):
        """(object API call, one-shot call) of reduce_into with ``op``, each synchronized."""
        k = dict(kw, op=op)
        reducer = cuda.compute.make_reduce_into(**k)
        temp = cp.empty(max(int(reducer(temp_storage=None, num_items=n, **k)), 1), dtype=np.uint8)

        def object_api():
            reducer(temp_storage=temp, num_items=n, **k)
            sync()

        def one_shot():
            cuda.compute.reduce_into(num_items=n, **k)
            sync()

        return object_api, one_shot

    object_api, one_shot = runners(ops.add)
    # the floor: the same calls with OpKind.PLUS (cuda.compute's own, no Python operator)
    object_floor, oneshot_floor = runners(cuda.compute.OpKind.PLUS)
    runs = (("object_s", object_api), ("oneshot_s", one_shot),
            ("object_floor_s", object_floor), ("oneshot_floor_s", oneshot_floor))
    times = {name: [] for name, _ in runs}
    for name, run in runs:
        d_out.fill(-1)
        run()
        got = int(d_out.get()[0])
        if got != want:
            raise SystemExit(f"{name}: reduce_into gave {got}, expected {want}")
    for _ in range(ROUNDS):  # interleaved, so drift of the machine hits every figure alike
        for name, run in runs:
            for _ in range(max(reps // ROUNDS, 1)):
                a = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - a)
    out.update({name: statistics.median(t) for name, t in times.items()})
    # the operator compiler's own per-call work: what every algorithm call does with a
    # Python callable (make_op_adapter, then the state bytes); no GPU work
    make_op_adapter = cc_op.make_op_adapter
    loops = 20000
    best = None
    for _ in range(5):
        a = time.perf_counter()
        for _ in range(loops):
            make_op_adapter(ops.add).get_state()
        per = (time.perf_counter() - a) / loops
        best = per if best is None else min(best, per)
    out["adapter_s"] = best
elif mode == "first-floor":  # cuda.compute alone: OpKind.PLUS, no operator compiler involved
    cp, d_in, d_out, h_init, want = reduce_arrays()
    t2 = time.perf_counter()
    cuda.compute.reduce_into(d_in=d_in, d_out=d_out, num_items=n, op=cuda.compute.OpKind.PLUS, h_init=h_init)
    got = int(d_out.get()[0])
    t3 = time.perf_counter()
    if got != want:
        raise SystemExit(f"reduce_into gave {got}, expected {want}")
    out.update(floor_call_s=t3 - t2)
else:  # first-reduce
    cc_op._jit_adapter = adapter_maker()
    cp, d_in, d_out, h_init, want = reduce_arrays()
    t2 = time.perf_counter()
    cuda.compute.reduce_into(d_in=d_in, d_out=d_out, num_items=n, op=ops.add, h_init=h_init)
    got = int(d_out.get()[0])
    t3 = time.perf_counter()
    if got != want:
        raise SystemExit(f"reduce_into gave {got}, expected {want}")
    out.update(call_s=t3 - t2, end_wall=time.time())
print("RESULT " + json.dumps(out))
'''

ROWS = (  # (key, label, unit scale, unit)
    ("cold_s", "(a) operator compile, cold (import + first compile)", 1e3, "ms"),
    ("warm_s", "(b) operator compile, warm (a new operator)", 1e3, "ms"),
    ("process_s", "(c) first reduce_into: process start to result", 1e3, "ms"),
    ("call_s", "(c) first reduce_into: the call + copy alone", 1e3, "ms"),
    ("object_s", "(d) reduce_into, object API, host per call + sync", 1e6, "us"),
    ("oneshot_s", "(d) reduce_into, one-shot, host per call + sync", 1e6, "us"),
    ("floor_call_s", "(c) floor: first reduce_into with OpKind.PLUS, the call alone", 1e3, "ms"),
    ("object_floor_s", "(d) floor: object API with OpKind.PLUS", 1e6, "us"),
    ("oneshot_floor_s", "(d) floor: one-shot with OpKind.PLUS", 1e6, "us"),
    ("call_over_floor_s", "(c) the call alone, above the floor", 1e3, "ms"),
    ("object_over_floor_s", "(d) object API, above the floor", 1e6, "us"),
    ("oneshot_over_floor_s", "(d) one-shot, above the floor", 1e6, "us"),
    ("adapter_s", "(d) the compiler's per-call work (make_op_adapter + get_state)", 1e6, "us"),
)
# derived rows: a figure minus cuda.compute's own floor measured in the same processes
OVER_FLOOR = (("call_over_floor_s", "call_s", "floor_call_s"), ("object_over_floor_s", "object_s", "object_floor_s"),
              ("oneshot_over_floor_s", "oneshot_s", "oneshot_floor_s"))


def skip_reason(find_spec=importlib.util.find_spec):
    """Why the whole benchmark cannot run here (a missing module), or None."""
    for name, why in (("cuda.compute", "cuda.compute (cuda-cccl) not importable"),
                      ("cupy", "CuPy not importable (the arrays)"),
                      ("cudalite.cuda", "cudalite not importable (put packages/*/src on PYTHONPATH)")):
        try:
            if find_spec(name) is None:
                return why
        except (ImportError, ValueError):
            return why
    return None


def available_backends(find_spec=importlib.util.find_spec):
    """``(backends to run, notes on those skipped)``."""
    try:
        mlir = find_spec("numba_cuda_mlir") is not None
    except (ImportError, ValueError):
        mlir = False
    if mlir:
        return list(BACKENDS), []
    return ["cudalite"], ["numba-cuda-mlir not importable: skipped"]


def child_env(environ, scratch):
    """This process's environment with every on-disk compile cache off or fresh."""
    env = dict(environ)
    env.update(CUDALITE_CACHE="0", CUDALITE_CACHE_DIR=os.path.join(scratch, "cudalite"), CCCL_ENABLE_PCH="0",
               CUDA_CACHE_DISABLE="1", NUMBA_CACHE_DIR=os.path.join(scratch, "numba"))
    return env


MODES = ("compile", "first-reduce", "first-floor")


def run_child(backend, mode, ops_dir, reps, environ):
    """The child's figures (``process_s`` added for first-reduce), or ``{"error": line}``."""
    with tempfile.TemporaryDirectory(prefix="cccl-ops-cache-") as scratch:
        start = time.time()
        proc = subprocess.run([sys.executable, "-c", CHILD, backend, mode, ops_dir, str(reps), str(N_ITEMS)],
                              env=child_env(environ, scratch), capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            res = json.loads(line[len("RESULT "):])
            if "end_wall" in res:
                res["process_s"] = res.pop("end_wall") - start
            return res
    tail = [ln for ln in (proc.stderr or proc.stdout).strip().splitlines() if ln.strip()]
    return {"error": f"exit {proc.returncode}: {tail[-1] if tail else 'no output'}"}


def measure(backends, runs, reps, ops_dir, environ, child=None):
    """``{backend: {key: seconds}}``, medians over ``runs`` fresh processes of each kind
    (or ``{"error": line}``), the backends' processes interleaved so that the machine's
    drift hits each alike."""
    child = child or run_child
    got = {b: {mode: [] for mode in MODES} for b in backends}
    for mode in MODES:
        for _ in range(runs):
            for b in backends:
                got[b][mode].append(child(b, mode, ops_dir, reps, environ))
    results = {}
    for b in backends:
        results[b] = res = {}
        for mode in MODES:
            errors = [g["error"] for g in got[b][mode] if "error" in g]
            if errors:
                results[b] = {"error": f"{mode}: {errors[0]}"}
                break
            for key in got[b][mode][0]:
                res[key] = statistics.median(g[key] for g in got[b][mode])
        else:
            res.update(over_floor(res))
    return results


def over_floor(results):
    """``{derived key: figure - its floor}`` for each pair both present in ``results``."""
    return {key: results[fig] - results[floor] for key, fig, floor in OVER_FLOOR
            if fig in results and floor in results}


def rows(results):
    """Table rows: label, cudalite, numba-cuda-mlir, cudalite/mlir (``-`` where missing)."""
    mine, peer = results.get("cudalite") or {}, results.get("numba-cuda-mlir") or {}
    out = []
    for key, label, scale, unit in ROWS:
        a, b = mine.get(key), peer.get(key)
        ratio = f"{a / b:.2f}" if a and b and a > 0 and b > 0 else "-"
        out.append([label, _fmt(a, scale, unit), _fmt(b, scale, unit), ratio])
    return out


def _fmt(value, scale, unit):
    if value is None:
        return "-"
    v = value * scale
    return f"{v:.0f} {unit}" if v >= 100 else f"{v:.1f} {unit}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per cold figure (median)")
    ap.add_argument("--reps", type=int, default=200, help="calls per (d) figure (median)")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = ap.parse_args(argv)
    if args.runs < 1 or args.reps < 1:
        ap.error("--runs and --reps must be at least 1")
    reason = skip_reason()
    if reason:
        print(f"cccl_ops benchmark skipped: {reason}")
        return 0
    if gpu_or_skip("cccl_ops") is None:
        return 0
    backends, notes = available_backends()
    for note in notes:
        print(note)
    with tempfile.TemporaryDirectory(prefix="cccl-ops-") as ops_dir:
        with open(os.path.join(ops_dir, "bench_cccl_ops.py"), "w") as f:
            f.write(OPS)
        results = measure(backends, args.runs, args.reps, ops_dir, os.environ)
        for backend, res in results.items():
            if "error" in res:
                print(f"{backend}: failed ({res['error']})")
    print(f"# cuda.compute operator compilers: {args.runs} fresh processes per cold figure, "
          f"{args.reps} calls per (d) figure; ratio cudalite/numba-cuda-mlir (target <= 0.5)")
    table(["measure", "cudalite", "numba-cuda-mlir", "cudalite/mlir"],
          rows({k: v for k, v in results.items() if "error" not in v}))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "cccl_ops", "runs": args.runs, "reps": args.reps, "n": N_ITEMS,
                       "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
