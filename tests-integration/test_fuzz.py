"""Fuzzing the public entry points (issue 10: "no internal exception reaches a user").

Hypothesis generates cases from a corpus (tests-integration/fuzzing): mutated
Python sources with their own or mangled signatures and options for the compile
API (``compile``, ``compile_ptx``, ``compile_stages``), command lines for
``cudalite-compile``, and corrupted PTX / cubin / fatbin / LTO-IR / object /
archive bytes for ``cudalite.linker``.  Each batch of cases runs in a child
process that reports each case's outcome; a crash (signal) or a hang is
attributed to the case that was running.  Allowed outcomes: success, or an
exception of a documented type (docs/errors.md).  Anything else -- an internal
exception type, ``InternalCompilerError``, a hang, a signal -- fails the test and
prints the case.

Seed-stable in CI (derandomized: the same cases every run).  Longer or other runs
on demand::

    CUDALITE_FUZZ_EXAMPLES=20000 CUDALITE_FUZZ_SEED=7 pytest tests-integration/test_fuzz.py -s
"""

from __future__ import annotations

import collections
import os

import pytest
from fuzzing.corpus import linkable_seeds
from fuzzing.runner import describe, findings, generate, run_cases
from fuzzing.strategies import cli_cases, compile_cases, linker_cases

EXAMPLES = int(os.environ.get("CUDALITE_FUZZ_EXAMPLES", "0") or 0)  # per test; 0: the CI numbers below
SEED = os.environ.get("CUDALITE_FUZZ_SEED") or None  # None: derandomized
TIMEOUT = float(os.environ.get("CUDALITE_FUZZ_TIMEOUT", "120"))  # seconds per case before it is a hang


def _run(strategy, ci_count):
    cases = generate(strategy, EXAMPLES or ci_count, SEED)
    outcomes = run_cases(cases, timeout=TIMEOUT)
    counts = collections.Counter(o["outcome"] for o in outcomes)
    print(f"\n{len(cases)} cases: {dict(counts)}; exceptions: "
          f"{collections.Counter(o.get('type') for o in outcomes if o['outcome'] == 'raised').most_common(8)}")
    return cases, outcomes, findings(cases, outcomes)


def _report(bad, limit=8) -> str:
    seen, lines = set(), []
    for case, outcome in bad:
        key = (outcome.get("type"), outcome.get("where"))
        if key not in seen:
            seen.add(key)
            lines.append(describe(case, outcome))
    return f"{len(bad)} case(s) broke the error contract ({len(seen)} distinct):\n" + "\n".join(lines[:limit])


def test_fuzz_compile_api():
    cases, outcomes, bad = _run(compile_cases(), 1500)
    assert sum(o["outcome"] == "ok" for o in outcomes) > len(cases) // 10  # the corpus still compiles
    assert not bad, _report(bad)


def test_fuzz_cli():
    cases, outcomes, bad = _run(cli_cases(), 500)
    assert sum(o.get("rc") == 0 for o in outcomes) > len(cases) // 20
    assert not bad, _report(bad)


# Corruptions that input validation cannot reach (the LTO-IR container's encoded
# payload, the compressed cubins inside fatbins, objects and archives) can crash
# nvJitLink; such untrusted inputs are linked in a child process (docs/linker.md),
# so they must come back as a LinkerError like everything else: no exceptions here.
@pytest.fixture(scope="module")
def seeds():
    return linkable_seeds()


def test_fuzz_linker(seeds):
    cases, outcomes, bad = _run(linker_cases(seeds), 1200)
    assert sum(o["outcome"] == "ok" for o in outcomes) > 0
    assert not bad, _report(bad)


def test_runner_attributes_a_crash_and_a_hang_to_their_case(tmp_path):
    """The harness itself: a segfault and a hang in the middle of a batch are each
    pinned on their case, and the cases after them still run."""
    ok = {"kind": "compile", "api": "compile_ptx", "name": "f", "sig": "float32(float32)",
          "options": {"device": True}, "source": "def f(x):\n    return x + 1\n"}
    crash = dict(ok, source="import ctypes\nctypes.string_at(0)\ndef f(x):\n    return x\n")
    hang = dict(ok, source="while True:\n    pass\n")
    outcomes = run_cases([ok, crash, ok, hang, ok], timeout=5)
    assert [o["outcome"] for o in outcomes] == ["ok", "signal", "ok", "hang", "ok"]
    assert outcomes[1]["type"] == "signal 11"
    assert [c for c, _ in findings([ok, crash, ok, hang, ok], outcomes)] == [crash, hang]
