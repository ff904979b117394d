"""GPU-less end-to-end check of the compatibility runner on a fake numba-cuda install:
the alias, the shims, the per-module worker, crash recovery and the classification."""

import json
import os
import subprocess
import sys
import textwrap

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
        ir.Var

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


def make_tree(tmp_path):
    tests = tmp_path / "site" / "numba_cuda" / "numba" / "cuda" / "tests"
    (tests / "cudapy").mkdir(parents=True)
    (tests / "doc_examples").mkdir()
    (tests.parent / "core").mkdir()
    (tests.parent / "core" / "ir.py").write_text("raise RuntimeError('real numba must not run')\n")
    (tests.parent / "launchconfig.py").write_text("raise RuntimeError('real numba must not run')\n")
    for d in (tests, tests / "cudapy", tests / "doc_examples"):
        (d / "__init__.py").write_text("raise RuntimeError('real numba __init__ must not run')\n")
    (tests / "cudapy" / "usecases.py").write_text("def add_one(x):\n    return x + 1\n")
    (tests / "cudapy" / "test_fake.py").write_text(textwrap.dedent(GOOD))
    (tests / "cudapy" / "test_internals.py").write_text(textwrap.dedent(INTERNAL))
    (tests / "cudapy" / "test_internal_module.py").write_text(textwrap.dedent(INTERNAL_MODULE))
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
    got = {t["id"].split("::")[-1]: (t["status"], t["klass"]) for t in res["tests"]}
    assert got == {
        "test_pass_compile": ("passed", ""),
        "test_wrong_result": ("failed", "wrong-result"),
        "test_missing_api": ("failed", "missing-api"),
        "test_internal": ("not-applicable", "internal-import"),
        "test_cpu_target": ("not-applicable", "cpu-target"),
        "test_compile_error": ("failed", "compile-error"),
        "test_cudasim_only": ("not-applicable", "cudasim-only"),
        "test_config": ("passed", ""),
        "test_expected_failure_that_passes": ("passed", "xpass"),  # numba's bug, fixed here
        "test_expected_failure_that_fails": ("xfailed", "xfail"),
        "test_zz_crash": ("failed", "crash"),
        "test_zzz_after_crash": ("passed", ""),
        "test_a": ("not-applicable", "internal-import"),  # module-level import of an internal
        "test_b": ("not-applicable", "internal-import"),
        # `from numba.cuda import launchconfig` imports; only the test touching it is n/a
        "test_uses_it": ("not-applicable", "internal-import"),
        "test_does_not": ("passed", ""),
    }, proc.stdout
    assert "APPLICABLE PASS RATE: 55.6% (5/9)" in proc.stdout
    assert "cudapy/test_internals.py" in proc.stdout and "(module)" in proc.stdout
    missing = [t for t in res["tests"] if t["klass"] == "missing-api"]
    assert missing[0]["detail"] == "not_a_numba_name"


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
