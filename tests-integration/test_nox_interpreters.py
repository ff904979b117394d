"""The README's test command on a machine with several Pythons (issue 28, finding 1):
``nox -s tests`` finds pyenv's interpreters as ``.ci/run`` does, a session whose Python is
missing fails instead of being skipped, and a local run says which Pythons it left out."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def noxfile():
    nox = pytest.importorskip("nox")
    path = os.environ.get("PATH", "")
    try:  # loaded once: nox registers its sessions; it puts pyenv's bin dirs first on PATH
        spec = importlib.util.spec_from_file_location("cudalite_noxfile", ROOT / "noxfile.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        os.environ["PATH"] = path
    return nox, module


def _exe(path, code):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\nexit {code}\n")
    path.chmod(0o755)


def test_a_missing_interpreter_is_an_error(noxfile):
    nox, _ = noxfile
    assert nox.options.error_on_missing_interpreters is True


def test_pyenv_versions_are_found_as_ci_run_finds_them(noxfile, tmp_path):
    _, nf = noxfile
    for version in ("2.7.18", "3.9.18", "3.10.1", "3.10.13", "3.12.1"):
        minor = version.rsplit(".", 1)[0]
        _exe(tmp_path / "versions" / version / "bin" / f"python{minor}", 0)
    (tmp_path / "versions" / "3.13.0" / "bin").mkdir(parents=True)  # no interpreter in it
    assert nf.pyenv_bin_dirs(str(tmp_path)) == [str(tmp_path / "versions" / v / "bin") for v in ("3.10.13", "3.12.1")]


def test_a_shim_that_refuses_is_not_a_python(noxfile, tmp_path):
    _, nf = noxfile
    _exe(tmp_path / "python3.11", 0)
    _exe(tmp_path / "python3.12", 1)  # what a pyenv shim does for a version not selected
    assert nf.found_pythons(["3.10", "3.11", "3.12", "3.13"], path=str(tmp_path)) == ["3.11"]


def test_ci_needs_every_supported_python(noxfile):
    _, nf = noxfile
    assert nf.pythons_for_tests(nf.PYTHONS, ["3.11"], ci=True) == ["3.10", "3.11", "3.12", "3.13"]
    assert nf.pythons_for_tests(nf.PYTHONS, ["3.11"], ci=False) == ["3.11"]
    current = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert nf.pythons_for_tests(nf.PYTHONS, [], ci=False) == ([current] if current in nf.PYTHONS else nf.PYTHONS)


def test_ci_lists_a_tests_session_per_supported_python():
    pytest.importorskip("nox")
    proc = subprocess.run([sys.executable, "-m", "nox", "-l"], cwd=ROOT, env={**os.environ, "CI": "1"},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert [ln.split()[1] for ln in proc.stdout.splitlines() if ln.startswith("* tests-")] == [
        "tests-3.10", "tests-3.11", "tests-3.12", "tests-3.13"]


def test_the_readme_says_what_a_local_run_covers():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    head = text.split("## Packages", 1)[0]
    assert "did not find" in head and "pyenv" in head and ".ci/run" in head
