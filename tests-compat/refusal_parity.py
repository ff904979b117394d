"""Refusal parity without a GPU: does cudalite compile every fuzzer program numba-cuda does?

    python tests-compat/refusal_parity.py --n 2000 --seed 4 --numba-python VENV/bin/python
        [--jobs 2] [--json out.json]

The differential fuzzer (``difffuzz.py``) needs a GPU to compare results; whether each
implementation *compiles* a program does not: numba-cuda's ``compile_ptx`` and
cudalite's run without a device.  This script writes the fuzzer's programs (the same
``generate(seed, index)``), compiles each program's kernel to PTX for ``sm_80`` under
numba-cuda (in ``--numba-python``, an interpreter that has numba-cuda and NumPy < 2.5)
and under cudalite (this interpreter, with cudalite importable), in worker processes,
and reports: both compile, numba-cuda compiles and cudalite refuses (each with
cudalite's message: the target is none), cudalite compiles and numba-cuda refuses,
both refuse.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
SIG = "void(int64[:, ::1], float64[:, ::1], float32[:, ::1], int64[::1], float64[::1])"

WORKER = r'''
import importlib.util, json, sys, warnings
warnings.simplefilter("ignore")
package, folder, ids = sys.argv[1], sys.argv[2], [int(i) for i in sys.argv[3].split(",")]
from {package} import cuda
out = {{}}
for i in ids:
    path = f"{{folder}}/prog_{{package}}_{{i}}.py"
    try:
        spec = importlib.util.spec_from_file_location(f"prog_{{package}}_{{i}}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        cuda.compile_ptx(mod.kern.py_func, {sig!r}, cc=(8, 0))
        out[i] = "ok"
    except Exception as e:  # noqa: BLE001 - the refusal is the result
        out[i] = f"{{type(e).__name__}}: {{str(e).splitlines()[-1] if str(e) else ''}}"[:300]
print(json.dumps(out))
'''


def _load_difffuzz():
    import importlib.util

    spec = importlib.util.spec_from_file_location("difffuzz", os.path.join(HERE, "difffuzz.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _write_programs(folder, seed, n):
    gen = _load_difffuzz().generate
    for i in range(n):
        text = gen(seed, i)
        for package in ("numba", "cudalite"):
            with open(os.path.join(folder, f"prog_{package}_{i}.py"), "w", encoding="utf-8") as f:
                f.write(text.replace("{package}", package))


def _run(python, package, folder, ids, env=None):
    script = WORKER.format(package=package, sig=SIG)
    proc = subprocess.run([python, "-c", script, package, folder, ",".join(map(str, ids))],
                          capture_output=True, text=True, env=env, check=False)
    try:
        return {int(k): v for k, v in json.loads(proc.stdout.strip().splitlines()[-1]).items()}
    except (ValueError, IndexError):
        return {i: f"worker crashed: {proc.stderr.strip().splitlines()[-1:] or proc.returncode}" for i in ids}


def classify(numba_res, cudalite_res):
    """``{index: outcome}`` with outcomes both-ok, numba-only (cudalite refuses),
    cudalite-only (numba refuses) and both-refuse."""
    out = {}
    for i in sorted(numba_res):
        n_ok, c_ok = numba_res[i] == "ok", cudalite_res.get(i) == "ok"
        out[i] = "both-ok" if n_ok and c_ok else "cudalite-refuses" if n_ok else \
            "numba-refuses" if c_ok else "both-refuse"
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--numba-python", required=True, help="an interpreter with numba-cuda and NumPy < 2.5")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write the per-program results here")
    args = ap.parse_args(argv)
    from concurrent.futures import ThreadPoolExecutor

    with tempfile.TemporaryDirectory(prefix="refusal-parity-") as folder:
        _write_programs(folder, args.seed, args.n)
        shards = [list(range(args.n))[k::args.jobs] for k in range(args.jobs)]
        env = dict(os.environ)
        with ThreadPoolExecutor(2 * args.jobs) as pool:
            nb = [pool.submit(_run, args.numba_python, "numba", folder, s) for s in shards]
            cl = [pool.submit(_run, sys.executable, "cudalite", folder, s, env) for s in shards]
            numba_res = {k: v for f in nb for k, v in f.result().items()}
            cudalite_res = {k: v for f in cl for k, v in f.result().items()}
    outcome = classify(numba_res, cudalite_res)
    counts = Counter(outcome.values())
    print(f"# seed {args.seed}, {args.n} programs: " + ", ".join(f"{k} {counts[k]}" for k in
          ("both-ok", "cudalite-refuses", "numba-refuses", "both-refuse")))
    for i, what in outcome.items():
        if what != "both-ok":
            print(f"{what:17} {i:5}  numba: {numba_res[i][:120]!s:50}  cudalite: {cudalite_res.get(i, '')[:160]}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"seed": args.seed, "n": args.n, "numba": numba_res, "cudalite": cudalite_res,
                       "outcome": outcome}, f, indent=1)
    return 1 if counts["cudalite-refuses"] else 0


if __name__ == "__main__":
    sys.exit(main())
