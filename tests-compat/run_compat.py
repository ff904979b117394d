"""Run numba-cuda's installed test suite against cudalite through the ``numba`` alias.

    python tests-compat/run_compat.py [--suite cudapy,doc_examples] [--only lang,math]
        [--jobs 4] [--timeout 300] [--json compat.json] [--tests-root DIR] [--numba-path DIR]

Finds the installed ``numba/cuda/tests`` on disk (numba is never imported; ``--numba-path``
and ``--tests-root`` add places to look), runs each test module in its own pytest
subprocess (``compat_plugin``) with the alias installed, and prints one line per module
(passed / failed / not applicable / skipped, with the failure classes) and the headline:
``PASS RATE`` = passed / (all tests - skipped - the justified not-applicable list of
compat_justified.py; a test it covers is not counted at all), then the raw passed / all.
A "not applicable" test that no entry justifies stays in the denominator (listed as
``UNJUSTIFIED N/A``).  A crash or timeout
marks the running test and re-runs the module without it.  Every test id, its status,
class, detail and justification goes to the JSON file.  How classes are decided:
compat_classify.py, docs/compat.md.
"""

from __future__ import annotations

import argparse
import ast
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from compat_alias import find_tests_root  # noqa: E402
from compat_classify import FAILED, NA, PASSED, SKIPPED, XFAILED, classify  # noqa: E402
from compat_justified import honest_counts, justification  # noqa: E402

MAX_RERUNS = 8


def discover(root, suites, only):
    """[(relative path, dotted module)] of the test modules of *suites*."""
    mods = []
    for suite in suites:
        folder = os.path.join(root, suite)
        for dirpath, _dirs, files in os.walk(folder):
            for f in sorted(files):
                if f.startswith("test_") and f.endswith(".py"):
                    rel = os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")
                    if only and not any(o in rel for o in only):
                        continue
                    mods.append((rel, "numba.cuda.tests." + rel[:-3].replace("/", ".")))
    return sorted(mods)


def static_test_ids(path, rel):
    """Test ids read from the source (for modules that cannot be imported): methods
    ``test*`` of classes and top-level ``test*`` functions."""
    try:
        tree = ast.parse(open(path, encoding="utf-8").read())
    except SyntaxError:
        return [rel]
    ids = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            ids += [f"{rel}::{node.name}::{m.name}" for m in node.body
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name.startswith("test")]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            ids.append(f"{rel}::{node.name}")
    return ids or [rel]


def child_env(tests_root):
    env = dict(os.environ)
    paths = [os.path.join(HERE, "_alias_site"), HERE]
    import importlib.util

    if importlib.util.find_spec("cudalite") is None or importlib.util.find_spec("cudalite.cuda") is None:
        pkgs = os.path.join(REPO, "packages")
        paths += [os.path.join(pkgs, p, "src") for p in sorted(os.listdir(pkgs))]
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["CUDALITE_COMPAT_TESTS_ROOT"] = tests_root
    env.setdefault("PYTHONFAULTHANDLER", "1")
    return env


def run_module(tests_root, rel, dotted, timeout):
    """All records of one module: list of dicts with id/status/klass/detail."""
    work = tempfile.mkdtemp(prefix="cudalite-compat-")
    stub = os.path.join(work, "compat_stub.py")
    with open(stub, "w") as f:
        f.write(f"# stand-in for {dotted}: compat_plugin imports the real module through the alias\n")
    ini = os.path.join(work, "pytest.ini")
    with open(ini, "w") as f:
        f.write("[pytest]\naddopts =\npython_files = compat_stub.py\n")
    env = child_env(tests_root)
    records, done, deselect = {}, set(), []
    module_error = None
    for _attempt in range(MAX_RERUNS):
        out = os.path.join(work, f"out{_attempt}.jsonl")
        cmd = [sys.executable, "-m", "pytest", "-p", "compat_plugin", "-p", "no:cacheprovider", "--noconftest",
               "-q", "--assert=plain", "-c", ini, "--rootdir", work, stub, "--compat-tests-root", tests_root,
               "--compat-module", dotted, "--compat-out", out, "-W", "default"]
        for d in deselect:
            cmd += ["--deselect", "compat_stub.py" + d[d.index("::"):]]
        t0 = time.monotonic()
        try:
            proc = subprocess.run(cmd, env=env, cwd=work, capture_output=True, text=True, timeout=timeout)
            rc, tail, timed_out = proc.returncode, (proc.stdout + proc.stderr)[-1500:], False
        except subprocess.TimeoutExpired as e:
            rc, timed_out = None, True
            raw = e.stdout or b""
            tail = (raw.decode(errors="replace") if isinstance(raw, bytes) else raw)[-800:]
        running = None
        if os.path.exists(out):
            for line in open(out):
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                if ev["kind"] == "start":
                    running = ev["id"]
                elif ev["kind"] == "test":
                    records[ev["id"]] = ev
                    done.add(ev["id"])
                    running = None
                elif ev["kind"] == "module-error":
                    module_error = ev
        if module_error is not None:
            break
        if timed_out or (rc not in (0, 1, 5) and running is not None):
            if running is None:  # died outside a test: nothing to skip past
                module_error = {"status": FAILED, "klass": "timeout" if timed_out else "crash",
                                "detail": f"exit {rc} after {time.monotonic() - t0:.0f}s: {tail.strip()[-300:]}"}
                break
            outcome = "timeout" if timed_out else "crash"
            st, kl, de = classify({"outcome": outcome, "message": f"{outcome} (exit {rc}) {tail.strip()[-200:]}"})
            records[running] = {"id": running, "status": st, "klass": kl, "detail": de}
            deselect = sorted(done | {running})
            continue
        if rc not in (0, 1) and not records:
            module_error = {"status": FAILED, "klass": "error", "detail": f"pytest exit {rc}: {tail.strip()[-300:]}"}
        break
    if module_error is not None and not records:
        path = os.path.join(tests_root, rel)
        return [{"id": tid, "status": module_error["status"], "klass": module_error["klass"],
                 "detail": module_error["detail"], "module_level": True} for tid in static_test_ids(path, rel)]
    return [records[k] for k in sorted(records)]


