"""Run cuda.compute's own test suite with one operator compiler and record every test.

    python3 tests-compat/cccl/run_cccl.py --tests DIR --compiler {cudalite,native}
        [--jobs 8] [--timeout 300] [--only reduce,scan] --json OUT.json

DIR is NVIDIA/cccl's ``python/cuda_cccl/tests`` (``compute/`` and the ``_utils`` helper
package; it is not shipped in the cuda-cccl wheel, so it is passed in, never copied here).
pytest runs ``DIR/compute`` (with DIR on the path, so ``_utils`` imports) in a subprocess,
through pytest-xdist with ``--jobs`` workers (``--jobs 0``: one process, no xdist), with
cccl_plugin.py making the chosen compiler cuda.compute's compiler of plain Python callable
operators and recording, per test, its outcome, a one-line reason and whether it handed a
Python callable to that compiler.  A test whose worker died is failed, ``worker crashed``
(xdist starts a new worker and goes on; with ``--jobs 0`` the run ends there).

``cudalite`` mode answers ``numba`` imports with cudalite (tests-compat/_alias_site, as
run_compat.py does for numba-cuda's suite) and needs no numba-cuda-mlir; ``native`` mode
needs numba-cuda-mlir importable and leaves ``numba`` alone.  compare_cccl.py compares
the two JSON files.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COMPAT = os.path.dirname(HERE)
REPO = os.path.dirname(COMPAT)
sys.path.insert(0, HERE)

from cccl_events import counts, fold, read_events  # noqa: E402

ALIAS_ENV = "CUDALITE_COMPAT_TESTS_ROOT"  # read by tests-compat/_alias_site/sitecustomize.py


class HarnessError(Exception):
    """A precondition of the run does not hold (the message says which)."""


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tests", required=True, help="cccl's python/cuda_cccl/tests folder (holds compute/, _utils/)")
    ap.add_argument("--compiler", required=True, choices=("cudalite", "native"),
                    help="cudalite: cudalite.cuda.cccl.op; native: cuda.compute's own (numba-cuda-mlir)")
    ap.add_argument("--jobs", type=int, default=8, help="pytest-xdist workers (0: one process, no xdist)")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds per test (pytest-timeout; 0: none)")
    ap.add_argument("--only", default="", help="comma-separated substrings of test file names (test_reduce,scan)")
    ap.add_argument("--json", required=True, help="the report to write")
    ap.add_argument("--budget", type=float, default=0.0,
                    help="seconds for the whole pytest run (0: none); when spent, pytest is stopped and the "
                         "report covers the tests that finished (interrupted: true)")
    ap.add_argument("--from-events", metavar="DIR",
                    help="no run: the report of an earlier (interrupted) run's events folder")
    args = ap.parse_args(argv)
    if args.jobs < 0:
        ap.error(f"--jobs must be 0 or more, not {args.jobs}")
    if args.timeout < 0:
        ap.error(f"--timeout must be 0 or more, not {args.timeout}")
    return args


def check_tests_dir(tests):
    """The absolute ``tests`` folder, or HarnessError naming what is missing."""
    tests = os.path.abspath(tests)
    if not os.path.isdir(os.path.join(tests, "compute")):
        raise HarnessError(f"{tests} has no compute/ folder: pass cccl's python/cuda_cccl/tests")
    if not os.path.isfile(os.path.join(tests, "_utils", "__init__.py")):
        raise HarnessError(f"{tests} has no _utils/ package (the suite's helpers): extract the whole "
                           "python/cuda_cccl/tests folder")
    return tests


def check_modules(compiler, jobs, timeout, find_spec=importlib.util.find_spec):
    """Raise HarnessError for a module the run needs and cannot import."""
    need = [("cuda.compute", "pip install cuda-cccl"), ("pytest", "pip install pytest")]
    if compiler == "native":
        need.append(("numba_cuda_mlir", "native mode needs numba-cuda-mlir (cuda.compute's own compiler) "
                                        "on PYTHONPATH"))
    else:
        need.append(("cudalite.cuda", "put packages/*/src on PYTHONPATH"))
    if jobs:
        need.append(("xdist", "pip install pytest-xdist, or --jobs 0"))
    if timeout:
        need.append(("pytest_timeout", "pip install pytest-timeout, or --timeout 0"))
    for name, hint in need:
        try:
            found = find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise HarnessError(f"{name} is not importable: {hint}")


def child_env(compiler, tests, alias_root, environ):
    """The pytest subprocess's environment: this folder (the plugin), the tests folder
    (``_utils``) and, for cudalite, the alias site first on PYTHONPATH."""
    env = dict(environ)
    paths = [HERE, tests]
    if compiler == "cudalite":
        paths = [os.path.join(COMPAT, "_alias_site"), COMPAT] + paths
        env[ALIAS_ENV] = alias_root
    else:
        env.pop(ALIAS_ENV, None)
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.setdefault("PYTHONFAULTHANDLER", "1")
    return env


def pytest_command(args, tests, work, events):
    """The pytest command line (run from ``work``, where its pytest.ini is)."""
    targets = [os.path.join(tests, "compute")]
    if args.only:
        subs = [s for s in args.only.split(",") if s]
        targets = sorted(p for p in glob.glob(os.path.join(tests, "compute", "test_*.py"))
                         if any(s in os.path.basename(p) for s in subs))
        if not targets:
            raise HarnessError(f"--only {args.only!r} matches no compute/test_*.py file")
    cmd = [sys.executable, "-m", "pytest", "-p", "cccl_plugin", "-p", "no:cacheprovider",
           "-c", os.path.join(work, "pytest.ini"), "--rootdir", tests, "--continue-on-collection-errors",
           "-q", "-W", "default", "--cccl-compiler", args.compiler, "--cccl-events", events]
    if args.jobs:
        cmd += ["-n", str(args.jobs), "--max-worker-restart", "1000"]
    if args.timeout:
        cmd += ["--timeout", f"{args.timeout:g}", "--timeout-method", "signal"]
    return cmd + targets


def load_events(folder):
    lines = []
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        with open(path, encoding="utf-8") as f:
            lines += f.readlines()
    return read_events(lines)


def report(compiler, tests_dir, events, rc, wall, tail, interrupted=False):
    """The JSON report of one run (what compare_cccl.py reads)."""
    tests, collect_errors, sessions = fold(events, interrupted)
    return {"compiler": compiler, "tests_dir": tests_dir, "pytest_rc": rc, "wall_s": round(wall, 1),
            "interrupted": interrupted,
            "python": platform.python_version(), "counts": counts(tests),
            "uses_op": sum(1 for r in tests.values() if r["uses_op"]),
            "collect_errors": collect_errors, "sessions": sessions, "pytest_tail": tail,
            "tests": [tests[k] for k in sorted(tests)]}


def warnings_of(rep):
    """Lines flagging a run that does not measure what it should."""
    out = []
    if rep["compiler"] == "cudalite":
        if any(s.get("numba_cuda_mlir_imported") for s in rep["sessions"]):
            out.append("WARNING: numba-cuda-mlir was imported during the cudalite run")
        if any(s.get("numba_is_alias") is False for s in rep["sessions"]):
            out.append("WARNING: a real numba was imported during the cudalite run (the alias was bypassed)")
    if not rep["sessions"]:
        out.append("WARNING: no pytest process reached its end (see pytest_tail)")
    if not rep["tests"]:
        out.append("WARNING: no test ran")
    return out


def run(args, environ=os.environ):
    if args.from_events:
        rep = report(args.compiler, args.tests, load_events(args.from_events), None, 0.0, "", interrupted=True)
        return _write(args, rep, 0.0, None)
    tests = check_tests_dir(args.tests)
    check_modules(args.compiler, args.jobs, args.timeout)
    work = tempfile.mkdtemp(prefix=f"cccl-{args.compiler}-")
    events = os.path.join(work, "events")
    alias_root = os.path.join(work, "no-numba-cuda", "cuda", "tests")  # no numba-cuda suite: nothing to map
    os.makedirs(alias_root)
    with open(os.path.join(work, "pytest.ini"), "w") as f:
        f.write("[pytest]\naddopts =\n")
    cmd = pytest_command(args, tests, work, events)
    print(f"# {args.compiler}: {' '.join(cmd)}", flush=True)
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=child_env(args.compiler, tests, alias_root, environ), cwd=work,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    interrupted = False
    try:
        out, _ = proc.communicate(timeout=args.budget or None)
    except subprocess.TimeoutExpired:
        interrupted = True
        os.killpg(proc.pid, signal.SIGKILL)  # pytest and its xdist workers
        out, _ = proc.communicate()
    wall = time.monotonic() - t0
    rep = report(args.compiler, tests, load_events(events), proc.returncode, wall, (out or "")[-3000:],
                 interrupted=interrupted)
    return _write(args, rep, wall, proc.returncode)


def _write(args, rep, wall, rc):
    with open(args.json, "w") as f:
        json.dump(rep, f, indent=1)
    c = rep["counts"]
    cut = " -- stopped at its time budget: finished tests only" if rep["interrupted"] else ""
    print(f"# {args.compiler}: {len(rep['tests'])} tests in {wall:.0f}s (pytest exit {rc}){cut}: "
          + ", ".join(f"{k} {v}" for k, v in c.items()) + f"; {rep['uses_op']} hand a Python operator over; "
          f"{len(rep['collect_errors'])} modules did not import")
    for line in warnings_of(rep):
        print(line)
    print(f"# every test: {args.json}")
    return 0


def main(argv=None):
    args = parse_args(argv)
    try:
        return run(args)
    except HarnessError as e:
        print(f"run_cccl: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
