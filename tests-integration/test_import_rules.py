"""The import rules of DESIGN.md, enforced on the source tree.

Every ``.py`` under ``packages/*/src`` is parsed with :mod:`ast` (nothing is
imported) and each absolute import -- statements anywhere in the file, plus
``__import__("x")`` / ``importlib.import_module("x")`` with a literal name -- is
checked against what its package may import.

Privacy: no package imports another package's private parts.  An absolute import of
``cudalite.<pkg>...`` from a different package (sources and unit tests under
``packages/*``) may not name a module or attribute whose dotted path has a component
starting with ``_`` (``cudalite.core._numpy``, ``from cudalite.driver import _cu``);
dunder names (``__version__``) are fine.  The driver package owns every CUDA driver
call, so the runtime may not import ``cuda.bindings.driver`` either.
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
         "cuda.pathfinder", "cloudpickle"),
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
        # cuda.compute: only cudalite.cuda.cccl, lazily (the operator adapter for cuda-cccl users)
        ("cudalite", "cuda.bindings", "cuda.pathfinder", "numpy", "cffi", "llvmlite", "cloudpickle", "cuda.compute"),
        ("cuda.core", "cuda.bindings.driver", "cuda.bindings.runtime"),  # driver calls: cudalite.driver
    ),
    "driver": (
        ("cudalite.driver", "cuda.bindings.driver", "numpy", "cffi", "_cffi_backend"),  # cffi's C part
        ("cuda.bindings.runtime", "cuda.core", "cudalite.cuda", "cudalite.core", "cudalite.types",
         "cudalite.nvvm", "cudalite.linker", "llvmlite"),
    ),
}
MAX_LINES = 800
# folder -> the cudalite modules it owns (anything else under ``cudalite.`` is another package's)
OWNS = {
    "core-typing": ("cudalite.core", "cudalite.types"),
    "codegen-nvvm": ("cudalite.nvvm",),
    "linker": ("cudalite.linker",),
    "driver": ("cudalite.driver",),
    "jit": ("cudalite.cuda",),
}


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


# Narrow exceptions to the forbidden prefixes: the runtime reads foreign arrays through
# cuda.core's StridedMemoryView (DLPack import, issue 12), a reader of other libraries'
# objects that makes no driver call of cudalite's; the rest of cuda.core stays forbidden.
EXCEPTIONS = {"jit": ("cuda.core.utils",)}


def violations(package: str, source: str, filename: str = "<src>"):
    allowed, forbidden = RULES[package]
    excepted = EXCEPTIONS.get(package, ())
    out = []
    for lineno, name in imported_names(source, filename):
        if any(_matches(name, e) for e in excepted):
            continue
        if any(_matches(name, f) for f in forbidden):
            out.append(f"{filename}:{lineno}: {package} must not import {name}")
        elif name.split(".")[0] in STDLIB:
            continue
        elif not any(_matches(name, a) for a in allowed):
            out.append(f"{filename}:{lineno}: {package} may not import {name}")
    return out


def imported_targets(source: str, filename: str = "<src>"):
    """``(lineno, dotted_name)`` of everything an absolute import names: the modules of
    ``import x`` and of literal ``import_module("x")``, and ``module.name`` for each name
    of ``from module import name`` (the name may be a module or an attribute)."""
    for lineno, name in imported_names(source, filename):
        yield lineno, name
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                if alias.name != "*":
                    yield node.lineno, f"{node.module}.{alias.name}"


def _from_modules(source: str, filename: str):
    """``(lineno, module)`` of ``from module import ...`` statements: their names are
    checked with the module, so an allow-listed name also allows its module."""
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if all(alias.name != "*" for alias in node.names):
                yield node.lineno, node.module


def _is_private(component: str) -> bool:
    return component.startswith("_") and not (component.startswith("__") and component.endswith("__"))


def private_violations(package: str, source: str, filename: str = "<src>"):
    """Imports of another package's private module or name (see the module docstring)."""
    out = []
    covered = set(_from_modules(source, filename))
    for lineno, name in sorted(set(imported_targets(source, filename)) - covered):
        if not name.startswith("cudalite.") or any(_matches(name, own) for own in OWNS[package]):
            continue
        if any(_is_private(c) for c in name.split(".")[1:]):
            out.append(f"{filename}:{lineno}: {package} imports {name}, private to another package")
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


def _package_files(package: str):
    """Sources and unit tests of ``package``."""
    return sorted((PACKAGES / package).glob("src/**/*.py")) + sorted((PACKAGES / package).glob("tests/**/*.py"))


def test_every_package_owns_its_modules():
    assert set(OWNS) == set(RULES)


