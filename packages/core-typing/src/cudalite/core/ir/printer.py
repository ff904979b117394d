"""Printing typed IR (``inspect_types``): each source line with the types of
the variables it assigns and the signatures of the calls it makes."""

from __future__ import annotations

from . import _nodes as n

__all__ = ["format_typed_function"]


def _targets(t):
    if isinstance(t, n.VarTarget):
        return [t.name]
    if isinstance(t, n.TupleTarget):
        return [x for i in t.items for x in _targets(i)]
    return []


def format_typed_function(tf) -> str:
    fir = tf.fir
    argdesc = ", ".join(f"{p}: {t}" for p, t in zip(fir.params, tf.argtypes))
    lines = [f"{fir.module}.{fir.qualname}({argdesc}) -> {tf.return_type}",
             f"# file: {fir.loc.filename}"]
    per_line: dict = {}

    def note(loc, text):
        per_line.setdefault(loc.line, (loc, []))[1].append(text)

    def walk(stmts):
        for s in stmts:
            if isinstance(s, n.Assign):
                for name in _targets(s.target):
                    if not name.startswith("$"):
                        note(s.loc, f"{name} = {tf.vartypes.get(name)}")
            elif isinstance(s, n.ForRange):
                note(s.loc, f"{s.target} = {tf.vartypes.get(s.target)}")
            elif isinstance(s, n.Return) and s.value is not None:
                note(s.loc, f"return {tf.typemap.get(s.value)}")
            for attr in ("body", "orelse"):
                walk(getattr(s, attr, None) or [])

    walk(fir.body)
    for call_node, info in tf.calls.items():
        if info.kind in ("registry", "function", "method") and isinstance(call_node, n.Call):
            name = info.site.name if info.site else getattr(info.key, "__qualname__", str(info.key))
            note(call_node.loc, f"call {name}{info.sig}")
    for line in sorted(per_line):
        loc, notes = per_line[line]
        src = (loc.text() or "").rstrip()
        lines.append(f"{line:5d}  {src}")
        for text in notes:
            lines.append(f"       # {text}")
    return "\n".join(lines) + "\n"
