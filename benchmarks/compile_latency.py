"""Compile latency: fresh interpreters, medians of RUNS, cudalite against numba-cuda
(where importable) measured in the same run.

Rows (each figure timed inside the child process with perf_counter):

* import           -- ``from cudalite import cuda`` (``from numba import cuda``), NumPy
                      imported before (every row excludes it)
* decorate         -- ``@cuda.jit(cache=True)`` of saxpy (no compilation happens)
* first call, cold -- saxpy's first launch + synchronize with an EMPTY kernel cache
                      (type + lower + libNVVM + link + load + store the entry); the CUDA
                      context and the arrays are made before and not counted
* first call, warm -- the same in a new process whose kernel cache holds the entry
                      (typing + key + read the entry + load the cubin + launch)
* second kernel    -- the first launch of a second, distinct kernel right after (cold runs)
* import -> result -- everything a program waits for after NumPy: the import, the decoration, the
                      context and arrays, the first call (the first three overlap
                      cudalite's background warm-up, which starts at the decoration)
* compile_ptx 50   -- first ``cuda.compile_ptx`` of a 50-line device function in a fresh
                      process after the import (includes loading the compiler), and the
                      median of 10 further compiles in that process (warm)

Targets (cudalite, issue 26): import <= 60 ms, cold first call <= 50 ms, warm-cache
first call <= 15 ms, second kernel <= 20 ms.  Nothing is asserted.  numba-cuda needs
numpy<2.5: ``--numba-path DIR`` puts DIR first on its sys.path.  Run the children's
bytecode compiled (``python -m compileall``) for figures a user sees.

    python benchmarks/compile_latency.py [--runs 5] [--numba-path /tmp/np24]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

SAXPY = r'''
import sys, time, json
import numpy as np  # first: every such program needs it, and the rows exclude it
t0 = time.perf_counter()
from {package} import cuda
t1 = time.perf_counter()

@cuda.jit(cache=True)
def saxpy(out, x, y, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]

t2 = time.perf_counter()
n = 1 << 20
x = cuda.to_device(np.ones(n, np.float32))
y = cuda.to_device(np.ones(n, np.float32))
out = cuda.device_array(n, np.float32)
cuda.synchronize()
t3 = time.perf_counter()
saxpy[(n + 255) // 256, 256](out, x, y, np.float32(2.0))
cuda.synchronize()
t4 = time.perf_counter()
assert out.copy_to_host()[0] == 3.0


@cuda.jit(cache=True)
def scale(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i]


t5 = time.perf_counter()
scale[(n + 255) // 256, 256](out, x, np.float32(3.0))
cuda.synchronize()
t6 = time.perf_counter()
assert out.copy_to_host()[0] == 3.0
print(json.dumps({{"import": t1 - t0, "decorate": t2 - t1, "first_call": t4 - t3, "second": t6 - t5,
                  "to_result": t4 - t0}}))
'''


def _fifty_lines():
    body = ["def udf(x, y, n):", "    acc = 0.0", "    t = x * y"]
    i = 0
    while len(body) < 46:
        body += [f"    if t > {i}.5:", f"        acc += t * {i + 1}.0 - y", "    else:",
                 f"        acc -= x / ({i}.0 + y * y + 1.0)"]
        i += 1
    body += ["    for k in range(n):", "        acc += k * 0.5", "    return acc + t"]
    return "\n".join(body) + "\n"


PTX = r'''
import sys, time, json, statistics
from {package} import cuda
{source}
t0 = time.perf_counter()
cuda.compile_ptx(udf, "float64(float64, float64, int32)", device=True, cc=(9, 0))
t1 = time.perf_counter()
warm = []
for _ in range(10):
    s = time.perf_counter()
    cuda.compile_ptx(udf, "float64(float64, float64, int32)", device=True, cc=(9, 0))
    warm.append(time.perf_counter() - s)
print(json.dumps({{"ptx_first": t1 - t0, "ptx_warm": statistics.median(warm)}}))
'''


def _run_script(path, env):
    proc = subprocess.run([sys.executable, path], capture_output=True, text=True, env=env, timeout=600)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
    raise RuntimeError(" | ".join(tail) or f"exit {proc.returncode}")


def _median(values):
    values = sorted(values)
    return values[len(values) // 2]


def measure(package, runs, prepend=None):
    """{'import', 'decorate', 'cold', 'warm', 'ptx_first', 'ptx_warm'} medians in seconds."""
    work = tempfile.mkdtemp(prefix=f"latency-{package}-")
    try:
        header = f"import sys; sys.path.insert(0, {prepend!r})\n" if prepend else ""
        script = os.path.join(work, "saxpy_latency.py")  # one path: the cache key names the file
        with open(script, "w") as f:
            f.write(header + SAXPY.format(package=package))
        ptx_script = os.path.join(work, "ptx_latency.py")
        with open(ptx_script, "w") as f:
            f.write(header + PTX.format(package=package, source=_fifty_lines()))
        root = os.path.join(work, "cache")  # cudalite: <root>/kernels (the driver's shim stays in <root>)
        env = dict(os.environ, CUDALITE_CACHE_DIR=root, NUMBA_CACHE_DIR=os.path.join(root, "kernels"))
        env.pop("CUDALITE_CACHE", None)
        env.pop("CUDALITE_TIMINGS", None)
        kernels = os.path.join(root, "kernels")
        _run_script(script, env)  # warm-up: the driver's launch shim, the OS file cache
        cold = []
        for _ in range(runs):
            shutil.rmtree(kernels, ignore_errors=True)
            for dirpath, dirnames, _files in os.walk(work):  # numba also caches beside the file
                for d in dirnames:
                    if d == "__pycache__":
                        shutil.rmtree(os.path.join(dirpath, d), ignore_errors=True)
            cold.append(_run_script(script, env))
        warm = [_run_script(script, env) for _ in range(runs)]
        ptx = [_run_script(ptx_script, env) for _ in range(runs)]
        return {
            "import": _median([r["import"] for r in cold + warm]),
            "decorate": _median([r["decorate"] for r in cold + warm]),
            "cold": _median([r["first_call"] for r in cold]),
            "warm": _median([r["first_call"] for r in warm]),
            "second": _median([r["second"] for r in cold]),
            "to_result": _median([r["to_result"] for r in cold]),
            "ptx_first": _median([r["ptx_first"] for r in ptx]),
            "ptx_warm": _median([r["ptx_warm"] for r in ptx]),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


ROWS = (("import", "import of cuda", 60), ("decorate", "@cuda.jit(cache=True) decoration", None),
        ("cold", "saxpy first call, empty cache", 50), ("warm", "saxpy first call, warm disk cache", 15),
        ("second", "second kernel's first call, empty cache", 20),
        ("to_result", "import -> first result, empty cache", None),
        ("ptx_first", "compile_ptx 50-line fn, first in process", None),
        ("ptx_warm", "compile_ptx 50-line fn, warm (median of 10)", None))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--numba-path", help="directory put first on numba-cuda's sys.path (numpy<2.5)")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON (benchmarks/report.py)")
    args = ap.parse_args(argv)
    results = {}
    for label, package, prepend in (("cudalite", "cudalite", None), ("numba-cuda", "numba", args.numba_path)):
        try:
            results[label] = measure(package, args.runs, prepend)
        except Exception as exc:
            print(f"# {label} skipped: {exc}")
    print(f"# fresh interpreter per run, median of {args.runs}; times in ms, measured inside the child; "
          "first call = launch + synchronize (context and arrays made before, not counted)")
    labels = list(results)
    print("| measure | " + " | ".join(labels) + " | target (cudalite) |" + (" numba / cudalite |" if len(labels) > 1
                                                                             else ""))
    print("|---|" + "---:|" * len(labels) + "---:|" + ("---:|" if len(labels) > 1 else ""))
    for key, title, target in ROWS:
        cells = [f"{results[lab][key] * 1e3:.1f}" for lab in labels]
        row = f"| {title} | " + " | ".join(cells) + f" | {'<= %d' % target if target else ''} |"
        if len(labels) > 1:
            row += f" {results[labels[1]][key] / results[labels[0]][key]:.2f}x |"
        print(row)
    if "cudalite" in results:
        r = results["cudalite"]
        met = [f"{title}: {'met' if r[key] * 1e3 <= target else 'MISSED'}" for key, title, target in ROWS if target]
        print("# targets: " + "; ".join(met))
    if args.json:
        import json

        with open(args.json, "w") as f:
            json.dump({"benchmark": "compile_latency", "runs": args.runs,
                       "rows": [{"key": k, "title": t, "target_ms": g} for k, t, g in ROWS],
                       "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
