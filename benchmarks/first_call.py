"""First-call latency: in fresh interpreters (median of RUNS), the time to import
``cudalite.cuda`` and to import it *and* make the first call of a saxpy kernel
(compile + link + load + launch + synchronize), against numba-cuda when importable.

Target: import + first call < 250 ms.  ``--numba-path DIR`` puts DIR first on
numba-cuda's sys.path (it needs numpy<2.5).  Nothing is asserted.

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
from {package} import cuda
t1 = time.perf_counter()
import numpy as np

@cuda.jit
def saxpy(out, x, y, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]

n = 1 << 20
x = cuda.to_device(np.ones(n, np.float32))
y = cuda.to_device(np.ones(n, np.float32))
out = cuda.device_array(n, np.float32)
t2 = time.perf_counter()
saxpy[(n + 255) // 256, 256](out, x, y, np.float32(2.0))
cuda.synchronize()
t3 = time.perf_counter()
assert out.copy_to_host()[0] == 3.0
print(json.dumps({{"import": t1 - t0, "setup": t2 - t1, "first_call": t3 - t2}}))
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
    med = {k: sorted(r[k] for r in runs)[len(runs) // 2] for k in runs[0]}
    med["total"] = sorted(r["import"] + r["first_call"] for r in runs)[len(runs) // 2]
    return med


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--numba-path", help="directory put first on numba-cuda's sys.path (numpy<2.5)")
    args = ap.parse_args(argv)
    print(f"# fresh interpreter per run, median of {RUNS}; first call = compile+link+load+launch+sync "
          "(array setup excluded and shown apart)")
    print("| implementation | import ms | first call ms | import + first call ms | array setup ms |")
    print("|----------------|----------:|--------------:|-----------------------:|---------------:|")
    for label, package, prepend in (("cudalite", "cudalite", None), ("numba-cuda", "numba", args.numba_path)):
        try:
            m = measure(package, prepend)
        except Exception as exc:
            print(f"# {label} skipped: {exc}")
            continue
        print(f"| {label:<14} | {m['import'] * 1e3:9.0f} | {m['first_call'] * 1e3:13.0f} | "
              f"{m['total'] * 1e3:22.0f} | {m['setup'] * 1e3:14.0f} |")
    print("# target: cudalite import + first call < 250 ms")


if __name__ == "__main__":
    main()
