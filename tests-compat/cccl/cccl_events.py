"""Fold the cuda.compute harness's event lines into one record per test (pure functions).

``cccl_plugin`` writes JSON lines (one file per pytest process, flushed line by line so a
process that dies leaves what it did):

- ``{"k": "start", "id": nodeid}``                 a test began
- ``{"k": "op", "id": nodeid, "op": name}``        it handed a Python callable to the adapter
- ``{"k": "phase", "id", "when", "outcome", "reason", "xfail"}``  one setup/call/teardown report
- ``{"k": "finish", "id": nodeid}``                the test's protocol ended
- ``{"k": "crash", "id": nodeid, "reason"}``        pytest-xdist's controller: the worker died in it
- ``{"k": "collect-error", "path", "reason"}``     a test module did not import
- ``{"k": "session", ...}``                        one process's facts at its end

:func:`fold` turns them into ``{nodeid: record}``; a record is
``{"id", "outcome", "reason", "uses_op", "ops"}`` with outcome one of :data:`OUTCOMES`.
A test that started and never finished (its process died) is ``failed`` with reason
``worker crashed``.
"""

from __future__ import annotations

import json

PASSED, FAILED, ERROR, SKIPPED, XFAILED, XPASSED = "passed", "failed", "error", "skipped", "xfailed", "xpassed"
OUTCOMES = (PASSED, FAILED, ERROR, SKIPPED, XFAILED, XPASSED)
CRASHED = "worker crashed"
REASON_LIMIT = 200


def short_reason(text, limit: int = REASON_LIMIT) -> str:
    """The first non-empty line of ``text``, whitespace-trimmed, cut to ``limit`` characters."""
    for line in str(text or "").splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= limit else line[: limit - 3] + "..."
    return ""


def exception_reason(exc_type: str, message) -> str:
    """``"Type: first line of the message"`` (just the type when the message is empty)."""
    first = short_reason(message)
    return short_reason(f"{exc_type}: {first}" if first else exc_type)


def text_reason(text) -> str:
    """The reason in a pytest failure text: its last ``E   `` line (the exception pytest
    shows, e.g. a collection error's ``ModuleNotFoundError: No module named 'x'``), else
    its first non-empty line."""
    marked = [line[1:].strip() for line in str(text or "").splitlines() if line.startswith("E ")]
    marked = [line for line in marked if line]
    return short_reason(marked[-1] if marked else text)


def phase_outcome(phases) -> tuple[str, str]:
    """``(outcome, reason)`` of one test from its phase reports, in order.

    Each phase is ``{"when", "outcome": passed|failed|skipped, "reason", "xfail": bool}``
    (``xfail``: pytest's ``wasxfail`` was set).  The first phase that did not pass decides:
    a failed call is ``failed``, a failed setup or teardown ``error``; a skip is ``skipped``
    (``xfailed`` when it carries ``wasxfail``); a passed call with ``wasxfail`` is ``xpassed``.
    No phase at all -> ``("error", "no report")``.
    """
    if not phases:
        return ERROR, "no report"
    result = None
    for ph in phases:
        out, reason = ph.get("outcome"), ph.get("reason", "")
        if out == "failed":
            return (FAILED if ph.get("when") == "call" else ERROR), reason
        if out == "skipped" and result is None:
            return (XFAILED if ph.get("xfail") else SKIPPED), reason
        if out == "passed" and ph.get("when") == "call" and ph.get("xfail"):
            result = (XPASSED, reason)
    return result or (PASSED, "")


def read_events(lines):
    """Parsed events of JSON lines; a torn last line (the writer died mid-write) is dropped."""
    events = []
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if isinstance(ev, dict) and "k" in ev:
            events.append(ev)
    return events


def fold(events, interrupted=False) -> tuple[dict, dict, list]:
    """``(tests, collect_errors, sessions)`` of a run's events (all processes together).

    tests: ``{nodeid: record}`` (see the module docstring); collect_errors:
    ``{module path: reason}``; sessions: the ``session`` events as written.
    ``interrupted``: the run was stopped (its time budget), so a test started and not
    finished, with no crash report, was cut short rather than crashed: it is left out.
    """
    started, finished, crashed = set(), set(), {}
    phases, ops = {}, {}
    collect_errors, sessions = {}, []
    for ev in events:
        kind, tid = ev["k"], ev.get("id")
        if kind == "start":
            started.add(tid)
        elif kind == "finish":
            finished.add(tid)
        elif kind == "phase":
            phases.setdefault(tid, []).append(ev)
        elif kind == "op":
            names = ops.setdefault(tid, [])
            if ev.get("op") not in names:
                names.append(ev.get("op"))
        elif kind == "crash":
            crashed[tid] = ev.get("reason", "")
        elif kind == "collect-error":
            collect_errors.setdefault(ev["path"], ev.get("reason", ""))
        elif kind == "session":
            sessions.append(ev)
    tests = {}
    for tid in sorted(started | set(phases) | set(crashed)):
        if interrupted and tid not in crashed and tid not in finished:
            continue  # stopped by the run's time budget, not by a crash: not run
        ran = phases.get(tid, [])
        outcome, reason = phase_outcome(ran)
        if tid in crashed or (tid in started and tid not in finished):
            earlier = f" (after: {reason})" if ran and outcome in (FAILED, ERROR) and reason else ""
            outcome, reason = FAILED, CRASHED + earlier
        tests[tid] = {"id": tid, "outcome": outcome, "reason": reason,
                      "uses_op": tid in ops, "ops": ops.get(tid, [])}
    return tests, collect_errors, sessions


def counts(tests) -> dict:
    """``{outcome: number}`` over every outcome of :data:`OUTCOMES` (zeros included)."""
    c = dict.fromkeys(OUTCOMES, 0)
    for rec in tests.values():
        c[rec["outcome"]] += 1
    return c
