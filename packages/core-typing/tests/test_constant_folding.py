"""Constant folding of integer arithmetic on compile-time constants (issue 10):
``cuda.shared.array(2**10, ...)``, ``TPB * 2``, ``(TPB, TPB)``, ``-(-N // 4)`` are
compile-time shapes, with Python's semantics; results beyond 64 bits are refused
with a located message, and without computing them, only where numba refuses them
(CPython folds the expression into one too-big literal); larger expressions run with
int64 wrap-around as in numba (issue 11)."""

from __future__ import annotations

import operator
import time

import numpy as np
import pytest
from hypothesis import given, strategies as st

import cudalite.core.typing  # noqa: F401  (registers the built-in typing rules)
from cudalite import types as T
from cudalite.core import device_api as cuda
from cudalite.core import ir
from cudalite.core.errors import TypingError
from cudalite.core.registry import registry
from cudalite.core.typing import ArraySpec, TypingContext
from cudalite.core.typing._fold import ConstantRangeError, _cpython_folds, fold_binop, fold_unary

TPB = 16
N = 10
NP_N = np.int32(12)

_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
        "%": operator.mod, "**": operator.pow, "<<": operator.lshift, ">>": operator.rshift,
        "&": operator.and_, "|": operator.or_, "^": operator.xor}

small = st.integers(-(1 << 20), 1 << 20)


@given(op=st.sampled_from(sorted(_OPS)), a=small, b=st.integers(-40, 40))
def test_fold_binop_is_python_arithmetic(op, a, b):
    try:
        expected = _OPS[op](a, b)
    except (ZeroDivisionError, ValueError):
        expected = ir.NOTCONST  # left to run time
    if op == "**" and b < 0:
        expected = ir.NOTCONST  # a float in Python: not an integer constant
    if expected is not ir.NOTCONST and not -(1 << 63) <= expected < (1 << 64):
        if not _cpython_folds(op, a, b):
            assert fold_binop(op, a, b) is ir.NOTCONST  # left to run time (wraps)
            return
        with pytest.raises(ConstantRangeError, match="does not fit in 64 bits"):
            fold_binop(op, a, b)
        return
    assert fold_binop(op, a, b) == expected


def test_fold_unary_and_non_integers():
    assert fold_unary("-", 5) == -5 and fold_unary("~", 5) == -6 and fold_unary("+", 7) == 7
    assert fold_unary("-", True) is ir.NOTCONST
    assert fold_binop("+", 1.5, 2) is ir.NOTCONST
    assert fold_binop("/", 4, 2) is ir.NOTCONST  # true division makes a float: not folded
    assert fold_binop("+", True, 1) is ir.NOTCONST
    assert fold_binop("*", np.int32(3), 4) == 12 and type(fold_binop("*", np.int32(3), 4)) is int


@pytest.mark.parametrize("op, a, b", [("**", 2, 64), ("<<", 1, 64), ("*", 1 << 40, 1 << 40),
                                      ("-", -(1 << 63), 1), ("**", 65535, 5)])
def test_fold_refuses_what_cpython_folds_beyond_64_bits(op, a, b):
    """CPython folds these into one literal, which numba cannot type: refused, located."""
    with pytest.raises(ConstantRangeError, match=r"does not fit in 64 bits"):
        fold_binop(op, a, b)


@pytest.mark.parametrize("op, a, b", [("**", 10, 100), ("**", 10, 10 ** 10), ("<<", 3, 10 ** 12),
                                      ("**", -4611686018427387904, 4), ("**", 6364136223846793005, 3),
                                      ("*", 1 << 100, 1 << 40)])
def test_fold_leaves_huge_expressions_to_run_time_at_once(op, a, b):
    """numba compiles ``(-2**62) ** 4`` (CPython does not fold past 128 bits) and wraps
    at run time: not folded, not refused, and decided without computing 10**(10**10)."""
    t0 = time.perf_counter()
    assert fold_binop(op, a, b) is ir.NOTCONST
    assert time.perf_counter() - t0 < 0.5


@given(op=st.sampled_from(["*", "**", "<<"]), a=st.integers(-(1 << 70), 1 << 70),
       b=st.integers(0, 200))
def test_cpython_folding_limits_are_cpythons(op, a, b):
    """_cpython_folds agrees with the running CPython's compiler."""
    code = compile(f"({a}) {op} {b}", "<fold>", "eval")
    folded = not any(ins.opname.startswith("BINARY") for ins in __import__("dis").get_instructions(code))
    assert _cpython_folds(op, a, b) == folded


