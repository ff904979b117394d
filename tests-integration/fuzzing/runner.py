"""The fuzzer's parent side: run cases in child processes and classify outcomes.

:func:`run_cases` sends a batch to one child (:mod:`.child`); the child reports
``start`` before each case, so when it dies (a signal, an exit) or a case runs
past ``timeout`` seconds, that case is the culprit: it is recorded as a crash or
a hang, the child is killed if needed, and the cases after it go to a fresh child.
:func:`findings` keeps the outcomes that break the contract: an exception that is
not a documented error type (docs/errors.md), a hang, or a signal.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import selectors
import subprocess
import sys
import tempfile
import time

__all__ = ["generate", "run_cases", "findings", "is_allowed", "describe"]

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests-integration

#: documented error families, by where the case goes (MRO entries, module.qualname)
_FAMILIES = {
    "compile": ("cudalite.core.errors.CudaliteError",),
    "cli": (),
    "link": ("cudalite.linker._errors.LinkerError",),
}
#: exceptions that are bugs even though they belong to a documented family
_NEVER = ("cudalite.core.errors.InternalCompilerError",)
#: ValueError / TypeError / NotImplementedError are documented for bad arguments of the
#: public API: allowed when raised by the modules that validate arguments
_ARGUMENT_ERRORS = ("builtins.ValueError", "builtins.TypeError", "builtins.NotImplementedError")
_VALIDATORS = {
    "compile": ("cudalite/nvvm/api.py", "cudalite/nvvm/_options.py", "cudalite/core/target.py",
                "cudalite/core/option_values.py", "cudalite/core/types/"),
    "cli": (),
    "link": ("cudalite/linker/_options.py", "cudalite/linker/_code.py", "cudalite/linker/_linker.py"),
}


def generate(strategy, n: int, seed=None) -> list:
    """``n`` cases drawn from ``strategy`` by Hypothesis: the same cases on every run
    (derandomized) unless a ``seed`` is given."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as with_seed

    out = []

    @settings(max_examples=n, database=None, deadline=None, derandomize=seed is None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(case):
        out.append(case)

    (collect if seed is None else with_seed(int(seed))(collect))()
    return out


def _child_env():
    env = dict(os.environ)
    paths = [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([_HERE] + paths)
    env.pop("CUDALITE_FULL_TRACEBACK", None)
    return env


def _spawn(batch):
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, "-m", "fuzzing.child"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=err, env=_child_env())
    proc.errfile = err
    payload = b"\n".join(base64.b64encode(pickle.dumps(item)) for item in batch) + b"\n"
    try:
        proc.stdin.write(payload)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    return proc


def _read_lines(proc, timeout, startup):
    """Yield protocol messages; None when a case ran past ``timeout`` seconds."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    buf = b""
    deadline = time.monotonic() + startup + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not sel.select(left):
            yield None
            return
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            msg = json.loads(line)
            if "start" in msg:
                deadline = time.monotonic() + timeout
            yield msg


def run_cases(cases, *, timeout=60.0, startup=60.0, batch=250):
    """Run every case, ``batch`` per child process; ``[outcome dict]`` in case order
    (see :mod:`.child`), with ``hang`` and ``signal`` outcomes for the cases that
    hung or killed their child."""
    results = {}
    pending = list(enumerate(cases))
    while pending:
        proc = _spawn(pending[:batch])
        running = None
        for msg in _read_lines(proc, timeout, startup):
            if msg is None:  # the running case hangs
                proc.kill()
                results[running] = {"outcome": "hang", "type": "hang",
                                    "msg": f"no result after {timeout:.0f} s"}
                break
            if "start" in msg:
                running = msg["start"]
            else:
                results[msg["i"]] = msg
                running = None
        rc = proc.wait()
        proc.stdout.close()
        if running is not None and running not in results:  # the child died while running it
            what = f"signal {-rc}" if rc < 0 else f"exit status {rc}"
            proc.errfile.seek(0)
            results[running] = {"outcome": "signal", "type": what,
                                "msg": proc.errfile.read()[-2000:].decode(errors="replace")}
        if not any(i in results for i, _ in pending[:batch]):  # no progress: a broken child
            proc.errfile.seek(0)
            raise RuntimeError(f"fuzz child failed (rc {rc}):\n{proc.errfile.read()[-3000:].decode()}")
        proc.errfile.close()
        pending = [(i, c) for i, c in pending if i not in results]
    return [results[i] for i in range(len(cases))]


def is_allowed(case, outcome) -> bool:
    """Whether an outcome keeps the contract of the entry point the case called."""
    if outcome["outcome"] in ("ok", "invalid"):
        return True
    if outcome["outcome"] != "raised":
        return False  # a hang or a signal
    kind = case["kind"]
    mro = outcome.get("mro", [])
    if outcome["type"] in _NEVER or not outcome.get("msg", "").strip():
        return False
    if any(f in mro for f in _FAMILIES[kind]):
        return True
    if outcome["type"] in _ARGUMENT_ERRORS or (outcome["type"].startswith("cudalite.")
                                               and any(t in mro for t in _ARGUMENT_ERRORS)):
        where = outcome.get("where", "").replace(os.sep, "/")
        return any(v in where for v in _VALIDATORS[kind])
    return False


def describe(case, outcome) -> str:
    shown = {k: v for k, v in case.items() if k != "inputs"}
    if "source" in shown and len(shown["source"]) > 1500:
        shown["source"] = shown["source"][:700] + " ... " + shown["source"][-300:]
    if "inputs" in case:
        shown["inputs"] = [(k, len(d), d[:32]) for k, d in case["inputs"]]
    return (f"{outcome['outcome']}: {outcome.get('type')}: {outcome.get('msg', '')[:800]}\n"
            f"  at {outcome.get('where', '')}\n  frames: {outcome.get('frames', [])}\n  case: {shown!r}")


def findings(cases, outcomes):
    """``[(case, outcome)]`` that break the contract."""
    return [(c, o) for c, o in zip(cases, outcomes) if not is_allowed(c, o)]
