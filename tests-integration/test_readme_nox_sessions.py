"""The README's list of nox sessions names every session of noxfile.py, and only those
(issue 28, finding 7: ``jit``, ``compat`` and ``difffuzz`` were missing)."""

from __future__ import annotations

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _sessions() -> set:
    tree = ast.parse((ROOT / "noxfile.py").read_text())
    out = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                target = dec.func if isinstance(dec, ast.Call) else dec
                if ast.unparse(target) == "nox.session":
                    out.add(node.name)
    return out


def _listed() -> set:
    text = (ROOT / "README.md").read_text()
    block = text.split("## Tests, lint, benchmarks", 1)[1].split("\n\n", 2)[1]
    names = set()
    for line in block.splitlines():
        m = re.match(r"\s+nox -s ([\w.| -]+?)\s*(#|$)", line)
        assert m, f"not a nox line: {line!r}"
        names.update(n.strip() for n in m.group(1).split("|"))
    return {re.sub(r"-3\.\d+$", "", n) for n in names}  # tests-3.12: a parametrized tests session


def test_readme_lists_every_nox_session():
    sessions = _sessions()
    assert {"tests", "jit", "compat", "difffuzz", "lint"} <= sessions  # the parser sees the sessions
    assert _listed() == sessions
