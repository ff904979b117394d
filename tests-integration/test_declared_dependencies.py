"""Every package declares what its sources import, and imports what it declares;
each one's ``__version__`` is its distribution's version, and both CLIs say it.

Each ``packages/<pkg>/src`` is parsed with :mod:`ast` (nothing is imported); every
absolute import of a module outside the standard library is mapped to the
distribution that provides it, which must be listed in ``dependencies`` of that
package's ``pyproject.toml`` (an import used only through an optional extra must be
listed in that extra).  Conversely every declared Python distribution must be
imported somewhere in the package; the ``nvidia-*`` wheels are libraries found on
disk (cuda-pathfinder), not imported, and are exempt.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}
# import name (longest prefix wins) -> distribution
DISTRIBUTIONS = {
    "cuda.bindings": "cuda-bindings", "cuda.pathfinder": "cuda-pathfinder", "llvmlite": "llvmlite",
    "cuda.core": "cuda-core", "cuda.compute": "cuda-cccl",
    "numpy": "numpy", "cffi": "cffi", "_cffi_backend": "cffi", "cloudpickle": "cloudpickle",
    "cudalite.core": "cudalite-core", "cudalite.types": "cudalite-core", "cudalite.nvvm": "cudalite-nvvm",
    "cudalite.linker": "cudalite-linker", "cudalite.driver": "cudalite-driver", "cudalite.cuda": "cudalite",
}
OWN = {"core-typing": "cudalite-core", "codegen-nvvm": "cudalite-nvvm", "linker": "cudalite-linker",
       "driver": "cudalite-driver", "jit": "cudalite"}


def _imports(src: Path) -> set:
    names = set()
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module in ("cuda", "cudalite"):  # from cuda import pathfinder
                    names.update(f"{node.module}.{a.name}" for a in node.names)
                else:
                    names.add(node.module)
    return {n for n in names if n.split(".")[0] not in STDLIB}


def _distribution(name: str) -> str:
    for prefix in sorted(DISTRIBUTIONS, key=len, reverse=True):
        if name == prefix or name.startswith(prefix + "."):
            return DISTRIBUTIONS[prefix]
    raise AssertionError(f"no distribution known for the import {name!r}: add it to DISTRIBUTIONS")


def _names(items) -> set:
    return {re.split(r"[\s<>=!~\[;]", item, maxsplit=1)[0].lower() for item in items}


def _declared(pyproject: Path) -> set:
    text = pyproject.read_text()
    block = re.search(r"^dependencies\s*=\s*\[(.*?)\][ \t]*$", text, re.S | re.M)
    return _names(re.findall(r'"([^"]+)"', block.group(1)) if block else [])


def _extras(pyproject: Path) -> set:
    """Every distribution of ``[project.optional-dependencies]`` but the ``test`` extra."""
    text = pyproject.read_text()
    section = re.search(r"^\[project\.optional-dependencies\]\n(.*?)(?=^\[|\Z)", text, re.S | re.M)
    items = []
    for line in (section.group(1).splitlines() if section else []):
        m = re.match(r"\s*([\w-]+)\s*=\s*\[(.*)\]", line)
        if m and m.group(1) != "test":
            items += re.findall(r'"([^"]+)"', m.group(2))
    return _names(items)


@pytest.mark.parametrize("pkg", sorted(OWN))
def test_declared_dependencies_match_imports(pkg):
    folder = ROOT / "packages" / pkg
    used = {_distribution(n) for n in _imports(folder / "src")} - {OWN[pkg]}
    declared = _declared(folder / "pyproject.toml")
    missing = used - declared - _extras(folder / "pyproject.toml")
    unused = {d for d in declared - used if not d.startswith("nvidia-")}
    assert not missing, f"{pkg} imports {sorted(missing)} but does not declare them"
    assert not unused, f"{pkg} declares {sorted(unused)} but never imports them"


MODULES = {"core-typing": "cudalite.core", "codegen-nvvm": "cudalite.nvvm", "linker": "cudalite.linker",
           "driver": "cudalite.driver", "jit": "cudalite.cuda"}


@pytest.mark.parametrize("pkg", sorted(MODULES))
def test_version_is_the_distributions(pkg):
    import importlib

    text = (ROOT / "packages" / pkg / "pyproject.toml").read_text()
    version = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M).group(1)
    assert importlib.import_module(MODULES[pkg]).__version__ == version


@pytest.mark.parametrize("module, prog", [("cudalite.nvvm.cli", "cudalite-compile"),
                                          ("cudalite.cuda._compiler.cache_cli", "cudalite-cache")])
def test_clis_print_their_version(module, prog, capsys):
    import importlib

    with pytest.raises(SystemExit) as info:
        importlib.import_module(module).main(["--version"])
    assert info.value.code == 0
    package = ".".join(module.split(".")[:2])  # the distribution's top module: cudalite.nvvm, cudalite.cuda
    assert capsys.readouterr().out.strip() == f"{prog} {importlib.import_module(package).__version__}"