def test_fold_keeps_the_64_bit_range():
    assert fold_binop("**", 2, 63) == 1 << 63  # a uint64 constant
    assert fold_binop("-", 0, 1 << 63) == -(1 << 63)
    assert fold_binop("**", -2, 63) == -(1 << 63)
    assert fold_binop("**", 1, 10 ** 12) == 1 and fold_binop("**", -1, 10 ** 12 + 1) == -1
    assert fold_binop("<<", 0, 10 ** 9) == 0


# -- in inference: shapes of shared/local arrays -------------------------------------------------
def _spec(func):
    tf = TypingContext(registry).type_function(func, (T.float32[::1],))
    specs = [i.payload for i in tf.calls.values() if isinstance(i.payload, ArraySpec)]
    assert len(specs) == 1
    return specs[0].shape


def test_shape_power_of_two():
    def k(a):
        s = cuda.shared.array(2**10, T.float32)
        a[0] = s[0]

    assert _spec(k) == (1024,)


def test_shape_global_arithmetic():
    def k(a):
        s = cuda.shared.array(TPB * 2, T.float32)
        a[0] = s[0]

    assert _spec(k) == (32,)


def test_shape_tuple_of_globals_and_floor_division():
    def k(a):
        s = cuda.shared.array((TPB, TPB // 2), T.float32)
        a[0] = s[0, 0]

    assert _spec(k) == (16, 8)


def test_shape_ceil_division_and_nested_arithmetic():
    def k(a):
        s = cuda.local.array((-(-N // 4), (N % 3 + 1) << 2, NP_N - 2, (1 | 6) ^ 2, ~-3), T.float32)
        a[0] = s[0, 0, 0, 0, 0]

    assert _spec(k) == (3, 8, 10, 5, 2)


def test_shape_keyword_and_closure():
    m = 3

    def k(a):
        s = cuda.local.array(shape=(m * 2, m + 1), dtype=T.float32)
        a[0] = s[0, 0]

    assert _spec(k) == (6, 4)


def test_runtime_operand_is_still_refused():
    def k(a):
        s = cuda.shared.array(a.size * 2, T.float32)
        a[0] = s[0]

    with pytest.raises(TypingError, match="compile-time constant"):
        _spec(k)


def test_literal_too_big_for_numba_is_a_located_error():
    def k(a):
        a[0] = 2**64

    with pytest.raises(TypingError, match=r"2 \*\* 64 does not fit in 64 bits") as info:
        TypingContext(registry).type_function(k, (T.float32[::1],))
    assert info.value.loc.line == k.__code__.co_firstlineno + 1


def test_huge_power_compiles_as_in_numba():
    def f(x):
        return (-4611686018427387904) ** 4 + 6364136223846793005 ** 3 + 10**100 + x

    tf = TypingContext(registry).type_function(f, (T.int64,))
    assert tf.return_type == T.int64


def test_huge_power_is_no_shape():
    def k(a):
        s = cuda.local.array(10**100, T.float32)
        a[0] = s[0]

    with pytest.raises(TypingError, match="compile-time constant"):
        _spec(k)


def test_folded_index_selects_a_heterogeneous_tuple_item():
    def f(x):
        t = (x, 2.5, 3)
        return t[N // 5 - 1]  # t[1]: a compile-time index

    tf = TypingContext(registry).type_function(f, (T.int32,))
    assert tf.return_type == T.float64


BIG = 65535


def test_literals_fold_as_cpython_and_take_their_values_type():
    """numba sees what CPython's compiler folded: ``-9223372036854775808`` is an int64 literal,
    ``65535 ** 4`` a uint64 one; an expression on a global (``BIG ** 4``) is not folded by
    CPython and stays int64 arithmetic, as in numba."""
    def f(x):
        return -9223372036854775808, 65535 ** 4, BIG ** 4, -(2**63), ~0

    tf = TypingContext(registry).type_function(f, (T.int32,))
    assert str(tf.return_type) == "Tuple(int64, uint64, int64, int64, int64)"


def test_fold_literals_follows_cpython():
    from cudalite.core.typing._fold import fold_literals

    assert fold_literals("**", 65535, 4) == 65535 ** 4
    assert fold_literals("-", 9223372036854775808) == -(1 << 63)
    assert fold_literals("**", 6364136223846793005, 3) is ir.NOTCONST  # CPython leaves it
    assert fold_literals("<<", 1, 64) is ir.NOTCONST  # too big: the typing refuses it
    assert fold_literals("+", 1.5, 2) is ir.NOTCONST and fold_literals("+", True, 1) is ir.NOTCONST
