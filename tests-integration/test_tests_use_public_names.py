"""Tests import a name from its public home when it has one: ``from cudalite.nvvm
import make_options``, not ``from cudalite.nvvm._options import make_options``.

Every ``from cudalite...._private... import name`` in the test trees is checked: when
the nearest public package above the private module (``cudalite.nvvm`` for
``cudalite.nvvm._options``) holds the very same object under that name, the test must
use the public one.  Modules themselves are exempt (a test of one module's internals
imports that module), and so is ``cudalite.cuda._internal``, numba-cuda's own import
path (``numba.cuda._internal.cuda_fp8``) that ported code keeps.
"""

from __future__ import annotations

import ast
import importlib
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXEMPT = ("cudalite.cuda._internal",)


def _test_files():
    yield from sorted(ROOT.glob("packages/*/tests/**/*.py"))
    yield from sorted((ROOT / "tests-integration").rglob("*.py"))


def _private_imports(source: str):
    """``[(line, module, public_package, name)]`` for imports of public names from private modules."""
    out = []
    for stmt in ast.walk(ast.parse(source)):
        if not (isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module):
            continue
        parts = stmt.module.split(".")
        private = [i for i, part in enumerate(parts) if part.startswith("_")]
        if parts[0] != "cudalite" or not private or stmt.module.startswith(EXEMPT):
            continue
        public = ".".join(parts[:private[0]])
        out += [(stmt.lineno, stmt.module, public, a.name) for a in stmt.names if not a.name.startswith("_")]
    return out


def _shadowed(module, public, name) -> bool:
    """Whether ``public.name`` is the same object as ``module.name`` (and not a module)."""
    obj = getattr(importlib.import_module(module), name, None)
    if obj is None or isinstance(obj, types.ModuleType):
        return False
    return getattr(importlib.import_module(public), name, None) is obj


def test_tests_import_public_names_from_their_public_home():
    found = []
    for path in _test_files():
        for line, module, public, name in _private_imports(path.read_text()):
            if _shadowed(module, public, name):
                found.append(f"{path.relative_to(ROOT)}:{line}: use `from {public} import {name}`")
    assert not found, "\n".join(found)


def test_the_checker_sees_a_public_name_imported_privately():
    source = "from cudalite.nvvm._options import make_options, nvvm_flags\nfrom cudalite.cuda._internal import x\n"
    imports = _private_imports(source)
    assert imports == [(1, "cudalite.nvvm._options", "cudalite.nvvm", "make_options"),
                       (1, "cudalite.nvvm._options", "cudalite.nvvm", "nvvm_flags")]
    assert _shadowed(*imports[0][1:]) and not _shadowed(*imports[1][1:])
