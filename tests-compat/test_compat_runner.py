"""GPU-less end-to-end check of the compatibility runner on a fake numba-cuda install:
the alias, the shims, the per-module worker, crash recovery and the classification."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from compat_alias import find_tests_root
from compat_classify import classify

HERE = os.path.dirname(os.path.abspath(__file__))

GOOD = '''
import os
import numpy as np
from numba import cuda
from numba.cuda import types
from numba.cuda.testing import CUDATestCase, skip_unless_cudasim, skip_on_cudasim, unittest
from numba.cuda.tests.support import override_config
from .usecases import add_one


class TestFake(CUDATestCase):
    def test_pass_compile(self):
        ptx, resty = cuda.compile_ptx(add_one, (types.int64,), device=True)
        self.assertIn(".func", ptx)
        self.assertPreciseEqual(np.float64(1.5), np.float64(1.5))

    def test_wrong_result(self):
        self.assertPreciseEqual(np.float32(1.0), np.float32(1.5), prec="single")

    def test_missing_api(self):
        cuda.not_a_numba_name

    def test_internal(self):
        from numba.cuda.core import ir
        ir.Var(None, "a", None)

    def test_cpu_target(self):
        from numba import njit

    def test_compile_error(self):
        def bad(x):
            return undefined_name + x
        cuda.compile_ptx(bad, (types.int64,), device=True)

    @skip_unless_cudasim("simulator only")
    def test_cudasim_only(self):
        pass

    @skip_on_cudasim("hardware only")
    def test_config(self):
        with override_config("DISABLE_PERFORMANCE_WARNINGS", 1):
            self.assertEqual(cuda.config.DISABLE_PERFORMANCE_WARNINGS, 1)
        self.assertFalse(cuda.config.ENABLE_CUDASIM)

    @unittest.expectedFailure
    def test_expected_failure_that_passes(self):
        pass

    @unittest.expectedFailure
    def test_expected_failure_that_fails(self):
        self.assertEqual(1, 2)

    def test_zz_crash(self):
        os._exit(3)

    def test_zzz_after_crash(self):
        pass
'''

INTERNAL_MODULE = '''
from numba import cuda
from numba.cuda import launchconfig
from numba.cuda.testing import CUDATestCase


class TestInternalModule(CUDATestCase):
    def test_uses_it(self):
        launchconfig.current_launch_config()

    def test_does_not(self):
        self.assertEqual(cuda.grid.__name__, "grid")
'''


INTERNAL = '''
from numba.cuda.core.ir import Var
from numba.cuda.testing import CUDATestCase


class TestInternals(CUDATestCase):
    def test_a(self):
        pass

    def test_b(self):
        pass
'''

# a module gated by the imports numba-cuda's own test modules make at module level
GATED = '''
import sys

from numba import njit
from numba.cuda import HAS_NUMBA
from numba.cuda.cudadrv.driver import _have_nvjitlink
from numba.cuda.core.controlflow import CFGraph
from numba.cuda.core.compiler_machinery import FunctionPass, register_pass
from numba.cuda.extending import overload, not_in_cudalite
from numba.cuda.utils import PYVERSION
from numba.cuda.testing import CUDATestCase, unittest
from numba.cuda.flags import Flags

flags = Flags()
flags.enable_pyobject = True


@register_pass(mutates_CFG=False, analysis_only=True)
class DummyPass(FunctionPass):
    _name = "dummy"


@njit
def cpu_add(a, b):
    return a + b


for name in CFGraph:  # a loop over an internal table generates nothing
    raise AssertionError(name)


class TestGated(CUDATestCase):
    @unittest.skipIf(not _have_nvjitlink(), "no nvJitLink")
    def test_truthful_flags(self):
        self.assertEqual(PYVERSION, sys.version_info[:2])
        self.assertTrue(HAS_NUMBA)

    def test_uses_cfgraph(self):
        CFGraph().add_node(0)

    def test_uses_pass(self):
        DummyPass()

    def test_cpu_target(self):
        cpu_add(1, 2)

    def test_missing_public_name(self):
        not_in_cudalite(1)

    def test_public_extending_is_cudalite(self):
        from cudalite.cuda import extending
        self.assertIs(overload, extending.overload)

    def test_caught_internal_use(self):
        try:
            CFGraph()
        except ImportError:
            pass
        self.assertEqual(1, 2)
'''

# numba's own machinery (docs/compat.md justifies the module): class-body IR objects
IR = '''
from numba.cuda.core import ir
from numba.cuda.testing import CUDATestCase


class CheckEquality(CUDATestCase):
    var_a = ir.Var(None, "a", ir.unknown_loc)

    def test_var(self):
        self.assertEqual(self.var_a, self.var_a)

    def test_no_ir(self):
        pass
'''


def make_tree(tmp_path):
    tests = tmp_path / "site" / "numba_cuda" / "numba" / "cuda" / "tests"
    (tests / "cudapy").mkdir(parents=True)
    (tests / "doc_examples").mkdir()
    (tests.parent / "core").mkdir()
    (tests.parent / "core" / "ir.py").write_text("raise RuntimeError('real numba must not run')\n")
    (tests.parent / "launchconfig.py").write_text("raise RuntimeError('real numba must not run')\n")
    for internal in ("core/controlflow.py", "core/compiler_machinery.py", "utils.py", "flags.py"):
        (tests.parent / internal).write_text("raise RuntimeError('real numba must not run')\n")
    (tests.parent / "kernels").mkdir()
    (tests.parent / "kernels" / "transpose.py").write_text("raise RuntimeError('real numba must not run')\n")
    (tests.parent / "cudadrv").mkdir()
    (tests.parent / "cudadrv" / "driver.py").write_text("raise RuntimeError('real numba must not run')\n")
    for d in (tests, tests / "cudapy", tests / "doc_examples"):
        (d / "__init__.py").write_text("raise RuntimeError('real numba __init__ must not run')\n")
    (tests / "cudapy" / "usecases.py").write_text("def add_one(x):\n    return x + 1\n")
    (tests / "cudapy" / "test_fake.py").write_text(textwrap.dedent(GOOD))
    (tests / "cudapy" / "test_internals.py").write_text(textwrap.dedent(INTERNAL))
    (tests / "cudapy" / "test_internal_module.py").write_text(textwrap.dedent(INTERNAL_MODULE))
    (tests / "cudapy" / "test_gated.py").write_text(textwrap.dedent(GATED))
    (tests / "cudapy" / "test_ir.py").write_text(textwrap.dedent(IR))
    return tests


def test_find_tests_root_on_disk(tmp_path):
    tests = make_tree(tmp_path)
    assert find_tests_root(None, [str(tmp_path / "elsewhere"), str(tmp_path / "site")]) == str(tests)
    assert find_tests_root(str(tests)) == str(tests)
    assert find_tests_root(None, [str(tmp_path)]) is None


def test_runner_end_to_end(tmp_path):
    tests = make_tree(tmp_path)
    out = tmp_path / "res.json"
    proc = subprocess.run([sys.executable, os.path.join(HERE, "run_compat.py"), "--tests-root", str(tests),
                           "--json", str(out), "--jobs", "2", "--timeout", "120"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = json.loads(out.read_text())
    got = {t["id"].split("/")[-1].replace("::" + t["id"].split("::")[1] + "::", "::"): (t["status"], t["klass"])
           for t in res["tests"]}
    assert got == {
        "test_fake.py::test_pass_compile": ("passed", ""),
        "test_fake.py::test_wrong_result": ("failed", "wrong-result"),
        "test_fake.py::test_missing_api": ("failed", "missing-api"),
        "test_fake.py::test_internal": ("not-applicable", "internal-import"),
        "test_fake.py::test_cpu_target": ("not-applicable", "cpu-target"),
        "test_fake.py::test_compile_error": ("failed", "compile-error"),
        "test_fake.py::test_cudasim_only": ("not-applicable", "cudasim-only"),
        "test_fake.py::test_config": ("passed", ""),
        "test_fake.py::test_expected_failure_that_passes": ("passed", "xpass"),  # numba's bug, fixed here
        "test_fake.py::test_expected_failure_that_fails": ("xfailed", "xfail"),
        "test_fake.py::test_zz_crash": ("failed", "crash"),
        "test_fake.py::test_zzz_after_crash": ("passed", ""),
        # a module-level import of an internal the tests never use: each test is judged on its own
        "test_internals.py::test_a": ("passed", ""),
        "test_internals.py::test_b": ("passed", ""),
        # `from numba.cuda import launchconfig` imports; only the test touching it is n/a
        "test_internal_module.py::test_uses_it": ("not-applicable", "internal-import"),
        "test_internal_module.py::test_does_not": ("passed", ""),
        # gate imports: truthful flags, inert stand-ins, public extension names from cudalite
        "test_gated.py::test_truthful_flags": ("passed", ""),
        "test_gated.py::test_uses_cfgraph": ("not-applicable", "internal-import"),
        "test_gated.py::test_uses_pass": ("not-applicable", "internal-import"),
        "test_gated.py::test_cpu_target": ("not-applicable", "cpu-target"),
        "test_gated.py::test_missing_public_name": ("failed", "missing-api"),
        "test_gated.py::test_public_extending_is_cudalite": ("passed", ""),
        "test_gated.py::test_caught_internal_use": ("not-applicable", "internal-import"),
        "test_ir.py::test_var": ("not-applicable", "internal-import"),
        "test_ir.py::test_no_ir": ("passed", ""),
    }, proc.stdout
    # justified: the two cpu-target tests, the cudasim-only one, and test_ir.py (numba's IR: both of its
    # tests, the passing one too, are not counted; docs/compat.md)
    assert "PASS RATE: 47.4% (9/19 = passed / (all 25 - skipped 1 - justified 5));  failed 5, " \
           "unjustified n/a 5" in proc.stdout
    assert "RAW: 40.0% (10/25 = passed / all);  not applicable 9, skipped 0, xfailed 1" in proc.stdout
    unjustified = sorted(line.split()[2].split("::")[-1] for line in proc.stdout.splitlines()
                         if line.startswith("UNJUSTIFIED N/A "))
    assert unjustified == ["test_caught_internal_use", "test_internal", "test_uses_cfgraph", "test_uses_it",
                           "test_uses_pass"], proc.stdout
    assert "(module)" not in proc.stdout
    just = {t["id"].split("::")[-1]: t["justification"] for t in res["tests"] if t["justification"]}
    assert sorted(just) == ["test_cpu_target", "test_cudasim_only", "test_no_ir", "test_var"]
    assert just["test_var"].startswith("numba's IR classes")
    details = {t["id"].split("::")[-1]: t["detail"] for t in res["tests"] if t["klass"] == "missing-api"}
    assert details == {"test_missing_api": "not_a_numba_name", "test_missing_public_name": "extending.not_in_cudalite"}
    assert (res["counts"]["denominator"], res["counts"]["passed"], res["counts"]["raw_passed"]) == (19, 9, 10)


def test_classify_rules():
    assert classify({"outcome": "passed"})[0] == "passed"
    assert classify({"outcome": "skipped", "skip_reason": "N/A[cudasim-only]: x"})[:2] == ("not-applicable",
                                                                                         "cudasim-only")
    assert classify({"outcome": "skipped", "skip_reason": "requires cc >= 9.0"})[:2] == ("skipped", "skip")
    assert classify({"outcome": "failed", "exc_type": "ModuleNotFoundError", "exc_mro": ["ModuleNotFoundError"],
                     "message": "No module named 'ml_dtypes'"})[:2] == ("skipped", "missing-dependency")
    assert classify({"outcome": "failed", "exc_type": "AssertionError", "exc_mro": ["AssertionError"],
                     "message": "TypingError not raised"})[1] == "missing-error"
    assert classify({"outcome": "failed", "exc_type": "KeyError", "exc_mro": ["KeyError"], "message": "'x'",
                     "in_cudalite": True})[1] == "cudalite-exception"
    assert classify({"outcome": "failed", "exc_type": "KeyError", "exc_mro": ["KeyError"], "message": "'x'",
                     "events": [("internal-import", "numba.cuda.core.ir")]})[:2] == ("not-applicable",
                                                                                    "internal-import")


def test_config_names_cudalite_shares_set_its_environment(monkeypatch):
    from compat_alias import _Config

    names = list(_Config.CUDALITE_ENV.values()) + list(_Config.CUDALITE_ENV_STR.values())
    for name in names:
        monkeypatch.delenv(name, raising=False)  # restored (or removed) after the test
    cfg = _Config("numba.cuda.config")
    assert os.environ["CUDALITE_CUDA_LOW_OCCUPANCY_WARNINGS"] == "1"  # numba's default
    cfg.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    assert os.environ["CUDALITE_CUDA_LOW_OCCUPANCY_WARNINGS"] == "0"
    cfg.CUDA_ARRAY_INTERFACE_SYNC = False
    assert os.environ["CUDALITE_CUDA_ARRAY_INTERFACE_SYNC"] == "0"
    cfg.OPT = 0  # no cudalite equivalent: nothing set
    assert "CUDALITE_OPT" not in os.environ
    cfg.CUDA_NVRTC_EXTRA_SEARCH_PATHS = "/a:/b"  # a string variable, passed on as it is
    assert os.environ["CUDALITE_NVRTC_EXTRA_SEARCH_PATHS"] == "/a:/b"
    for name in names:  # leave the process as found
        os.environ.pop(name, None)


def test_cache_layout_rule_matches_only_check_pycache():
    """numba's count of its cache files beside the test module is not applicable (cudalite's
    cache lives under CUDALITE_CACHE_DIR); any other caching failure is still a failure."""
    from compat_classify import describe_exception

    def check_pycache():
        assert 0 == 2, "[]"

    try:
        check_pycache()
    except AssertionError as exc:
        rec = describe_exception(exc)
    assert rec["tb_funcs"][-1] == "test_compat_runner.py:check_pycache"
    base = {"outcome": "failed", "exc_type": "AssertionError", "exc_mro": ["AssertionError"], "message": "0 != 2 : []"}
    assert classify({**base, "tb_funcs": ["test_caching.py:test_caching", "test_caching.py:check_pycache"]})[:2] \
        == ("not-applicable", "cache-layout")
    assert classify({**base, "tb_funcs": ["test_caching.py:test_caching", "test_caching.py:check_hits"]})[:2] \
        == ("failed", "wrong-result")
    assert classify({**base, "exc_type": "TypeError", "exc_mro": ["TypeError"],
                     "tb_funcs": ["test_caching.py:check_pycache"]})[0] == "failed"


@pytest.fixture
def alias(tmp_path):
    """The alias installed in this process over a fake numba-cuda tree; removed afterwards."""
    import compat_alias

    tests = make_tree(tmp_path)
    finder = compat_alias.install(str(tests))
    yield compat_alias
    sys.meta_path.remove(finder)
    for name in [n for n in sys.modules if n == "numba" or n.startswith("numba.")]:
        del sys.modules[name]
    compat_alias.EVENTS.clear()


def _run_module(source, name="fake_test_module"):
    """Run *source* as a module body (where a test module defines its tests)."""
    namespace = {"__name__": name}
    exec(compile(textwrap.dedent(source), f"<{name}>", "exec"), namespace)
    return namespace


def test_standins_are_inert_at_definition_and_raise_in_functions(alias):
    ns = _run_module('''
        from numba.cuda.core.compiler_machinery import FunctionPass, register_pass
        from numba.cuda.core import ir

        @register_pass(mutates_CFG=False)
        class P(FunctionPass):
            pass

        class Base(FunctionPass):
            pass

        var = ir.Var(None, "a", ir.unknown_loc)
        var.name = "b"  # ignored at definition
        table = [n for n in ir.all_names]
        same = var == var
    ''')
    assert ns["table"] == [] and ns["same"] is True
    assert repr(ns["var"]) == "<stand-in for numba.cuda.core.ir.Var(...) (internal-import)>"
    alias.EVENTS.clear()
    with pytest.raises(alias.NumbaInternal, match=r"not applicable \[internal-import\]: "
                                                  r"numba.cuda.core.compiler_machinery.register_pass\(\.\.\.\)\(\.\.\.\)"):
        ns["P"]()
    with pytest.raises(alias.NumbaInternal, match="FunctionPass is numba-internal"):
        ns["Base"]()  # a class derived from an internal one is created, but not instantiated
    for use in (lambda v: v.name, lambda v: v(), lambda v: v[0], lambda v: bool(v), lambda v: list(v),
                lambda v: v == 1, lambda v: isinstance(1, v)):
        with pytest.raises(alias.NumbaInternal):
            use(ns["var"])
    assert alias.EVENTS[0] == ("internal-import", "numba.cuda.core.compiler_machinery.register_pass(...)(...)")
    assert len(alias.EVENTS) == 9  # every use is recorded, caught or not


def test_truthful_flags_and_numba_version(alias):
    from numba.cuda.cudadrv.driver import _have_nvjitlink
    from numba.cuda.utils import PYVERSION
    import numba
    import numba.cuda

    assert _have_nvjitlink() is True  # cudalite always links with nvJitLink
    assert PYVERSION == sys.version_info[:2]
    assert numba.cuda.HAS_NUMBA is True  # numba-cuda 0.30.4 requires numba>=0.60
    assert numba.version_info[:2] == (0, 60) and numba.__version__ == "0.60.0"


def test_cpu_names_are_standins_only_for_module_level_from_imports(alias):
    ns = _run_module("from numba import njit\n\n@njit\ndef f(x):\n    return x\n")
    with pytest.raises(alias.NumbaInternal, match=r"\[cpu-target\]: numba.njit\(\.\.\.\)"):
        ns["f"](1)
    with pytest.raises(alias.NumbaInternal, match="cpu-target"):
        _run_module("import numba\nnjit = getattr(numba, 'njit', None)\n")  # not a from-import
    with pytest.raises(alias.NumbaInternal, match="cpu-target"):
        from numba import njit  # noqa: F401  (inside a function: the use itself)


def test_public_extension_modules_are_cudalite(alias):
    import cudalite.cuda.cgutils
    import cudalite.cuda.extending
    import cudalite.cuda.models

    from numba.cuda.extending import overload, register_model
    from numba.extending import intrinsic
    from numba.core.extending import overload_method
    from numba.cuda import cgutils
    from numba.core.datamodel import models as core_models
    from numba.cuda.datamodel.models import StructModel

    assert overload is cudalite.cuda.extending.overload and intrinsic is cudalite.cuda.extending.intrinsic
    assert overload_method is cudalite.cuda.extending.overload_method
    assert register_model is cudalite.cuda.extending.register_model
    assert cgutils.create_struct_proxy is cudalite.cuda.cgutils.create_struct_proxy
    assert core_models.StructModel is StructModel is cudalite.cuda.models.StructModel
    ns = _run_module("from numba.cuda.extending import no_such_extension_name\n")
    with pytest.raises(alias.MissingApi, match=r"missing API numba.cuda.extending.no_such_extension_name"):
        ns["no_such_extension_name"]()


def test_public_module_cudalite_lacks_is_missing_api(alias, monkeypatch):
    monkeypatch.setitem(alias.PUBLIC_MODULES, "numba.cuda.kernels.transpose", "cudalite.cuda.no_such_module")
    from numba.cuda.kernels.transpose import transpose

    with pytest.raises(alias.MissingApi) as info:
        transpose(None)
    assert info.value.api_name == "kernels.transpose.transpose"
    assert classify({"outcome": "failed", **__import__("compat_classify").describe_exception(info.value)})[:2] \
        == ("failed", "missing-api")


def test_internal_attribute_rule():
    base = {"outcome": "failed", "exc_type": "AttributeError", "exc_mro": ["AttributeError"]}
    assert classify({**base, "message": "'CUDADispatcher' object has no attribute '_compile_for_args'"})[:2] \
        == ("not-applicable", "internal-attribute")
    assert classify({**base, "message": "'CUDADispatcher' object has no attribute 'griddim'"})[:2] \
        == ("failed", "error")


def test_justified_list_and_counts():
    from compat_justified import JUSTIFIED, honest_counts, justification

    na = {"status": "not-applicable"}
    assert justification({**na, "id": "cudapy/test_ir.py::T::test_x", "klass": "internal-import"}) \
        .startswith("numba's IR classes")
    assert justification({**na, "id": "cudapy/test_flow_control.py::TestCFGraph::test_loops",
                          "klass": "internal-import"}).startswith("numba's CFGraph")
    # another class of the same module, or a rule the entry does not name: not justified
    assert justification({**na, "id": "cudapy/test_flow_control.py::TestFlowControl::test_x",
                          "klass": "internal-import"}) is None
    assert justification({**na, "id": "cudapy/test_caching.py::T::test_x", "klass": "internal-import"}) is None
    # a whole-module entry (rule "*") covers every outcome there; a rule entry only its n/a tests
    assert justification({"status": "passed", "id": "cudapy/test_ir.py::T::test_x", "klass": ""}) is not None
    assert justification({"status": "skipped", "id": "cudapy/test_ir.py::T::test_x", "klass": "skip"}) is None
    assert justification({"status": "failed", "id": "cudapy/test_debuginfo.py::T::test_x", "klass": "error"}) is None
    assert all(where != "*" for where, rule, _ in JUSTIFIED if rule == "*")
    tests = [{"id": "a::t1", "status": "passed"}, {"id": "a::t2", "status": "failed"},
             {"id": "a::t3", "status": "skipped"}, {"id": "a::t4", "status": "xfailed"},
             {"id": "a::t5", "status": "not-applicable", "klass": "cpu-target"},
             {"id": "a::t6", "status": "not-applicable", "klass": "internal-import"},
             {"id": "cudapy/test_ir.py::T::t7", "status": "passed", "klass": ""}]
    c = honest_counts(tests)
    assert (c["all"], c["passed"], c["raw_passed"], c["skipped"], c["justified"], c["unjustified_na"],
            c["denominator"]) == (7, 1, 2, 2, 2, 1, 3)
    assert round(c["rate"], 1) == 33.3 and round(c["raw_rate"], 1) == 28.6
    # docs/compat.md lists every entry (where, rule) with its reason
    doc = open(os.path.join(os.path.dirname(HERE), "docs", "compat.md"), encoding="utf-8").read()
    section = doc[doc.index("### The justified list"):]
    for where, rule, reason in JUSTIFIED:
        row = f"| `{where}` | `{rule}` | {reason} |"
        assert row in section, row


def test_report_headline_and_sections():
    from compat_report import render

    tests = [{"id": "cudapy/test_a.py::T::test_1", "status": "passed", "klass": "", "detail": ""},
             {"id": "cudapy/test_a.py::T::test_2", "status": "failed", "klass": "wrong-result", "detail": "1 != 2"},
             {"id": "cudapy/test_a.py::T::test_3", "status": "not-applicable", "klass": "internal-import",
              "detail": "numba.cuda.core.controlflow.CFGraph"},
             {"id": "cudapy/test_ir.py::T::test_4", "status": "not-applicable", "klass": "internal-import",
              "detail": "numba.cuda.core.ir.Var"},
             {"id": "cudapy/test_a.py::T::test_5", "status": "skipped", "klass": "skip", "detail": "cc"}]
    text = render({"tests": tests, "totals": {"passed": 1, "failed": 1, "not-applicable": 2, "skipped": 1}}, "T")
    assert "**Pass rate: 33.3% (1/3)** = passed / (all 5 - skipped or xfailed 1 - justified, not counted 1); " \
           "failed 1, not applicable without a justification 1 (counted as not passed)." in text
    assert "Raw: 20.0% (1/5) = passed / all tests; failed 1, not-applicable 2, passed 1, skipped 1" in text
    assert "| cudapy/test_a.py | 1 | 1 | 1 | 0 | 1 |" in text
    unjust = text[text.index("## Not applicable without"):text.index("## Justified: not counted")]
    assert "cudapy/test_a.py::T::test_3" in unjust and "test_ir.py" not in unjust
    assert "| cudapy/test_ir.py::T::test_4 | not-applicable (internal-import) | numba's IR classes" in text


def test_import_sweep_reports_what_does_not_import(tmp_path):
    tests = make_tree(tmp_path)
    (tests / "cudapy" / "test_broken.py").write_text("from numba.cuda.core.ir import Var\nVar.x + 1\n")
    (tests / "cudapy" / "test_needs_pkg.py").write_text("import no_such_third_party_pkg\n")
    proc = subprocess.run([sys.executable, os.path.join(HERE, "import_sweep.py"), "--tests", str(tests),
                           "--json", str(tmp_path / "sweep.json")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = {ln.split()[0]: ln.split()[1] for ln in proc.stdout.splitlines() if not ln.startswith("#")}
    # `Var.x` is a stand-in; `+ 1` on it at module level is a real use: the module does not load
    assert lines == {"cudapy/test_broken.py": "error", "cudapy/test_needs_pkg.py": "skipped"}, proc.stdout
    assert proc.stdout.splitlines()[-1].startswith("# 7 modules in ")
    assert "ok 5 (" in proc.stdout.splitlines()[-1]
    recs = {r["module"]: r for r in json.loads((tmp_path / "sweep.json").read_text())}
    assert recs["numba.cuda.tests.cudapy.test_gated"]["kind"] == "ok"


SHIM = '''
import os

from numba import cuda
from numba.cuda.tests.support import SUBPROCESS_TEST_ENV, TestCase


class TestShim(TestCase):
    @TestCase.run_test_in_subprocess
    def test_isolated(self):
        self.assertEqual(os.environ[SUBPROCESS_TEST_ENV], self.id())

    @TestCase.run_test_in_subprocess(envvars={"CUDALITE_COMPAT_FAKE": "1"})
    def test_isolated_fails(self):
        raise ValueError("child says " + os.environ["CUDALITE_COMPAT_FAKE"])

    @TestCase.run_test_in_subprocess
    def test_isolated_internal(self):
        from numba.cuda.core import ir
        ir.Var()

    def test_dummy_type(self):
        Dummy, DummyType = self.make_dummy_type()
        self.assertIsInstance(cuda.typeof(Dummy()), DummyType)
        self.assertIn(self.id(), DummyType.__name__)
'''


def test_shim_subprocess_rerun_and_dummy_type(tmp_path):
    tests = make_tree(tmp_path)
    (tests / "cudapy" / "test_shim.py").write_text(textwrap.dedent(SHIM))
    out = tmp_path / "res.json"
    proc = subprocess.run([sys.executable, os.path.join(HERE, "run_compat.py"), "--tests-root", str(tests),
                           "--only", "test_shim", "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = json.loads(out.read_text())
    got = {t["id"].split("::")[-1]: (t["status"], t["klass"], t["detail"]) for t in res["tests"]}
    assert got["test_isolated"][:2] == ("passed", ""), got
    assert got["test_dummy_type"][:2] == ("passed", ""), got
    assert got["test_isolated_fails"] == ("failed", "wrong-result",
                                          "the test failed in its own process: ValueError: child says 1"), got
    assert got["test_isolated_internal"][:2] == ("not-applicable", "internal-import"), got
    assert "numba.cuda.core.ir.Var" in got["test_isolated_internal"][2]
