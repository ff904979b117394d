"""Import budget: what ``from cudalite import cuda`` costs on top of NumPy, from
``python -X importtime`` in fresh interpreters (median of ``--runs``), against the
budget of issue 26 (60 ms).  It prints and never fails: a budget check for CI, not a
timed test (CI machines differ; the figure to act on is the trend and the top modules).

Each child runs ``import numpy`` first, then ``from cudalite import cuda``; the
figure is the sum of ``-X importtime``'s self times of every module imported by the
second statement (NumPy's own import is excluded, and so is anything NumPy already
brought in).  The slowest modules of the median run are listed with their cumulative
times, so a regression names its cause.

    python benchmarks/import_budget.py [--runs 7] [--budget-ms 60] [--top 12]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

CHILD = "import numpy, sys; sys.stderr.write('--- cudalite\\n'); from cudalite import cuda"


def parse_importtime(stderr: str) -> list:
    """``(module, self_us, cumulative_us, depth)`` of each line after the marker the
    child writes between NumPy's import and cudalite's."""
    rows, seen = [], False
    for line in stderr.splitlines():
        if line.startswith("--- cudalite"):
            seen = True
            continue
        if not seen or not line.startswith("import time:") or "self [us]" in line:
            continue
        fields = line[len("import time:"):].split("|")
        if len(fields) != 3:
            continue
        name = fields[2].rstrip()
        depth = (len(name) - len(name.lstrip(" "))) // 2
        rows.append((name.strip(), int(fields[0]), int(fields[1]), depth))
    return rows


def measure(runs: int) -> list:
    """One parsed ``-X importtime`` record per fresh interpreter."""
    out = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-X", "importtime", "-c", CHILD], capture_output=True, text=True,
                              timeout=120)
        if proc.returncode != 0:
            raise SystemExit(f"the child failed:\n{proc.stderr[-2000:]}")
        out.append(parse_importtime(proc.stderr))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--budget-ms", type=float, default=60.0)
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args(argv)
    records = measure(max(1, args.runs))
    totals = [sum(r[1] for r in rec) / 1e3 for rec in records]
    median = statistics.median(totals)
    rec = records[min(range(len(totals)), key=lambda i: abs(totals[i] - median))]
    verdict = "within" if median <= args.budget_ms else "OVER"
    print(f"# from cudalite import cuda (NumPy excluded): median {median:.1f} ms of {len(totals)} fresh "
          f"interpreters (min {min(totals):.1f}, max {max(totals):.1f}); budget {args.budget_ms:.0f} ms: {verdict}")
    print(f"# {len(rec)} modules; the slowest top-level imports (cumulative ms) of the median run:")
    top = sorted((r for r in rec if r[3] <= 1), key=lambda r: -r[2])[:args.top]
    for name, _self, cumulative, depth in top:
        print(f"{cumulative / 1e3:8.1f}  {'  ' * depth}{name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
