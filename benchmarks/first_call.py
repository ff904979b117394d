"""First-call latency: in fresh interpreters (median of RUNS), the time to import
``cudalite.cuda`` and to make the first call of a saxpy kernel (compile + link +
load + launch + synchronize), against numba-cuda when importable.

Each child imports NumPy first (timed apart: every such program needs it, and on
some hosts it alone takes ~190 ms), then the package, decorates the kernel, makes
the arrays (the first driver use: cuInit, primary context -- timed apart, as
"driver + arrays") and makes the first call.  For cudalite the first call is split
into the compiler's stages (parse, infer, lower -- which loads libNVVM for its IR
version --, nvvm) and the rest (nvJitLink, module load, launcher, launch, sync).

Target: import + decorate + first call < 250 ms.  ``--numba-path DIR`` puts DIR
first on numba-cuda's sys.path (it needs numpy<2.5).  Nothing is asserted.

    python benchmarks/first_call.py [--numba-path /tmp/np24]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

RUNS = 5

CHILD = r'''
import sys, time, json
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
from {package} import cuda
t2 = time.perf_counter()


@cuda.jit
def saxpy(out, x, y, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


t3 = time.perf_counter()
n = 1 << 20
x = cuda.to_device(np.ones(n, np.float32))
y = cuda.to_device(np.ones(n, np.float32))
out = cuda.device_array(n, np.float32)
t4 = time.perf_counter()
saxpy[(n + 255) // 256, 256](out, x, y, np.float32(2.0))
cuda.synchronize()
t5 = time.perf_counter()
assert out.copy_to_host()[0] == 3.0
res = {{"numpy": t1 - t0, "import": t2 - t1, "decorate": t3 - t2, "setup": t4 - t3, "first_call": t5 - t4}}
kernel = next(iter(saxpy.overloads.values()))
timings = getattr(getattr(kernel, "result", None), "timings", None)
if timings:
    res.update({{"stage_" + k: v for k, v in timings.items()}})
    res["stage_link_load_launch"] = res["first_call"] - sum(timings.values())
print(json.dumps(res))
'''


def one(package, prepend=None):
    code = CHILD.format(package=package)
    if prepend:
        code = f"import sys; sys.path.insert(0, {prepend!r})\n" + code
    with tempfile.TemporaryDirectory() as tmp:  # a file: the compilers read the kernel's source
        script = os.path.join(tmp, f"first_call_{package}.py")
        with open(script, "w") as f:
            f.write(code)
        proc = subprocess.run([sys.executable, script], capture_output=True, text=True)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError((proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"])


def measure(package, prepend=None):
    runs = [one(package, prepend) for _ in range(RUNS)]
    med = {k: sorted(r.get(k, 0.0) for r in runs)[len(runs) // 2] for k in runs[0]}
    med["total"] = sorted(r["import"] + r["decorate"] + r["first_call"] for r in runs)[len(runs) // 2]
    med["all"] = sorted(sum(r[k] for k in ("numpy", "import", "decorate", "setup", "first_call"))
                        for r in runs)[len(runs) // 2]
    return med


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--numba-path", help="directory put first on numba-cuda's sys.path (numpy<2.5)")
    args = ap.parse_args(argv)
    print(f"# fresh interpreter per run, median of {RUNS} (ms); first call = compile+link+load+launch+sync; "
          "numpy and driver init + arrays shown apart")
    print("| implementation | numpy | import | decorate | first call | import+decorate+first call "
          "| driver init + arrays | everything |")
    print("|----------------|------:|-------:|---------:|-----------:|---------------------------:"
          "|---------------------:|-----------:|")
    stages = None
    for label, package, prepend in (("cudalite", "cudalite", None), ("numba-cuda", "numba", args.numba_path)):
        try:
            m = measure(package, prepend)
        except Exception as exc:
            print(f"# {label} skipped: {exc}")
            continue
        print(f"| {label:<14} | {m['numpy'] * 1e3:5.0f} | {m['import'] * 1e3:6.0f} | {m['decorate'] * 1e3:8.0f} | "
              f"{m['first_call'] * 1e3:10.0f} | {m['total'] * 1e3:26.0f} | {m['setup'] * 1e3:20.0f} | "
              f"{m['all'] * 1e3:10.0f} |")
        if package == "cudalite":
            stages = {k[6:]: v for k, v in m.items() if k.startswith("stage_")}
    if stages:
        print("# cudalite first call by stage (ms, medians): "
              + ", ".join(f"{k} {v * 1e3:.1f}" for k, v in stages.items()))
    print("# target: cudalite import + decorate + first call < 250 ms")


if __name__ == "__main__":
    main()
