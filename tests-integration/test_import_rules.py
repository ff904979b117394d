"""The import-direction table of DESIGN.md, enforced on the source tree.

Every ``.py`` under ``packages/*/src`` is parsed with :mod:`ast` (nothing is
imported) and each absolute import -- statements anywhere in the file, plus
``__import__("x")`` / ``importlib.import_module("x")`` with a literal name -- is
checked against what its package may import.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ROOT / "packages"
STDLIB = frozenset(sys.stdlib_module_names)

# folder -> (allowed module prefixes besides the stdlib, forbidden prefixes checked first)
NEVER_BELOW_JIT = ("cuda.bindings.driver", "cuda.bindings.runtime", "cuda.core", "cudalite.cuda")
RULES = {
    "core-typing": (
        ("numpy", "cudalite.core", "cudalite.types"),
        NEVER_BELOW_JIT + ("cudalite.nvvm", "cudalite.linker", "cudalite.driver", "llvmlite", "cuda"),
    ),
    "codegen-nvvm": (
        ("numpy", "cudalite.core", "cudalite.types", "cudalite.nvvm", "llvmlite", "cuda.bindings.nvvm",
         "cuda.pathfinder"),
        NEVER_BELOW_JIT + ("cudalite.linker", "cudalite.driver"),
    ),
    # linker and driver stand alone: another frontend can reuse them
    "linker": (
        ("cudalite.linker", "cuda.bindings.nvjitlink", "cuda.bindings.nvrtc", "cuda.bindings.nvfatbin",
         "cuda.pathfinder"),
        NEVER_BELOW_JIT + ("cudalite.core", "cudalite.types", "cudalite.nvvm", "cudalite.driver", "llvmlite"),
    ),
    # the runtime sits on top: it may use every package below it
    "jit": (
        ("cudalite", "cuda.bindings", "cuda.pathfinder", "numpy", "cffi", "llvmlite"),
        ("cuda.core",),
    ),
    "driver": (
        ("cudalite.driver", "cuda.bindings.driver", "numpy", "cffi", "_cffi_backend"),  # cffi's C part
        ("cuda.bindings.runtime", "cuda.core", "cudalite.cuda", "cudalite.core", "cudalite.types",
         "cudalite.nvvm", "cudalite.linker", "llvmlite"),
    ),
}
MAX_LINES = 800


def _matches(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def imported_names(source: str, filename: str = "<src>"):
    """``(lineno, dotted_name)`` for every absolute import in ``source``."""
    tree = ast.parse(source, filename)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module in ("cudalite", "cuda", "cuda.bindings"):
                # ``from cuda.bindings import nvvm`` imports cuda.bindings.nvvm
                for alias in node.names:
                    yield node.lineno, f"{node.module}.{alias.name}"
            else:
                yield node.lineno, node.module
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            fname = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if fname in ("__import__", "import_module") and isinstance(node.args[0].value, str):
                if not node.args[0].value.startswith("."):
                    yield node.lineno, node.args[0].value


def violations(package: str, source: str, filename: str = "<src>"):
    allowed, forbidden = RULES[package]
    out = []
    for lineno, name in imported_names(source, filename):
        if any(_matches(name, f) for f in forbidden):
            out.append(f"{filename}:{lineno}: {package} must not import {name}")
        elif name.split(".")[0] in STDLIB:
            continue
        elif not any(_matches(name, a) for a in allowed):
            out.append(f"{filename}:{lineno}: {package} may not import {name}")
    return out


def _sources(package: str):
    return sorted((PACKAGES / package / "src").rglob("*.py"))


def test_every_package_has_rules():
    found = {p.name for p in PACKAGES.iterdir() if (p / "src").is_dir()}
    assert found, "no packages found"
    missing = found - set(RULES)
    assert not missing, f"add import rules for {sorted(missing)} (see DESIGN.md)"


@pytest.mark.parametrize("package", sorted(RULES))
def test_import_direction(package):
    files = _sources(package)
    if not (PACKAGES / package).is_dir():
        pytest.skip(f"{package} not in this checkout")
    assert files
    problems = []
    for path in files:
        problems += violations(package, path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not problems, "\n".join(problems)


def test_no_cudalite_init_anywhere():
    """``cudalite`` is a PEP 420 namespace shared by all packages."""
    inits = sorted(str(p.relative_to(ROOT)) for p in PACKAGES.glob("*/src/cudalite/__init__.py"))
    assert not inits
    for pkg in PACKAGES.iterdir():
        if (pkg / "src").is_dir():
            assert (pkg / "src" / "cudalite").is_dir(), f"{pkg.name} has no src/cudalite"


def test_modules_stay_small():
    big = [f"{p.relative_to(ROOT)}: {n} lines"
           for pkg in RULES for p in _sources(pkg)
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not big, "modules over ~800 lines:\n" + "\n".join(big)


@pytest.mark.parametrize("package, source, bad", [
    ("core-typing", "from llvmlite import ir", True),
    ("core-typing", "import numpy as np\nfrom cudalite.core import errors\nimport os", False),
    ("core-typing", "def f():\n    from cudalite.nvvm import compile\n", True),
    ("codegen-nvvm", "from cuda.bindings import nvvm\nfrom cuda.pathfinder import find_bitcode_lib", False),
    ("codegen-nvvm", "from cuda.bindings import driver", True),
    ("codegen-nvvm", "import cuda.bindings.driver as drv", True),
    ("codegen-nvvm", "from cuda.core.experimental import Device", True),
    ("codegen-nvvm", "from cudalite.linker import link", True),
    ("codegen-nvvm", "import importlib\nimportlib.import_module('cudalite.driver')", True),
    ("codegen-nvvm", "import cffi", True),
])
def test_checker_catches_violations(package, source, bad):
    assert bool(violations(package, source)) is bad
