"""numba's environment variables (issue 28, finding 5): each one that changes results is
either honoured as an alias of its ``CUDALITE_*`` twin (parsed as numba parses it: an
integer, non-zero is on) or named in a warning, once, when ``cudalite.cuda`` is imported;
docs/envvars.md says which."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from cudalite.cuda.config import IGNORED_NUMBA_VARIABLES, ignored_numba_variables, load_config, simulator_enabled
from cudalite.nvvm.config import load_config as nvvm_config

ROOT = pathlib.Path(__file__).resolve().parents[1]
ENVVARS_MD = (ROOT / "docs" / "envvars.md").read_text()


@pytest.mark.parametrize("value, expected", [("2", True), ("1", True), ("0", False), ("-1", True), (" 3 ", True),
                                             ("yes", True), ("off", False), ("", False)])
def test_numba_enable_cudasim_is_read_as_numba_reads_it(value, expected):
    assert simulator_enabled({"NUMBA_ENABLE_CUDASIM": value}) is expected
    assert load_config({"NUMBA_ENABLE_CUDASIM": value}).enable_cudasim is expected


def test_the_cudalite_spelling_wins_over_numbas():
    assert simulator_enabled({"CUDALITE_ENABLE_CUDASIM": "0", "NUMBA_ENABLE_CUDASIM": "2"}) is False
    assert load_config({"CUDALITE_BOUNDSCHECK": "0", "NUMBA_BOUNDSCHECK": "1"}).boundscheck is False
    assert nvvm_config({"CUDALITE_DEFAULT_CC": "9.0", "NUMBA_CUDA_DEFAULT_PTX_CC": "8.0"}).default_cc.cc == (9, 0)


@pytest.mark.parametrize("value, expected", [("2", True), ("0", False), ("", None)])
def test_numba_boundscheck_is_read_as_numba_reads_it(value, expected):
    assert load_config({"NUMBA_BOUNDSCHECK": value}).boundscheck is expected


@pytest.mark.parametrize("numba, field", [
    ("NUMBA_DISABLE_CUDA", "disable_cuda"), ("NUMBA_CUDA_DEBUGINFO", "debuginfo_default"),
    ("NUMBA_DISABLE_PERFORMANCE_WARNINGS", "disable_performance_warnings")])
def test_numba_switches_with_a_cudalite_twin_are_honoured(numba, field):
    assert getattr(load_config({numba: "1"}), field) is True
    assert getattr(load_config({numba: "0"}), field) is False


@pytest.mark.parametrize("numba, field", [
    ("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "cuda_array_interface_sync"),
    ("NUMBA_CUDA_WARN_ON_IMPLICIT_COPY", "warn_on_implicit_copy"),
    ("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "low_occupancy_warnings")])
def test_numba_switches_that_default_on_are_honoured(numba, field):
    assert getattr(load_config({numba: "0"}), field) is False
    assert getattr(load_config({}), field) is True


def test_numba_full_tracebacks_is_honoured():
    assert nvvm_config({"NUMBA_FULL_TRACEBACKS": "1"}).full_traceback is True
    assert nvvm_config({"NUMBA_FULL_TRACEBACKS": "1", "CUDALITE_FULL_TRACEBACK": "0"}).full_traceback is False


def test_a_bad_numba_value_is_an_error_naming_the_variable():
    with pytest.raises(ValueError, match=r"^NUMBA_ENABLE_CUDASIM='maybe': expected an integer"):
        simulator_enabled({"NUMBA_ENABLE_CUDASIM": "maybe"})
    with pytest.raises(ValueError, match=r"^NUMBA_CUDA_DEFAULT_PTX_CC='8\.x': "):
        nvvm_config({"NUMBA_CUDA_DEFAULT_PTX_CC": "8.x"})


@pytest.mark.parametrize("value", ["8.0", "80", "sm_80"])
def test_numba_default_ptx_cc_sets_the_default_target(value):
    assert nvvm_config({"NUMBA_CUDA_DEFAULT_PTX_CC": value}).default_cc.cc == (8, 0)


def test_numba_default_ptx_cc_reaches_compile_ptx(monkeypatch):
    from cudalite import cuda

    monkeypatch.delenv("CUDALITE_DEFAULT_CC", raising=False)
    monkeypatch.setenv("NUMBA_CUDA_DEFAULT_PTX_CC", "8.0")

    def add(x, y):
        return x + y

    ptx, _ = cuda.compile_ptx(add, "float32(float32, float32)", device=True)
    assert ".target sm_80" in ptx


def _run(code, **env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "CUDALITE_ENABLE_CUDASIM"))}
    return subprocess.run([sys.executable, "-W", "default", "-c", code], env={**clean, **env},
                          capture_output=True, text=True, timeout=120)


def test_numba_enable_cudasim_2_imports_the_simulator():
    proc = _run("from cudalite import cuda; print(cuda.implementation)", NUMBA_ENABLE_CUDASIM="2")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "cudalite-simulator"


def test_an_ignored_numba_variable_is_named_in_one_warning_at_import():
    proc = _run("import cudalite.cuda, cudalite.cuda.config as c; c.simulator_enabled(); c.simulator_enabled()",
                NUMBA_OPT="0", NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM="1")
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "UserWarning: cudalite ignored" in ln]
    assert len(lines) == 1, proc.stderr
    assert "NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM, NUMBA_OPT" in lines[0]
    assert "docs/envvars.md" in lines[0]


def test_no_warning_without_numba_variables():
    proc = _run("import cudalite.cuda")
    assert proc.returncode == 0
    assert "NUMBA_" not in proc.stderr


def test_ignored_numba_variables_lists_only_the_set_ones():
    assert ignored_numba_variables({"NUMBA_OPT": "3", "NUMBA_CACHE_DIR": "", "NUMBA_ENABLE_CUDASIM": "1"}) == (
        "NUMBA_OPT",)


def test_docs_say_what_happens_to_each_numba_variable():
    assert "`NUMBA_*` variables are not read" not in ENVVARS_MD
    for name in IGNORED_NUMBA_VARIABLES:
        assert f"`{name}`" in ENVVARS_MD, name
    for name in ("NUMBA_ENABLE_CUDASIM", "NUMBA_BOUNDSCHECK", "NUMBA_CUDA_DEFAULT_PTX_CC", "NUMBA_DISABLE_CUDA",
                 "NUMBA_CUDA_DEBUGINFO", "NUMBA_FULL_TRACEBACKS", "NUMBA_CUDA_ARRAY_INTERFACE_SYNC",
                 "NUMBA_CUDA_WARN_ON_IMPLICIT_COPY", "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS",
                 "NUMBA_DISABLE_PERFORMANCE_WARNINGS"):
        assert f"| `{name}` |" in ENVVARS_MD, name
