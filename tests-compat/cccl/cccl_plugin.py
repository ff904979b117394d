"""pytest plugin of the cuda.compute harness (loaded by run_cccl.py with ``-p cccl_plugin``).

In every process that runs tests (the lone pytest process, or each pytest-xdist worker)
it makes ``cuda.compute.op._jit_adapter`` -- the compiler cuda.compute hands every plain
Python callable operator to (``make_op_adapter``) -- a :class:`Recorder` around

- ``--cccl-compiler cudalite``: ``cudalite.cuda.cccl.op``;
- ``--cccl-compiler native``: cuda.compute's own factory result
  (``cuda.compute.op._jit_op_adapter_factory()``, numba-cuda-mlir).

This is a test harness's substitution: shipped code never sets that global.  The recorder
notes, per test, every callable handed over; the plugin writes the events cccl_events.py
folds (start, op, phase reports with a one-line reason, finish, collection errors) to
``--cccl-events DIR/<worker>-<pid>.jsonl``, flushing each line, so a worker that dies
still leaves the test it died in.  The xdist controller writes only the crash reports it
makes for a dead worker's test.

In cudalite mode ``numba`` / ``numba.cuda`` imports (a few of the suite's operators call
``numba.cuda.atomic.add``) are answered by tests-compat/compat_alias.py, installed by
tests-compat/_alias_site/sitecustomize.py in every process (run_cccl.py sets it up); the
plugin checks it is there.  In native mode they are left alone.
"""

from __future__ import annotations

import json
import os
import sys
import threading

import pytest

from cccl_events import exception_reason, short_reason, text_reason

COMPILERS = ("cudalite", "native")


def pytest_addoption(parser):
    g = parser.getgroup("cccl")
    g.addoption("--cccl-compiler", choices=COMPILERS, help="the operator compiler cuda.compute is given")
    g.addoption("--cccl-events", help="folder for the JSON-lines event files")


class Recorder:
    """``cuda.compute.op._jit_adapter`` of the harness: notes each callable, then calls ``inner``."""

    def __init__(self, inner, log):
        self.inner = inner
        self.log = log

    def __call__(self, op):
        self.log.note_op(op)
        return self.inner(op)


class _Log:
    """One process's event file and the test running in it."""

    def __init__(self, folder, role):
        os.makedirs(folder, exist_ok=True)
        self.out = open(os.path.join(folder, f"{role}-{os.getpid()}.jsonl"), "a", buffering=1)
        self.current = None
        self.noted = set()
        self.lock = threading.Lock()  # operators may be handed over from a test's threads

    def write(self, **event):
        line = json.dumps(event) + "\n"
        with self.lock:
            self.out.write(line)
            self.out.flush()

    def note_op(self, op):
        tid = self.current if self.current is not None else "<outside a test>"
        name = getattr(op, "__qualname__", None) or type(op).__name__
        if (tid, name) not in self.noted:
            self.noted.add((tid, name))
            self.write(k="op", id=tid, op=name)


def _is_controller(config) -> bool:
    return not hasattr(config, "workerinput") and bool(getattr(config.option, "numprocesses", None))


def _inner_adapter(compiler):
    if compiler == "cudalite":
        import compat_alias

        if not any(isinstance(f, compat_alias.AliasFinder) for f in sys.meta_path):
            raise pytest.UsageError("cccl_plugin: the numba -> cudalite alias is not installed "
                                    "(run through tests-compat/cccl/run_cccl.py)")
        from cudalite.cuda import cccl

        return cccl.op
    from cuda.compute.op import _jit_op_adapter_factory

    return _jit_op_adapter_factory()


def pytest_configure(config):
    compiler, folder = config.getoption("cccl_compiler"), config.getoption("cccl_events")
    if not compiler or not folder:
        return
    if _is_controller(config):
        config.pluginmanager.register(_Controller(_Log(folder, "controller")), "cccl-controller")
        return
    import cuda.compute.op as op_module

    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    log = _Log(folder, worker)
    state = _Worker(log, op_module, Recorder(_inner_adapter(compiler), log), compiler)
    state.install()
    config.pluginmanager.register(state, "cccl-worker")


class _Controller:
    """The xdist controller's hooks: only the reports it makes for a test whose worker died."""

    def __init__(self, log):
        self.log = log

    def pytest_runtest_logreport(self, report):
        if report.failed and report.when not in ("setup", "call", "teardown"):  # xdist's crash report
            self.log.write(k="crash", id=report.nodeid, reason=short_reason(report.longrepr))


class _Worker:
    """The hooks of a process that runs tests: the recorder in place, every event written."""

    def __init__(self, log, op_module, recorder, compiler):
        self.log, self.op_module, self.recorder, self.compiler = log, op_module, recorder, compiler
        self.reinstalled = 0

    def install(self):
        self.op_module._jit_adapter = self.recorder

    def pytest_runtest_logstart(self, nodeid, location):
        if self.op_module._jit_adapter is not self.recorder:  # a test reset it: put it back
            self.reinstalled += 1
            self.install()
        self.log.current = nodeid
        self.log.write(k="start", id=nodeid)

    def pytest_runtest_logfinish(self, nodeid, location):
        self.log.write(k="finish", id=nodeid)
        self.log.current = None

    def pytest_runtest_logreport(self, report):
        self.log.write(k="phase", id=report.nodeid, when=report.when, outcome=report.outcome,
                       xfail=hasattr(report, "wasxfail"), reason=_reason(report))

    def pytest_collectreport(self, report):
        if report.failed:
            self.log.write(k="collect-error", path=report.nodeid, reason=_reason(report))

    def pytest_sessionfinish(self, session):
        self.log.write(k="session", pid=os.getpid(), compiler=self.compiler,
                       numba_cuda_mlir_imported="numba_cuda_mlir" in sys.modules,
                       numba_is_alias=_numba_is_alias(), adapter_reinstalled=self.reinstalled)


def _numba_is_alias():
    """None when ``numba`` was never imported, else whether the imported one is the alias's."""
    numba = sys.modules.get("numba")
    if numba is None:
        return None
    return type(numba).__module__ == "compat_alias"


def _reason(report) -> str:
    """One line: the exception type and first message line, the skip reason, or the xfail reason."""
    if report.passed:
        return short_reason(getattr(report, "wasxfail", ""))
    longrepr = report.longrepr
    if report.skipped:
        if hasattr(report, "wasxfail"):
            return short_reason(report.wasxfail) or "xfail"
        text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        return short_reason(str(text).removeprefix("Skipped: "))
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and crash.message:
        exc_type, _, message = crash.message.partition(": ")
        return exception_reason(exc_type, message) if message else short_reason(crash.message)
    return text_reason(str(longrepr))