@pytest.mark.parametrize("package", sorted(OWNS))
def test_no_private_imports_across_packages(package):
    if not (PACKAGES / package).is_dir():
        pytest.skip(f"{package} not in this checkout")
    problems = []
    for path in _package_files(package):
        problems += private_violations(package, path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
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


@pytest.mark.parametrize("package, source", [
    ("jit", "from cuda.bindings import driver"),
    ("jit", "import cuda.bindings.driver as cu"),
    ("jit", "def f():\n    from cuda.bindings.driver import cuCtxSynchronize\n"),
])
def test_checker_keeps_driver_calls_in_the_driver(package, source):
    assert violations(package, source)


@pytest.mark.parametrize("package, source, bad", [
    # another package's private module, however it is named
    ("jit", "from cudalite.core._numpy import lazy_numpy", True),
    ("codegen-nvvm", "from cudalite.core._numpy import is_ndarray, numpy", True),
    ("jit", "import cudalite.nvvm._options", True),
    ("jit", "def f():\n    from cudalite.nvvm._options import make_options\n", True),
    ("jit", "from cudalite.core.frontend._source import capture", True),
    ("jit", "from cudalite.driver._cu import call", True),
    ("jit", "from cudalite.driver import _cu", True),
    ("jit", "from cudalite.nvvm.lower import _registry", True),
    ("jit", "import importlib\nimportlib.import_module('cudalite.driver._state')", True),
    ("jit", "__import__('cudalite.linker._nvjitlink')", True),
    ("jit", "from cudalite.driver.errors import _enum_name", True),  # a private name, too
    ("jit", "from cudalite.core._numpy import *", True),
    ("driver", "from cudalite.cuda._compile import compile_code", True),
    # public names, dunders, relative imports and the package's own private modules are fine
    ("jit", "from cudalite.core.numpy_support import lazy_numpy as np", False),
    ("jit", "from cudalite.core.frontend import capture", False),
    ("jit", "from cudalite.nvvm import make_options, libnvvm", False),
    ("jit", "from cudalite.nvvm import __version__", False),
    ("jit", "import cudalite.driver as _drv", False),
    ("jit", "from cudalite.core.device_api import DEVICE_API_NAMES as _NAMES", False),
    ("jit", "from cudalite.cuda._compile import _linker_items", False),
    ("codegen-nvvm", "from cudalite.nvvm.lower._memory import x\nfrom ._options import make_options", False),
    ("core-typing", "from cudalite.types import _private_helper\nfrom cudalite.core._numpy import numpy", False),
    ("driver", "from ._cu import call\nimport cudalite.driver._state", False),
])
def test_private_checker_catches_violations(package, source, bad):
    assert bool(private_violations(package, source)) is bad


def test_private_checker_reports_each_private_import_with_its_line():
    src = "from cudalite.nvvm._options import make_options\nfrom cudalite.nvvm._options import nvvm_flags"
    assert private_violations("jit", src, "packages/jit/src/cudalite/cuda/other.py") == [
        "packages/jit/src/cudalite/cuda/other.py:1: jit imports cudalite.nvvm._options.make_options,"
        " private to another package",
        "packages/jit/src/cudalite/cuda/other.py:2: jit imports cudalite.nvvm._options.nvvm_flags,"
        " private to another package"]


# -- lazy boundaries ------------------------------------------------------------------------------
# A cudalite import inside a function of the jit package hides a dependency; it is allowed only
# at a lazy boundary (the compiler, linker or an optional module loaded on first use, to keep
# ``import cudalite.cuda`` light), each one marked ``# lazy: <why>`` on its line or the line
# above, and there are at most this many (docs/architecture.md, "Lazy boundaries").
MAX_LAZY_IMPORTS = 40


def _function_level_cudalite_imports(source: str):
    """``[(line, marked)]`` of the cudalite imports (absolute or relative) inside functions."""
    tree = ast.parse(source)
    lines = source.splitlines()
    found = {}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for stmt in ast.walk(node):
            if isinstance(stmt, ast.ImportFrom):
                ours = stmt.level > 0 or (stmt.module or "").split(".")[0] == "cudalite"
            elif isinstance(stmt, ast.Import):
                ours = any(a.name.split(".")[0] == "cudalite" for a in stmt.names)
            else:
                continue
            if ours:
                here = lines[stmt.lineno - 1]
                above = lines[stmt.lineno - 2] if stmt.lineno > 1 else ""
                found[stmt.lineno] = "lazy:" in here or above.strip().startswith("# lazy:")
    return sorted(found.items())


def test_jit_imports_inside_functions_are_marked_lazy_boundaries():
    src = ROOT / "packages" / "jit" / "src"
    sites, unmarked = 0, []
    for path in sorted(src.rglob("*.py")):
        for line, marked in _function_level_cudalite_imports(path.read_text()):
            sites += 1
            if not marked:
                unmarked.append(f"{path.relative_to(ROOT)}:{line}")
    assert not unmarked, f"function-level imports without a '# lazy:' reason: {unmarked}"
    assert 0 < sites <= MAX_LAZY_IMPORTS, f"{sites} function-level cudalite imports in jit (at most {MAX_LAZY_IMPORTS})"


def test_lazy_import_checker_sees_relative_and_unmarked_imports():
    source = ("def f():\n    from . import a\n    from .b import c  # lazy: on use\n"
              "    # lazy: the compiler\n    import cudalite.nvvm\n    import json\n")
    assert _function_level_cudalite_imports(source) == [(2, False), (3, True), (5, True)]
