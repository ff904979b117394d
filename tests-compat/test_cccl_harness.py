"""GPU-less checks of the cuda.compute harness (tests-compat/cccl): the event folding, the
classification and headline arithmetic of compare_cccl.py, the markdown rows, and an
end-to-end run of run_cccl.py (both modes, with and without xdist, a worker crash, a
module that does not import) over a fake suite and a fake ``cuda.compute``."""

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "cccl"))

import cccl_events as ev  # noqa: E402
import compare_cccl as cmp  # noqa: E402
import run_cccl  # noqa: E402


# ---------------------------------------------------------------- reasons and outcomes

def test_short_reason_first_nonempty_line_trimmed():
    assert ev.short_reason("\n\n  ValueError:   bad  value \nmore") == "ValueError: bad value"
    long = "x" * 300
    assert ev.short_reason(long) == "x" * 197 + "..."
    assert ev.short_reason(None) == ""


def test_exception_reason_and_text_reason():
    assert ev.exception_reason("TypeError", "cannot type a + b\nsecond line") == "TypeError: cannot type a + b"
    assert ev.exception_reason("AssertionError", "") == "AssertionError"
    text = ("ImportError while importing test module '/t/compute/test_x.py'.\nTraceback:\n"
            "E   ImportError: first\nE   ModuleNotFoundError: No module named 'numba_cuda_mlir'\n")
    assert ev.text_reason(text) == "ModuleNotFoundError: No module named 'numba_cuda_mlir'"
    assert ev.text_reason("worker 'gw0' crashed while running 'x'") == "worker 'gw0' crashed while running 'x'"


def _ph(when, outcome, reason="", xfail=False):
    return {"k": "phase", "when": when, "outcome": outcome, "reason": reason, "xfail": xfail}


@pytest.mark.parametrize("phases, expected", [
    ([_ph("setup", "passed"), _ph("call", "passed"), _ph("teardown", "passed")], ("passed", "")),
    ([_ph("setup", "passed"), _ph("call", "failed", "AssertionError: x"), _ph("teardown", "passed")],
     ("failed", "AssertionError: x")),
    ([_ph("setup", "failed", "RuntimeError: no device")], ("error", "RuntimeError: no device")),
    ([_ph("setup", "passed"), _ph("call", "passed"), _ph("teardown", "failed", "OSError: y")], ("error", "OSError: y")),
    ([_ph("setup", "skipped", "needs 2 GPUs"), _ph("teardown", "passed")], ("skipped", "needs 2 GPUs")),
    ([_ph("setup", "passed"), _ph("call", "skipped", "known bug", True)], ("xfailed", "known bug")),
    ([_ph("setup", "passed"), _ph("call", "passed", "known bug", True), _ph("teardown", "passed")],
     ("xpassed", "known bug")),
    ([], ("error", "no report")),
])
def test_phase_outcome(phases, expected):
    assert ev.phase_outcome(phases) == expected


def test_read_events_drops_torn_and_foreign_lines():
    lines = ['{"k": "start", "id": "a"}\n', "\n", '{"k": "finish", "id": "a"}\n', '[1, 2]\n', '{"k": "sta']
    assert ev.read_events(lines) == [{"k": "start", "id": "a"}, {"k": "finish", "id": "a"}]


def _run_events(tid, *phases, op=None, finish=True):
    out = [{"k": "start", "id": tid}]
    if op:
        out.append({"k": "op", "id": tid, "op": op})
    out += [dict(p, id=tid) for p in phases]
    if finish:
        out.append({"k": "finish", "id": tid})
    return out


