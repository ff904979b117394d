"""``walk_stmts`` / ``walk_exprs``: the one way to visit IR statements and expressions."""

from __future__ import annotations

from cudalite.core import ir
from cudalite.core.frontend import build_ir


def _kinds(nodes):
    return [type(n).__name__ for n in nodes]


def test_walk_stmts_visits_nested_bodies_in_source_order():
    def f(a, n):
        s = 0
        for i in range(n):
            if a[i] > 0:
                s += a[i]
            else:
                while s > 10:
                    s -= 1
                    break
        for x in a:
            s += x
        return s

    stmts = list(ir.walk_stmts(build_ir(f).body))
    assert _kinds(stmts) == ["Assign", "ForRange", "If", "Assign", "While", "Assign", "Break",
                             "ForIter", "Assign", "Return"]
    assert [s.loc.line for s in stmts] == sorted(s.loc.line for s in stmts)


def test_walk_exprs_visits_every_expression_but_not_nested_statements():
    def f(a, i):
        if a[i] + 1 > f2(i, k=2):
            a[i] = -i

    (if_stmt,) = build_ir(f).body
    exprs = list(ir.walk_exprs(if_stmt))
    assert _kinds(exprs) == ["Compare", "BinOp", "Index", "Var", "Var", "Const", "Call", "Const", "Var",
                             "Const"]  # the body's store is a statement: not entered
    (store,) = if_stmt.body
    assert _kinds(ir.walk_exprs(store)) == ["Var", "Var", "UnaryOp", "Var"]  # target a[i], value -i


def f2(i, k):
    return i + k
