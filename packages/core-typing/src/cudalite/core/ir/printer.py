"""Printing typed IR (``inspect_types``): every source line of the function, each
followed by the types of the variables it assigns and reads and the signatures
of the calls it makes."""

from __future__ import annotations

from ..errors import Loc
from . import _nodes as n
from ._walk import walk_stmts

__all__ = ["format_typed_function"]

_SHOWN_CALLS = ("registry", "function", "method", "value")  # CallKind values noted per line


def _targets(t):
    if isinstance(t, n.VarTarget):
        return [t]
    if isinstance(t, n.TupleTarget):
        return [x for i in t.items for x in _targets(i)]
    return []


def _notes(tf) -> dict:
    """line -> ordered, de-duplicated notes."""
    per_line: dict = {}

    def note(loc, text):
        notes = per_line.setdefault(loc.line, [])
        if text not in notes:
            notes.append(text)

    ssa = tf.fir.ssa

    def version_type(node):  # the type of the variable's version this assignment makes
        v = ssa.defs.get(node) if ssa is not None else None
        return tf.vartypes.get(v.name) if v is not None else None

    for s in walk_stmts(tf.fir.body):
        if isinstance(s, n.Assign):
            for t in _targets(s.target):
                if not t.name.startswith("$"):
                    note(s.loc, f"{t.name} = {version_type(t)}")
        elif isinstance(s, n.ForRange):
            note(s.loc, f"{s.target} = {version_type(s)} (range)")
        elif isinstance(s, n.Return) and s.value is not None:
            note(s.loc, f"return {tf.typemap.get(s.value)}")
    for node, t in tf.typemap.items():
        if isinstance(node, n.Var) and not node.name.startswith("$"):
            note(node.loc, f"{node.name}: {t}")
    for node, info in tf.calls.items():
        if info.kind.value in _SHOWN_CALLS and isinstance(node, (n.Call, n.Const)):
            note(node.loc, f"{info.name} :: {info.sig}")
    return per_line


def format_typed_function(tf) -> str:
    fir = tf.fir
    argdesc = ", ".join(f"{p}: {t}" for p, t in zip(fir.params, tf.argtypes))
    lines = [f"{fir.module}.{fir.qualname}({argdesc}) -> {tf.return_type}",
             f"# file: {fir.loc.filename}"]
    per_line = _notes(tf)
    first = fir.loc.line
    last = max([fir.loc.end_line or first] + list(per_line))
    for line in range(first, last + 1):
        src = (Loc(fir.loc.filename, line).text() or "").rstrip()
        if not src and line not in per_line:
            continue
        lines.append(f"{line:5d}  {src}")
        for text in per_line.get(line, ()):
            lines.append(f"       # {text}")
    return "\n".join(lines) + "\n"