def test_fold_records_ops_outcomes_and_crashes():
    events = (_run_events("m.py::ok", _ph("setup", "passed"), _ph("call", "passed"), _ph("teardown", "passed"),
                          op="add")
              + [{"k": "op", "id": "m.py::ok", "op": "add"}, {"k": "op", "id": "m.py::ok", "op": "mul"}]
              + _run_events("m.py::died", _ph("setup", "passed"), op="pred", finish=False)
              + [{"k": "crash", "id": "m.py::died", "reason": "worker 'gw1' crashed while running 'm.py::died'"}]
              + _run_events("m.py::died_after_fail", _ph("setup", "passed"),
                            _ph("call", "failed", "ValueError: v"), finish=False)
              + _run_events("m.py::plain", _ph("setup", "passed"), _ph("call", "failed", "AssertionError")))
    events += [{"k": "collect-error", "path": "compute/test_bad.py", "reason": "ModuleNotFoundError: x"},
               {"k": "collect-error", "path": "compute/test_bad.py", "reason": "again"},
               {"k": "session", "pid": 1, "numba_cuda_mlir_imported": False}]
    tests, errors, sessions = ev.fold(events)
    assert tests["m.py::ok"] == {"id": "m.py::ok", "outcome": "passed", "reason": "", "uses_op": True,
                                 "ops": ["add", "mul"]}
    assert tests["m.py::died"]["outcome"] == "failed" and tests["m.py::died"]["reason"] == "worker crashed"
    assert tests["m.py::died"]["uses_op"] is True
    assert tests["m.py::died_after_fail"]["reason"] == "worker crashed (after: ValueError: v)"
    assert tests["m.py::plain"] == {"id": "m.py::plain", "outcome": "failed", "reason": "AssertionError",
                                    "uses_op": False, "ops": []}
    assert errors == {"compute/test_bad.py": "ModuleNotFoundError: x"}
    assert sessions == [{"k": "session", "pid": 1, "numba_cuda_mlir_imported": False}]
    assert ev.counts(tests) == {"passed": 1, "failed": 3, "error": 0, "skipped": 0, "xfailed": 0, "xpassed": 0}


def test_fold_crash_reported_only_by_the_controller():
    tests, _, _ = ev.fold([{"k": "crash", "id": "m.py::t", "reason": "worker 'gw0' crashed"}])
    assert tests["m.py::t"]["outcome"] == "failed" and tests["m.py::t"]["reason"] == "worker crashed"


# ---------------------------------------------------------------- classification and headline

def _rec(tid, outcome, reason="", uses_op=True):
    return {"id": tid, "outcome": outcome, "reason": reason, "uses_op": uses_op, "ops": []}


def _report(compiler, recs, collect_errors=None):
    return {"compiler": compiler, "tests": recs, "collect_errors": collect_errors or {}, "wall_s": 12.5,
            "pytest_rc": 1, "python": "3.12.3"}


@pytest.mark.parametrize("native, cudalite, expected", [
    (_rec("t", "passed"), _rec("t", "passed"), ("pass", "")),
    (_rec("t", "xpassed"), _rec("t", "passed"), ("pass", "")),
    (_rec("t", "passed"), _rec("t", "failed", "TypingError: no a+b"), ("FAIL", "failed: TypingError: no a+b")),
    (_rec("t", "passed"), _rec("t", "xfailed", "why"), ("FAIL", "xfailed: why")),
    (_rec("t", "failed", "ModuleNotFoundError: numba"), _rec("t", "passed"),
     ("na-native-fails", "fails with cuda.compute's own compiler (ModuleNotFoundError: numba)")),
    (_rec("t", "error", "E"), _rec("t", "failed", "F"),
     ("na-native-fails", "fails with cuda.compute's own compiler (E)")),
    (_rec("t", "skipped", "needs sm_100"), _rec("t", "skipped", "needs sm_100"), ("na-skipped", "needs sm_100")),
    (_rec("t", "xfailed", "bug 12"), _rec("t", "passed"), ("na-skipped", "bug 12")),
    (_rec("t", "not run", "not run"), _rec("t", "passed"), ("na-not-run", "not run")),
    # uses_op from either run counts: the native run may die before handing the operator over
    (_rec("t", "failed", "ImportError: numba", uses_op=False), _rec("t", "passed"),
     ("na-native-fails", "fails with cuda.compute's own compiler (ImportError: numba)")),
    (_rec("t", "passed", uses_op=False), _rec("t", "passed", uses_op=False), ("no-python-op", "")),
    (_rec("t", "passed", uses_op=False), _rec("t", "failed", "KeyError: 'x'", uses_op=False),
     ("no-python-op", "KeyError: 'x'")),
    (_rec("t", "failed", "OSError: o", uses_op=False), _rec("t", "failed", "X", uses_op=False),
     ("no-python-op", "OSError: o")),
])
def test_classify(native, cudalite, expected):
    assert cmp.classify(native, cudalite) == expected


