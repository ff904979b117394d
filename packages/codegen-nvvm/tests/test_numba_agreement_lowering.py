"""Typing and lowering that make cudalite agree with numba-cuda bit for bit (issue 11's
differential fuzzer): unary ``- + ~`` on a narrow integer are computed in its own width
and widened after (numba's ``int_negate_impl``), so ``-int32(-2**31) == -2**31``; the
GPU side is tests-integration/gpu/test_gpu_numba_agreement.py."""

from __future__ import annotations

import linecache

import pytest

import cudalite.core.typing  # noqa: F401  (registers the built-in typing rules)
from cudalite import types as T
from cudalite.core.registry import registry
from cudalite.core.typing import TypingContext
from cudalite.core.typing.rules.arithmetic import unary_signature
from cudalite.nvvm.api import compile_stages


@pytest.mark.parametrize("op", ["-", "+", "~"])
@pytest.mark.parametrize("arg, result", [
    (T.int8, T.int64), (T.int16, T.int64), (T.int32, T.int64), (T.int64, T.int64),
    (T.uint8, T.uint64), (T.uint16, T.uint64), (T.uint32, T.uint64), (T.uint64, T.uint64),
])
def test_unary_on_integers_keeps_the_operand_type(op, arg, result):
    """numba's UnaryOp/BitwiseInvert cases: ``(choose_result_int(t)) t`` -- the operand is
    not widened before the operation."""
    sig = unary_signature(op, arg)
    assert sig.return_type == result and sig.args == (arg,)


def test_unary_on_bool_and_floats():
    assert unary_signature("-", T.boolean).return_type == T.int64
    assert unary_signature("~", T.boolean).return_type == T.boolean
    assert unary_signature("-", T.float32).return_type == T.float32


def _ir(tmp_path, body, sig):
    src = f"def f(a):\n    return {body}\n"
    path = tmp_path / "unary_kernel.py"
    path.write_text(src)
    ns = {}
    exec(compile(src, str(path), "exec"), ns)
    linecache.cache[str(path)] = (len(src), None, src.splitlines(True), str(path))
    return compile_stages(ns["f"], sig, cc=(9, 0), output="ptx")["nvvm-ir"].data


@pytest.mark.parametrize("body, narrow, widen", [
    ("-a", "sub i32 0,", "sext i32"), ("~a", "xor i32", "sext i32"),
])
def test_signed_unary_is_computed_narrow_then_sign_extended(tmp_path, body, narrow, widen):
    ir = _ir(tmp_path, body, "(int32,)")
    body_ir = ir[ir.index("define"):]
    assert narrow in body_ir and widen in body_ir and "sub i64" not in body_ir


def test_unsigned_negation_is_computed_narrow_then_zero_extended(tmp_path):
    ir = _ir(tmp_path, "-a", "(uint32,)")
    body_ir = ir[ir.index("define"):]
    assert "sub i32" in body_ir and "zext i32" in body_ir


def test_typed_function_return_types():
    def f(x):
        return -x

    tf = TypingContext(registry).type_function(f, (T.int32,))
    assert tf.return_type == T.int64


@pytest.mark.parametrize("fn, pred", [("np.maximum", "fcmp oge"), ("np.minimum", "fcmp ole")])
def test_np_maximum_minimum_prefer_the_first_operand_on_ties(tmp_path, fn, pred):
    """numba's np_real_maximum_impl selects ``a if a >= c``: np.maximum(0.0, -0.0) is 0.0."""
    src = f"import numpy as np\n\n\ndef f(a, c):\n    return {fn}(a, c)\n"
    path = tmp_path / "npmax_kernel.py"
    path.write_text(src)
    ns = {}
    exec(compile(src, str(path), "exec"), ns)
    linecache.cache[str(path)] = (len(src), None, src.splitlines(True), str(path))
    ir = compile_stages(ns["f"], "(float64, float64)", cc=(9, 0), output="ptx")["nvvm-ir"].data
    assert pred in ir
