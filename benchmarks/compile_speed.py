"""Compile-speed benchmark: cudalite.nvvm against numba-cuda (where installed).

Prints, for each compiler available in this interpreter:

* import   -- ``import cudalite.nvvm`` (``import numba.cuda``) in a fresh
              process, timed inside it (median of 5);
* warm     -- ``compile_ptx`` of ``add`` for int32, after one warm-up compile
              (median of 20);
* cold     -- a fresh process doing import + the first ``compile_ptx``, timed
              inside it, and the whole process wall time (median of 5).

Targets for cudalite: import < 150 ms, warm < 10 ms, cold < 300 ms.  Figures are
printed, never asserted.  Run: ``python benchmarks/compile_speed.py``.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

REPEAT_PROCESS = 5
REPEAT_WARM = 20
SIG = "int32(int32, int32)"
CC = (7, 5)  # explicit, so no compiler asks a (missing) driver for the current device

UDF = textwrap.dedent(
    """
    def add(x, y):
        return x + y
    """
)

# name -> (import statement, compile_ptx expression over `mod.add`)
COMPILERS = {
    "cudalite": ("import cudalite.nvvm as _c", "_c.compile_ptx(mod.add, SIG, device=True, cc=CC)"),
    "numba-cuda": ("import numba.cuda as _c", "_c.compile_ptx(mod.add, SIG, device=True, cc=CC)"),
}
PROBE = {"cudalite": "cudalite.nvvm", "numba-cuda": "numba.cuda"}

CHILD = """
import sys, time
SIG = {sig!r}
CC = {cc!r}
sys.path.insert(0, {folder!r})
t0 = time.perf_counter()
{import_stmt}
t1 = time.perf_counter()
if {do_compile}:
    import udf_add as mod
    {compile_expr}
t2 = time.perf_counter()
print(t1 - t0, t2 - t0)
"""


def _available(name: str) -> bool:
    try:
        return importlib.util.find_spec(PROBE[name]) is not None
    except ImportError:
        return False


def _child(name: str, folder: str, do_compile: bool) -> tuple[float, float, float]:
    """(import s, import+compile s, process wall s) measured in a fresh interpreter."""
    import_stmt, compile_expr = COMPILERS[name]
    code = CHILD.format(sig=SIG, cc=CC, folder=folder, import_stmt=import_stmt, compile_expr=compile_expr,
                        do_compile=do_compile)
    start = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - start
    if r.returncode != 0:
        raise RuntimeError(f"{name} child failed:\n{r.stderr[-2000:]}")
    imp, total = map(float, r.stdout.split())
    return imp, total, wall


def _warm(name: str, folder: str) -> float:
    import_stmt, compile_expr = COMPILERS[name]
    sys.path.insert(0, folder)
    try:
        env = {"SIG": SIG, "CC": CC}
        exec(import_stmt + "\nimport udf_add as mod", env)
        fn = eval("lambda: " + compile_expr, env)
        fn()  # warm-up: loads libNVVM/libdevice, fills any lazy tables
        times = []
        for _ in range(REPEAT_WARM):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return statistics.median(times)
    finally:
        sys.path.remove(folder)


def measure(name: str, folder: str) -> dict:
    imports = [_child(name, folder, False)[0] for _ in range(REPEAT_PROCESS)]
    colds = [_child(name, folder, True) for _ in range(REPEAT_PROCESS)]
    return {
        "import": statistics.median(imports),
        "warm compile_ptx": _warm(name, folder),
        "cold import+compile": statistics.median(c[1] for c in colds),
        "cold process wall": statistics.median(c[2] for c in colds),
    }


TARGETS = {"import": 0.150, "warm compile_ptx": 0.010, "cold import+compile": 0.300}


def report(results: dict) -> str:
    names = list(results)
    rows = list(next(iter(results.values())))
    head = f"{'metric (median)':<22}" + "".join(f"{n:>14}" for n in names)
    if len(names) > 1:
        head += f"{'ratio':>10}"
    head += f"{'target':>10}"
    lines = [head, "-" * len(head)]
    for row in rows:
        vals = [results[n][row] for n in names]
        line = f"{row:<22}" + "".join(f"{v * 1e3:>11.2f} ms" for v in vals)
        if len(names) > 1:
            line += f"{vals[1] / vals[0]:>9.1f}x"
        target = TARGETS.get(row)
        line += f"{'< %d ms' % round(target * 1e3) if target else '':>10}"
        lines.append(line)
    if len(names) > 1:
        lines.append(f"(ratio = {names[1]} / {names[0]}: above 1 means {names[0]} is faster)")
    return "\n".join(lines)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "udf_add.py"), "w") as f:
            f.write(UDF)
        results = {}
        for name in COMPILERS:
            if not _available(name):
                print(f"{name}: not installed, skipped")
                continue
            try:
                results[name] = measure(name, folder)
            except Exception as e:  # a peer that cannot compile here (no NVVM, ...) is reported, not fatal
                lines = [ln for ln in str(e).splitlines() if "Error" in ln] or [str(e)]
                print(f"{name}: failed: {lines[-1].strip()}")
        print(f"python {sys.version.split()[0]}, compile_ptx(add, {SIG!r}, device=True, cc={CC})")
        if results:
            print(report(results))


if __name__ == "__main__":
    main()