def _pair():
    native = _report("native", [
        _rec("compute/test_a.py::t1", "passed"), _rec("compute/test_a.py::t2", "passed"),
        _rec("compute/test_a.py::t3", "passed"), _rec("compute/test_a.py::t4", "failed", "ImportError: numba"),
        _rec("compute/test_a.py::t5", "skipped", "large"), _rec("compute/test_b.py::u1", "passed"),
        _rec("compute/test_c.py::n1", "passed", uses_op=False), _rec("compute/test_c.py::n2", "passed", uses_op=False),
        _rec("compute/test_c.py::n3", "failed", "RuntimeError: r", uses_op=False),
    ])
    cudalite = _report("cudalite", [
        _rec("compute/test_a.py::t1", "passed"), _rec("compute/test_a.py::t2", "passed"),
        _rec("compute/test_a.py::t3", "failed", "worker crashed"), _rec("compute/test_a.py::t4", "passed"),
        _rec("compute/test_a.py::t5", "skipped", "large"),
        _rec("compute/test_c.py::n1", "passed", uses_op=False),
        _rec("compute/test_c.py::n2", "failed", "ValueError: v", uses_op=False),
        _rec("compute/test_c.py::n3", "failed", "RuntimeError: r", uses_op=False),
    ], collect_errors={"compute/test_b.py": "ModuleNotFoundError: No module named 'numba_cuda_mlir'"})
    return native, cudalite


def test_compare_headline_arithmetic():
    rows, fig = cmp.compare(*_pair())
    assert fig["headline"] == {"passed": 2, "denominator": 4, "rate": 50.0}
    assert fig["classes"] == {"pass": 2, "FAIL": 2, "na-native-fails": 1, "na-skipped": 1, "na-not-run": 0,
                              "no-python-op": 3}
    assert fig["no_python_op"] == {"tests": 3, "native_passed": 2, "cudalite_passed": 1,
                                   "native_rate": 66.7, "cudalite_rate": 33.3}
    assert fig["raw"]["tests"] == 9 and fig["raw"]["uses_op"] == 6
    assert fig["raw"]["native"] == {"passed": 6, "failed": 2, "skipped": 1}
    assert fig["raw"]["cudalite"] == {"passed": 4, "failed": 3, "skipped": 1, "error": 1}
    by_id = {r["id"]: r for r in rows}
    # a test missing from the cudalite run takes its module's collection error
    assert by_id["compute/test_b.py::u1"] == {
        "id": "compute/test_b.py::u1", "native": "passed", "cudalite": "error", "uses_op": True, "class": "FAIL",
        "reason": "error: collection error: ModuleNotFoundError: No module named 'numba_cuda_mlir'"}


def test_compare_test_missing_without_collection_error_is_not_run():
    native = _report("native", [_rec("compute/test_a.py::t1", "passed")])
    cudalite = _report("cudalite", [])
    rows, fig = cmp.compare(native, cudalite)
    assert rows == [{"id": "compute/test_a.py::t1", "native": "passed", "cudalite": "not run", "uses_op": True,
                     "class": "FAIL", "reason": "not run: not run"}]
    assert fig["headline"] == {"passed": 0, "denominator": 1, "rate": 0.0}