def summarize(results):
    """(totals Counter, per-class Counter of failures, per-rule Counter of n/a)."""
    totals, fails, nas = collections.Counter(), collections.Counter(), collections.Counter()
    for recs in results.values():
        for r in recs:
            totals[r["status"]] += 1
            if r["status"] == FAILED:
                fails[r["klass"]] += 1
            elif r["status"] == NA:
                nas[r["klass"]] += 1
    return totals, fails, nas


def headline(counts, totals):
    """The two top lines: the honest rate and the raw one, with what each count holds."""
    return [
        f"PASS RATE: {counts['rate']:.1f}% ({counts['passed']}/{counts['denominator']} = passed / (all "
        f"{counts['all']} - skipped {counts['skipped']} - justified {counts['justified']}));  "
        f"failed {counts['failed']}, unjustified n/a {counts['unjustified_na']}",
        f"RAW: {counts['raw_rate']:.1f}% ({counts['raw_passed']}/{counts['all']} = passed / all);  "
        f"not applicable {totals[NA]}, skipped {totals[SKIPPED]}, xfailed {totals[XFAILED]}",
    ]


def module_line(rel, recs):
    c = collections.Counter(r["status"] for r in recs)
    classes = collections.Counter(r["klass"] + (f":{r['detail']}" if r["klass"] == "missing-api" else "")
                                  for r in recs if r["status"] == FAILED)
    rules = collections.Counter(r["klass"] for r in recs if r["status"] == NA)
    unjustified = sum(1 for r in recs if r["status"] == NA and r.get("justification") is None)
    extra = ""
    if classes:
        extra += "  FAIL[" + ", ".join(f"{k} x{v}" for k, v in classes.most_common(4)) + "]"
    if rules:
        extra += "  N/A[" + ", ".join(f"{k} x{v}" for k, v in rules.most_common(3)) + "]"
    if unjustified:
        extra += f"  UNJUSTIFIED-N/A x{unjustified}"
    lvl = " (module)" if recs and recs[0].get("module_level") else ""
    return (f"{rel:<44} pass {c[PASSED]:>3}  fail {c[FAILED]:>3}  n/a {c[NA]:>3}  skip {c[SKIPPED] + c[XFAILED]:>3}"
            f"{lvl}{extra}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", default="cudapy,doc_examples")
    ap.add_argument("--only", default="", help="comma-separated substrings of module paths")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--timeout", type=int, default=300, help="seconds per module run")
    ap.add_argument("--json", default="compat-results.json")
    ap.add_argument("--tests-root", help="the installed numba/cuda/tests folder")
    ap.add_argument("--numba-path", help="a directory to search for the numba-cuda install (not put on sys.path)")
    ap.add_argument("--failures", action="store_true", help="also list every failed test with its class")
    args = ap.parse_args(argv)
    search = ([args.numba_path] if args.numba_path else []) + sys.path
    root = find_tests_root(args.tests_root) if args.tests_root else find_tests_root(None, search)
    if root is None:
        print("run_compat: numba-cuda's test suite (numba/cuda/tests/cudapy) was not found; "
              "install numba-cuda or pass --tests-root DIR", file=sys.stderr)
        return 2
    mods = discover(root, [s for s in args.suite.split(",") if s], [o for o in args.only.split(",") if o])
    print(f"# numba-cuda tests: {root} ({len(mods)} modules), {args.jobs} at a time", flush=True)
    results = {}
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futs = {pool.submit(run_module, root, rel, dotted, args.timeout): rel for rel, dotted in mods}
        for fut in concurrent.futures.as_completed(futs):
            results[futs[fut]] = fut.result()
    totals, fails, nas = summarize(results)
    tests = [r for rel in sorted(results) for r in results[rel]]
    for r in tests:
        r["justification"] = justification(r)
    for line in headline(honest_counts(tests), totals):
        print(line)
    print(f"# {time.monotonic() - t0:.0f}s")
    for rel in sorted(results):
        print(module_line(rel, results[rel]))
    print("# failure classes: " + ", ".join(f"{k} {v}" for k, v in fails.most_common()))
    print("# not-applicable rules: " + ", ".join(f"{k} {v}" for k, v in nas.most_common()))
    for r in tests:  # always listed: each one lowers the headline until justified or fixed
        if r["status"] == NA and r["justification"] is None:
            print(f"UNJUSTIFIED N/A {r['id']}  [{r['klass']}] {r['detail']}")
    if args.failures:
        for r in tests:
            if r["status"] == FAILED:
                left_out = "  (justified: not counted)" if r["justification"] else ""
                print(f"FAILED {r['id']}  [{r['klass']}] {r['detail']}{left_out}")
    counts = honest_counts(tests)
    with open(args.json, "w") as f:
        json.dump({"tests_root": root, "pass_rate": counts["rate"], "counts": counts, "totals": dict(totals),
                   "failure_classes": dict(fails), "na_rules": dict(nas),
                   "tests": [{k: r.get(k) for k in ("id", "status", "klass", "detail", "justification")}
                             for r in tests]}, f, indent=1)
    print(f"# every test and its class: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
