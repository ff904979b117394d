"""No import cycles between the modules of ``packages/*/src``.

Every module is parsed with :mod:`ast` (nothing is imported) and the graph of
intra-``cudalite`` imports is built from *every* import statement in the file:
module level **and** inside functions, classes and ``if TYPE_CHECKING`` blocks.
A function-level import still couples the two modules (it only postpones the
failure), so it counts.  Conventions:

* ``from X import y`` is an edge to module ``X.y`` when that is a module, else
  to ``X`` (whose ``__init__`` defines ``y``); ``import X.Y`` is an edge to ``X.Y``;
* the implicit import of parent packages (importing ``a.b.c`` first runs
  ``a/__init__`` and ``a/b/__init__``) is not an edge: a facade ``__init__`` that
  re-exports its submodules would otherwise make every submodule part of a cycle.

The test fails with every cycle found (one per strongly connected component).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _modules() -> dict:
    """dotted name -> (path, is_package) for every module under packages/*/src."""
    out = {}
    for src in sorted(ROOT.glob("packages/*/src")):
        for path in sorted(src.rglob("*.py")):
            parts = list(path.relative_to(src).with_suffix("").parts)
            is_pkg = parts[-1] == "__init__"
            if is_pkg:
                parts = parts[:-1]
            out[".".join(parts)] = (path, is_pkg)
    return out


def _resolve(module: str, is_pkg: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = module.split(".") if is_pkg else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def import_graph(modules: dict) -> dict:
    """module -> set of intra-tree modules it imports (anywhere in its body)."""
    graph = {m: set() for m in modules}
    for mod, (path, is_pkg) in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(mod, is_pkg, node.level, node.module)
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    targets.append(sub if sub in modules else base)
            for t in targets:
                if t in modules and t != mod:
                    graph[mod].add(t)
    return graph


def cycles(graph: dict) -> list:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_sees_function_level_and_relative_imports():
    g = import_graph(_modules())
    assert "cudalite.core.types._base" in g["cudalite.core.types._scalar"]  # from ._base import Type
    assert "cudalite.core.registry" in g["cudalite.core.typing._infer"]  # from ..registry import ...


def test_cycle_finder_reports_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    found = cycles(import_graph(_modules()))
    assert found == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)