def test_compare_empty_denominator():
    rows, fig = cmp.compare(_report("native", []), _report("cudalite", []))
    assert rows == [] and fig["headline"] == {"passed": 0, "denominator": 0, "rate": None}
    assert "**n/a**" in cmp.headline_line(fig) and "**0/0**" in cmp.headline_line(fig)


def test_markdown_headline_lists_and_rows():
    rows, fig = cmp.compare(*_pair())
    text = cmp.markdown(rows, fig)
    assert cmp.headline_line(fig) == (
        "**50.0%** of the tests that use a Python operator and pass with cuda.compute's own compiler pass with "
        "cudalite: **2/4**.  Tests with no Python operator (cuda.compute alone): 3, passing 2 (66.7%) natively "
        "and 1 (33.3%) in the cudalite run.")
    assert "## Fails with cudalite (in the denominator) (2)\n\n- `compute/test_a.py::t3`: failed: worker crashed\n" \
           "- `compute/test_b.py::u1`: error: collection error: ModuleNotFoundError: No module named " \
           "'numba_cuda_mlir'\n" in text
    assert "- `compute/test_a.py::t4`: fails with cuda.compute's own compiler (ImportError: numba)" in text
    assert "- `compute/test_a.py::t5`: large" in text
    assert "## No Python operator, passing natively but not in the cudalite run (1)\n\n" \
           "- `compute/test_c.py::n2`: ValueError: v\n" in text
    assert "| `compute/test_a.py::t1` | passed | passed | yes | pass |  |" in text.splitlines()
    assert "- cudalite: `compute/test_b.py`: ModuleNotFoundError: No module named 'numba_cuda_mlir'\n" in text
    assert fig["collect_errors"] == {"native": {}, "cudalite": {
        "compute/test_b.py": "ModuleNotFoundError: No module named 'numba_cuda_mlir'"}}
    assert "| outcome | native | cudalite |" in text and "| error | 0 | 1 |" in text.splitlines()


def test_row_line_escapes_pipes():
    row = {"id": "m.py::t[a|b]", "native": "passed", "cudalite": "failed", "uses_op": False, "class": "no-python-op",
           "reason": "ValueError: x | y\nz"}
    assert cmp.row_line(row) == "| `m.py::t[a\\|b]` | passed | failed | no | no-python-op | ValueError: x \\| y z |"


def test_compare_main_refuses_swapped_reports(tmp_path, capsys):
    native, cudalite = _pair()
    a, b = tmp_path / "n.json", tmp_path / "c.json"
    a.write_text(json.dumps(native))
    b.write_text(json.dumps(cudalite))
    with pytest.raises(SystemExit, match="is the 'cudalite' run; expected the 'native' run"):
        cmp.main([str(b), str(a)])
    with pytest.raises(SystemExit, match="cannot read"):
        cmp.main([str(tmp_path / "none.json"), str(b)])
    md, figs = tmp_path / "r.md", tmp_path / "f.json"
    assert cmp.main([str(a), str(b), "--md", str(md), "--json", str(figs)]) == 0
    assert capsys.readouterr().out.startswith("**50.0%**")
    assert md.read_text().startswith("# cuda.compute's test suite")
    saved = json.loads(figs.read_text())
    assert saved["headline"]["denominator"] == 4 and len(saved["tests"]) == 9


# ---------------------------------------------------------------- the runner's checks

def test_parse_args_rejects_bad_values(capsys):
    with pytest.raises(SystemExit):
        run_cccl.parse_args(["--tests", "d", "--compiler", "numba", "--json", "o"])
    with pytest.raises(SystemExit):
        run_cccl.parse_args(["--tests", "d", "--compiler", "native", "--json", "o", "--jobs", "-1"])
    assert "--jobs must be 0 or more, not -1" in capsys.readouterr().err
    a = run_cccl.parse_args(["--tests", "d", "--compiler", "native", "--json", "o"])
    assert (a.jobs, a.timeout, a.only) == (8, 300.0, "")


