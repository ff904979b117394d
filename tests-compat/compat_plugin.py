"""pytest plugin of the compatibility worker: runs ONE numba-cuda test module under the alias.

Loaded with ``-p compat_plugin`` by ``run_compat.py``.  The collected file is a stub of
ours; its module object is the installed numba-cuda test module imported as
``numba.cuda.tests.<...>`` through the alias (so its relative and ``numba.cuda.tests``
imports resolve to the installed files).  One JSON line per event goes to
``--compat-out`` (flushed at once, so a crash still leaves the tests done so far and the
test that was running): ``start``, ``test`` (classified), ``module-error``.
"""

from __future__ import annotations

import importlib
import json
import os

import pytest

import compat_alias
from compat_classify import classify, describe_exception


def pytest_addoption(parser):
    g = parser.getgroup("compat")
    g.addoption("--compat-tests-root", help="installed numba/cuda/tests folder")
    g.addoption("--compat-module", help="dotted name of the test module, e.g. numba.cuda.tests.cudapy.test_lang")
    g.addoption("--compat-out", help="JSON-lines result file")


class _State:
    def __init__(self, config):
        self.out = open(config.getoption("compat_out"), "a", buffering=1)
        self.module = config.getoption("compat_module")
        self.current = {}

    def write(self, **rec):
        self.out.write(json.dumps(rec) + "\n")
        self.out.flush()
        os.fsync(self.out.fileno())


def pytest_configure(config):
    if not config.getoption("compat_out"):
        return
    compat_alias.install(config.getoption("compat_tests_root"))
    config._compat = _State(config)


def _test_id(state, nodeid):
    rel = state.module.split(".", 3)[3].replace(".", "/") + ".py"  # cudapy/test_x.py
    return rel + nodeid[nodeid.index("::"):] if "::" in nodeid else rel


class AliasModule(pytest.Module):
    """The stub file's module object is the aliased numba-cuda test module."""

    def _getobj(self):
        state = self.config._compat
        compat_alias.EVENTS.clear()
        try:
            module = importlib.import_module(state.module)
        except BaseException as exc:
            rec = describe_exception(exc)
            rec["events"] = list(compat_alias.EVENTS)
            rec["outcome"] = "failed"
            status, klass, detail = classify(rec)
            state.write(kind="module-error", status=status, klass=klass, detail=detail,
                        exc_type=rec["exc_type"], message=rec["message"][:2000])
            raise
        compat_alias.COLLECTING[0] = True  # until pytest_collection_finish
        return module


def pytest_collection_finish(session):
    compat_alias.COLLECTING[0] = False


def pytest_pycollect_makemodule(module_path, parent):
    if getattr(parent.config, "_compat", None) is not None:
        return AliasModule.from_parent(parent, path=module_path)
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    state = getattr(item.config, "_compat", None)
    if state is not None:
        tid = _test_id(state, item.nodeid)
        state.write(kind="start", id=tid)
        state.current = {"id": tid, "outcome": "passed"}
        compat_alias.EVENTS.clear()
    yield
    if state is not None:
        rec = state.current
        rec.setdefault("events", list(compat_alias.EVENTS))
        status, klass, detail = classify(rec)
        state.write(kind="test", id=rec["id"], status=status, klass=klass, detail=detail,
                    outcome=rec["outcome"], message=str(rec.get("message", ""))[:2000])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    res = yield
    state = getattr(item.config, "_compat", None)
    if state is None:
        return
    report = res.get_result()
    cur = state.current
    if cur.get("outcome") != "passed":
        return  # the first phase that did not pass decides
    if report.skipped:
        if hasattr(report, "wasxfail"):
            cur.update(outcome="xfailed", skip_reason=report.wasxfail)
        else:
            longrepr = report.longrepr
            reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
            cur.update(outcome="skipped", skip_reason=reason.removeprefix("Skipped: "))
    elif report.failed:
        if call.excinfo is not None and type(call.excinfo.value).__name__ == "Failed" \
                and str(call.excinfo.value).strip() == "Unexpected success":
            # pytest's unittest support raises Failed("Unexpected success") for a test numba
            # marks expectedFailure (a numba bug) that passes here: the checked behaviour holds
            cur.update(outcome="xpassed")
            return
        if call.excinfo is None:
            cur.update(outcome="failed", exc_type="UnexpectedSuccess", exc_mro=["UnexpectedSuccess"],
                       message="unexpected success")
            if hasattr(report, "wasxfail") or "Unexpected success" in str(report.longrepr):
                cur.update(outcome="xpassed")
            return
        cur.update(describe_exception(call.excinfo.value, call.excinfo.tb))
        cur["outcome"] = "failed"
        cur["events"] = list(compat_alias.EVENTS)
    elif report.passed and hasattr(report, "wasxfail"):
        cur.update(outcome="xpassed")
