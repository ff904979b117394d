"""Typing stays linear on chains (issue 10, deep expressions): 'not' and unary-minus
chains, and walking the IR of an expression far deeper than the recursion limit."""

from __future__ import annotations

from cudalite.core import ir
from cudalite.core.registry import registry
from cudalite.core.types import boolean, int32, int64
from cudalite.core.typing import TypingContext, _infer


def _define(tmp_path, body, name="f"):
    src = f"def {name}(a):\n    {body}\n"
    path = tmp_path / f"{name}.py"
    path.write_text(src)
    ns = {}
    exec(compile(src, str(path), "exec"), ns)
    return ns[name]


def test_not_chain_is_typed_once_per_node(tmp_path, monkeypatch):
    """'not x' typed its operand twice, so a chain of n 'not' took 2**n steps."""
    calls = []
    real = _infer._Inference.expr
    monkeypatch.setattr(_infer._Inference, "expr", lambda self, e: calls.append(e) or real(self, e))
    fn = _define(tmp_path, "return " + "not " * 16 + "a")
    tf = TypingContext(registry).type_function(fn, (int32,))
    assert tf.return_type == boolean
    assert len(calls) < 200  # 17 nodes, a few passes (was more than 2**16)


def test_negation_chain_constant_is_computed_once_per_node(tmp_path, monkeypatch):
    """const_of() walked a '- - - a' chain to its bottom from every node: quadratic."""
    calls = []
    real = _infer._Inference.const_of
    monkeypatch.setattr(_infer._Inference, "const_of", lambda self, e: calls.append(e) or real(self, e))
    fn = _define(tmp_path, "return " + "-" * 200 + "a")
    tf = TypingContext(registry).type_function(fn, (int64,))
    assert tf.return_type == int64
    assert len(calls) < 10 * 200  # linear (was about 200**2 / 2 per pass)


def test_negated_constant_is_still_folded(tmp_path):
    fn = _define(tmp_path, "return a[- - -1]", name="g")
    from cudalite.core.types import UniTuple

    tf = TypingContext(registry).type_function(fn, (UniTuple(int64, 3),))
    index = tf.fir.body[0].value.index
    assert tf.consts[index] == -1


def test_walk_exprs_is_iterative():
    loc = None
    e = ir.Var(loc, "a")
    for _ in range(50_000):  # far deeper than any recursion limit
        e = ir.BinOp(loc, "+", e, ir.Const(loc, 1))
    walked = list(ir.walk_exprs(ir.Return(loc, e)))
    assert len(walked) == 100_001
    assert walked[0] is e and isinstance(walked[-1], ir.Const)  # pre-order, left before right