def test_check_tests_dir(tmp_path):
    with pytest.raises(run_cccl.HarnessError, match="has no compute/ folder"):
        run_cccl.check_tests_dir(str(tmp_path))
    (tmp_path / "compute").mkdir()
    with pytest.raises(run_cccl.HarnessError, match="has no _utils/ package"):
        run_cccl.check_tests_dir(str(tmp_path))
    (tmp_path / "_utils").mkdir()
    (tmp_path / "_utils" / "__init__.py").write_text("")
    assert run_cccl.check_tests_dir(str(tmp_path)) == str(tmp_path)


def test_check_modules_names_the_missing_one():
    have = {"cuda.compute", "pytest", "cudalite.cuda", "xdist", "pytest_timeout"}
    find = lambda name: object() if name in have else None
    run_cccl.check_modules("cudalite", 8, 300, find)
    with pytest.raises(run_cccl.HarnessError, match="numba_cuda_mlir is not importable: native mode needs"):
        run_cccl.check_modules("native", 8, 300, find)
    have.discard("xdist")
    run_cccl.check_modules("cudalite", 0, 300, find)
    with pytest.raises(run_cccl.HarnessError, match="xdist is not importable: pip install pytest-xdist, or --jobs 0"):
        run_cccl.check_modules("cudalite", 2, 300, find)


def test_child_env_alias_only_for_cudalite():
    base = {"PYTHONPATH": "/x:/y", run_cccl.ALIAS_ENV: "/stale"}
    env = run_cccl.child_env("cudalite", "/tests", "/alias/cuda/tests", base)
    paths = env["PYTHONPATH"].split(os.pathsep)
    assert paths[0].endswith(os.path.join("tests-compat", "_alias_site")) and paths[-3:] == ["/tests", "/x", "/y"]
    assert env[run_cccl.ALIAS_ENV] == "/alias/cuda/tests"
    env = run_cccl.child_env("native", "/tests", "/alias/cuda/tests", base)
    assert run_cccl.ALIAS_ENV not in env
    assert not any("_alias_site" in p for p in env["PYTHONPATH"].split(os.pathsep))


def test_warnings_of():
    rep = {"compiler": "cudalite", "tests": [1], "sessions": [{"numba_cuda_mlir_imported": True,
                                                               "numba_is_alias": False}]}
    assert run_cccl.warnings_of(rep) == [
        "WARNING: numba-cuda-mlir was imported during the cudalite run",
        "WARNING: a real numba was imported during the cudalite run (the alias was bypassed)"]
    assert run_cccl.warnings_of({"compiler": "native", "tests": [], "sessions": []}) == [
        "WARNING: no pytest process reached its end (see pytest_tail)", "WARNING: no test ran"]


# ---------------------------------------------------------------- end to end, on fakes

FAKE_OP = '''
"""A stand-in for cuda.compute.op: just the operator-adapter plumbing the harness touches."""
class OpAdapter:
    pass

class _NativeOp(OpAdapter):
    def __init__(self, func):
        self.func = func

def _jit_op_adapter_factory():
    import numba_cuda_mlir  # noqa: F401  (the real factory imports its backend)
    return _NativeOp

_jit_adapter = None

def make_op_adapter(op):
    global _jit_adapter
    if isinstance(op, OpAdapter):
        return op
    if _jit_adapter is None:
        _jit_adapter = _jit_op_adapter_factory()
    return _jit_adapter(op)
'''

