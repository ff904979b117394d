"""What each package's wheel says on PyPI and carries (issue 28, findings 2 and 3): the
SPDX license with the LICENSE file inside every wheel (Apache-2.0 4(a)), no deprecated
license table or classifier, and a PyPI page whose links resolve."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = sorted(p.parent for p in (ROOT / "packages").glob("*/pyproject.toml"))
LICENSE = (ROOT / "LICENSE").read_bytes()


def _pyproject(pkg):
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads TOML (the files are the same on 3.10)")
    return tomllib.loads((pkg / "pyproject.toml").read_text())


def test_there_are_five_packages():
    assert [p.name for p in PACKAGES] == ["codegen-nvvm", "core-typing", "driver", "jit", "linker"]


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: p.name)
def test_license_is_an_spdx_expression_with_its_file(pkg):
    project = _pyproject(pkg)["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]  # PEP 639: the expression only


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: p.name)
def test_each_package_reaches_the_repository_license(pkg):
    # license-files paths are relative to the package directory and may not leave it
    assert (pkg / "LICENSE").read_bytes() == LICENSE


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: p.name)
def test_build_backend_knows_spdx_licenses(pkg):
    requires = _pyproject(pkg)["build-system"]["requires"]
    setuptools = [r for r in requires if r.startswith("setuptools")]
    assert setuptools == ["setuptools>=77"]  # PEP 639 (license expression, license-files)


def test_a_built_wheel_carries_the_license(tmp_path):
    """``pip wheel --no-deps`` of cudalite-core (pure Python, quick): the wheel's
    METADATA names the expression and the file, the file is in the wheel, and the build
    prints no setuptools deprecation warning."""
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(tmp_path),
                           str(ROOT / "packages" / "core-typing")], capture_output=True, text=True, timeout=600)
    if proc.returncode and re.search(r"No matching distribution|Could not find a version|NewConnectionError",
                                     proc.stdout + proc.stderr):
        pytest.skip("pip cannot fetch setuptools>=77 for the isolated build (offline)")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "SetuptoolsDeprecationWarning" not in proc.stdout + proc.stderr
    (wheel,) = tmp_path.glob("cudalite_core-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        (license_member,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert zf.read(license_member) == LICENSE
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = zf.read(metadata).decode()
    assert "License-Expression: Apache-2.0" in meta
    assert "License-File: LICENSE" in meta
    assert "Classifier: License ::" not in meta


BENCHMARKS = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FIGURE = re.compile(r"\b\d+\.\d+(?:-\d+\.\d+)?(?: ms|x)")


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: p.name)
def test_readme_links_resolve_on_pypi(pkg):
    # PyPI renders the README alone: a relative link (../../README.md) leads nowhere
    links = _LINK.findall((pkg / "README.md").read_text(encoding="utf-8"))
    assert [u for u in links if not u.startswith(("https://", "#"))] == []


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: p.name)
def test_readme_first_screen_says_what_and_why(pkg):
    text = (pkg / "README.md").read_text(encoding="utf-8")
    first_screen = "\n".join(text.splitlines()[:20])
    assert "numba.cuda" in first_screen or "numba-cuda" in first_screen
    assert "https://pypi.org/project/cudalite/" in first_screen or pkg.name == "jit"


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: p.name)
def test_readme_figures_are_the_measured_ones(pkg):
    """Every figure a package README quotes is one of docs/benchmarks.md's."""
    text = (pkg / "README.md").read_text(encoding="utf-8")
    for figure in _FIGURE.findall(text):
        for number in re.findall(r"\d+\.\d+", figure):
            assert number in BENCHMARKS, f"{pkg.name}: {figure} is not in docs/benchmarks.md"


def test_the_runtime_readme_quotes_the_comparison_with_numba_cuda():
    text = (ROOT / "packages" / "jit" / "README.md").read_text(encoding="utf-8")
    first_screen = "\n".join(text.splitlines()[:20])
    for row in ("| `import` of `cuda` | 43.3 ms | 564.2 ms |", "17.9 ms | 725.6 ms"):
        assert row in first_screen
