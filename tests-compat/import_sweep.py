"""Import every numba-cuda test module under the alias, without running a test (GPU-less).

    python tests-compat/import_sweep.py --tests DIR [--suite cudapy,doc_examples] [--json out.json] [--uses]

DIR is numba-cuda's ``numba/cuda/tests`` folder (installed, or unpacked from the wheel:
``pip download numba-cuda==0.30.4 --no-deps``).  Each test module is imported as
``numba.cuda.tests.<...>`` through ``compat_alias`` in a worker process (restarted after
the module if one kills it), and the sweep prints one line per module that does not
import: why (``not-applicable[rule]``, ``missing-api``, ``needs-gpu``, ``error``), the
exception, and how many tests the module holds (they are all counted as that one
outcome by ``run_compat.py``).  With ``--uses``, each module that loads is listed with the
numba internals its module or class body used (they were made inert: a registration through
one does nothing, so a test relying on it fails as it fails).  The last line counts modules
and the tests they hold.
Exit status 0 whatever the outcome (it is a report); 2 if DIR is not a test folder.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# exception class names that mean "this import needs a CUDA device or driver"
_GPU_ERRORS = frozenset({"CudaSupportError", "CudaDriverError", "CudaAPIError", "DriverNotFound", "NoDeviceError"})


def _outcome(exc: BaseException, events) -> dict:
    """One module's import failure, classed as the runner would see it."""
    from compat_classify import classify, describe_exception

    rec = describe_exception(exc)
    rec.update(outcome="failed", events=list(events))
    status, klass, detail = classify(rec)
    mro = set(rec["exc_mro"])
    if status == "failed" and (mro & _GPU_ERRORS or rec["exc_module"].startswith("cudalite.driver")):
        klass = "needs-gpu"
    kind = f"not-applicable[{klass}]" if status == "not-applicable" else klass if status == "failed" else status
    return {"kind": kind, "exc": f"{rec['exc_type']}: {rec['message'].splitlines()[0] if rec['message'] else ''}",
            "detail": detail}


def worker(tests_root: str, modules: list[str]) -> int:
    """Import each module in this process; one JSON line per module on stdout."""
    import importlib
    import warnings

    import compat_alias

    compat_alias.install(tests_root)
    warnings.simplefilter("ignore")
    for dotted in modules:
        print(json.dumps({"module": dotted, "start": True}), flush=True)
        compat_alias.EVENTS.clear()
        compat_alias.INERT_USES.clear()
        try:
            importlib.import_module(dotted)
            rec = {"kind": "ok"}
        except BaseException as exc:  # noqa: BLE001 - every failure is the report's subject
            rec = _outcome(exc, compat_alias.EVENTS)
        rec["module"] = dotted
        rec["inert"] = sorted(set(compat_alias.INERT_USES))
        print(json.dumps(rec), flush=True)
    return 0


def _child_env() -> dict:
    from run_compat import REPO

    env = dict(os.environ)
    paths = [HERE]
    import importlib.util

    if importlib.util.find_spec("cudalite") is None or importlib.util.find_spec("cudalite.cuda") is None:
        pkgs = os.path.join(REPO, "packages")
        paths += [os.path.join(pkgs, p, "src") for p in sorted(os.listdir(pkgs))]
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["CUDALITE_COMPAT_TESTS_ROOT"] = ""  # no sitecustomize alias: the worker installs its own
    return env


def sweep(tests_root: str, modules: list[str], timeout: float = 600) -> dict:
    """{dotted module: record} for every module; a worker that dies is restarted after
    the module it was importing (recorded as ``crash``)."""
    results: dict[str, dict] = {}
    pending = list(modules)
    while pending:
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--tests", tests_root, *pending]
        try:
            proc = subprocess.run(cmd, env=_child_env(), capture_output=True, text=True, timeout=timeout)
            out, tail = proc.stdout, proc.stderr[-300:]
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            tail = "timeout"
        running = None
        for line in out.splitlines():
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            if ev.get("start"):
                running = ev["module"]
            else:
                results[ev["module"]] = ev
                running = None
        if running is None:
            for m in pending:  # the worker stopped outside an import: report what is left
                results.setdefault(m, {"module": m, "kind": "crash", "exc": tail.strip(), "detail": ""})
            break
        results[running] = {"module": running, "kind": "crash", "exc": tail.strip()[-200:], "detail": ""}
        pending = pending[pending.index(running) + 1:]
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tests", required=True, help="numba-cuda's numba/cuda/tests folder")
    ap.add_argument("--suite", default="cudapy,doc_examples", help="comma-separated subfolders ('' = all)")
    ap.add_argument("--json", help="write every module's record here")
    ap.add_argument("--uses", action="store_true",
                    help="also list, for each module that loads, the stand-ins its body used (made inert)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("modules", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    tests_root = os.path.abspath(args.tests)
    if args.worker:
        return worker(tests_root, args.modules)
    if not os.path.isdir(os.path.join(tests_root, "cudapy")):
        print(f"import_sweep: {tests_root} is not numba-cuda's tests folder (no cudapy/)", file=sys.stderr)
        return 2
    from run_compat import discover, static_test_ids

    suites = [s for s in args.suite.split(",") if s] or sorted(
        d for d in os.listdir(tests_root) if os.path.isdir(os.path.join(tests_root, d)) and d != "__pycache__")
    mods = discover(tests_root, suites, [])
    t0 = time.monotonic()
    results = sweep(tests_root, [dotted for _rel, dotted in mods])
    counts, tests_by_kind = collections.Counter(), collections.Counter()
    for rel, dotted in mods:
        rec = results[dotted]
        rec["rel"] = rel
        rec["tests"] = len(static_test_ids(os.path.join(tests_root, rel), rel))
        counts[rec["kind"]] += 1
        tests_by_kind[rec["kind"]] += rec["tests"]
        if rec["kind"] != "ok":
            print(f"{rel:<48} {rec['kind']:<32} {rec['tests']:>3} tests  {rec['exc'][:160]}")
        elif args.uses and rec.get("inert"):
            print(f"{rel:<48} {'ok, inert at import:':<32} {rec['tests']:>3} tests  {', '.join(rec['inert'])}")
    print(f"# {len(mods)} modules in {time.monotonic() - t0:.1f}s: "
          + ", ".join(f"{k} {counts[k]} ({tests_by_kind[k]} tests)" for k in sorted(counts)))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump([results[d] for _r, d in mods], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