FAKE_TESTS = '''
import os
import pytest
from cuda.compute.op import make_op_adapter, OpAdapter
from _utils.helpers import double


def add(a, b):
    return a + b


def test_uses_op():
    adapter = make_op_adapter(add)
    assert isinstance(adapter, OpAdapter)
    assert double(2) == 4


def test_no_op():
    assert double(3) == 6


def test_op_then_fails():
    make_op_adapter(lambda x: x > 0)
    raise ValueError("operator gave 3\\nsecond line")


def test_crash():
    make_op_adapter(add)
    os._exit(3)


@pytest.mark.skip(reason="needs two GPUs")
def test_skipped():
    pass


@pytest.mark.xfail(reason="known bug 7")
def test_xfail():
    make_op_adapter(add)
    assert False


def test_numba_import():
    from numba import cuda as numba_cuda
    if os.environ.get("CUDALITE_COMPAT_TESTS_ROOT"):
        import cudalite.cuda
        assert numba_cuda.atomic is cudalite.cuda.atomic
    make_op_adapter(add)


@pytest.mark.no_numba
def test_no_numba_with_op():
    make_op_adapter(add)
'''

CONFTEST = '''
import builtins
import pytest


@pytest.fixture
def raise_on_numba_import(monkeypatch):
    real_import = builtins.__import__

    def guarded_import(name, *args, **kwargs):
        if name == "numba" or name.startswith("numba."):
            raise ModuleNotFoundError("marked no_numba but imported numba")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", guarded_import)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("no_numba"):
            item.fixturenames.append("raise_on_numba_import")
'''


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    root = tmp_path_factory.mktemp("cccl")
    site = root / "site"
    (site / "cuda" / "compute").mkdir(parents=True)
    (site / "cuda" / "compute" / "__init__.py").write_text("")
    (site / "cuda" / "compute" / "op.py").write_text(FAKE_OP)
    (site / "numba_cuda_mlir").mkdir()
    (site / "numba_cuda_mlir" / "__init__.py").write_text("")
    tests = root / "tests"
    (tests / "compute").mkdir(parents=True)
    (tests / "_utils").mkdir()
    (tests / "_utils" / "__init__.py").write_text("")
    (tests / "_utils" / "helpers.py").write_text("def double(x):\n    return 2 * x\n")
    (tests / "compute" / "conftest.py").write_text(CONFTEST)
    (tests / "compute" / "test_fake.py").write_text(FAKE_TESTS)
    (tests / "compute" / "test_broken.py").write_text("import not_a_module_anywhere\n\ndef test_x():\n    pass\n")
    return root, site, tests


def _run(fake, compiler, jobs):
    root, site, tests = fake
    out = root / f"{compiler}-{jobs}.json"
    env = dict(os.environ)
    paths = [str(site)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    proc = subprocess.run([sys.executable, os.path.join(HERE, "cccl", "run_cccl.py"), "--tests", str(tests),
                           "--compiler", compiler, "--jobs", str(jobs), "--timeout", "60", "--json", str(out)],
                          env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rep = json.loads(out.read_text())
    return rep, {r["id"].split("::")[-1]: r for r in rep["tests"]}, proc.stdout


@pytest.mark.parametrize("compiler, jobs", [("native", 2), ("cudalite", 2), ("cudalite", 0)])
def test_end_to_end_on_a_fake_suite(fake, compiler, jobs):
    rep, t, stdout = _run(fake, compiler, jobs)
    assert rep["compiler"] == compiler
    assert t["test_uses_op"]["outcome"] == "passed" and t["test_uses_op"]["ops"] == ["add"]
    assert t["test_no_op"] == {"id": "compute/test_fake.py::test_no_op", "outcome": "passed", "reason": "",
                               "uses_op": False, "ops": []}
    assert t["test_op_then_fails"]["outcome"] == "failed"
    assert t["test_op_then_fails"]["reason"] == "ValueError: operator gave 3"
    assert t["test_op_then_fails"]["ops"] == ["test_op_then_fails.<locals>.<lambda>"]
    assert t["test_crash"]["outcome"] == "failed" and t["test_crash"]["reason"] == "worker crashed"
    assert t["test_crash"]["uses_op"] is True
    assert rep["collect_errors"] == {
        "compute/test_broken.py": "ModuleNotFoundError: No module named 'not_a_module_anywhere'"}
    if jobs == 0:  # one process: the crash ends the run
        assert set(t) <= {"test_uses_op", "test_no_op", "test_op_then_fails", "test_crash"}
        return
    assert t["test_skipped"]["outcome"] == "skipped" and t["test_skipped"]["reason"] == "needs two GPUs"
    assert t["test_xfail"]["outcome"] == "xfailed" and t["test_xfail"]["reason"] == "known bug 7"
    assert t["test_no_numba_with_op"]["outcome"] == "passed" and t["test_no_numba_with_op"]["uses_op"] is True
    numba = t["test_numba_import"]
    if compiler == "cudalite":  # numba answered by cudalite; the no_numba guard still works
        assert numba["outcome"] == "passed", numba
        assert all(s["numba_cuda_mlir_imported"] is False for s in rep["sessions"])
        assert any(s["numba_is_alias"] is True for s in rep["sessions"])
        assert "WARNING" not in stdout
    else:  # left alone: no numba here
        assert numba["outcome"] == "failed" and numba["reason"].startswith("ModuleNotFoundError")
    assert rep["counts"]["passed"] == (4 if compiler == "cudalite" else 3)


def test_pytest_command(tmp_path):
    (tmp_path / "compute").mkdir()
    for name in ("test_reduce.py", "test_scan.py", "test_select.py"):
        (tmp_path / "compute" / name).write_text("")
    args = run_cccl.parse_args(["--tests", str(tmp_path), "--compiler", "cudalite", "--json", "o",
                                "--only", "scan,select", "--jobs", "4", "--timeout", "90"])
    cmd = run_cccl.pytest_command(args, str(tmp_path), "/w", "/w/events")
    assert cmd[1:5] == ["-m", "pytest", "-p", "cccl_plugin"]
    assert cmd[cmd.index("--rootdir") + 1] == str(tmp_path) and "--continue-on-collection-errors" in cmd
    assert cmd[cmd.index("--cccl-compiler") + 1] == "cudalite" and cmd[cmd.index("--cccl-events") + 1] == "/w/events"
    assert cmd[cmd.index("-n") + 1] == "4" and cmd[cmd.index("--timeout") + 1] == "90"
    assert cmd[-2:] == [str(tmp_path / "compute" / "test_scan.py"), str(tmp_path / "compute" / "test_select.py")]
    args = run_cccl.parse_args(["--tests", str(tmp_path), "--compiler", "native", "--json", "o", "--jobs", "0",
                                "--timeout", "0"])
    cmd = run_cccl.pytest_command(args, str(tmp_path), "/w", "/w/events")
    assert "-n" not in cmd and "--timeout" not in cmd and cmd[-1] == str(tmp_path / "compute")
    args.only = "sort"
    with pytest.raises(run_cccl.HarnessError, match="--only 'sort' matches no compute/test_\\*.py file"):
        run_cccl.pytest_command(args, str(tmp_path), "/w", "/w/events")


def test_an_interrupted_run_leaves_out_unfinished_tests_and_compare_does_not_count_them():
    from cccl_events import fold

    events = [{"k": "start", "id": "t::a"}, {"k": "phase", "id": "t::a", "when": "call", "outcome": "passed"},
              {"k": "finish", "id": "t::a"}, {"k": "start", "id": "t::b"}]
    tests, _, _ = fold(events, interrupted=True)
    assert list(tests) == ["t::a"]
    tests, _, _ = fold(events)
    assert tests["t::b"]["outcome"] == "failed"  # not interrupted: a started, unfinished test crashed
    native = _report("native", [_rec("compute/test_a.py::t1", "passed")])
    cudalite = _report("cudalite", []) | {"interrupted": True}
    rows, fig = cmp.compare(native, cudalite)
    assert rows[0]["class"] == "na-not-run" and fig["headline"]["denominator"] == 0
