"""Result types of the number constructors and of the builtins whose result type numba
chooses by its own rules, against a table written from numba-cuda 0.30.4's typing
(``numba_cuda/numba/cuda/typing/builtins.py``: the ``Int``, ``Float``, ``Complex``,
``Bool``, ``Abs``, ``Round`` and ``DivMod`` templates and ``NumberClassAttribute`` for
``np.int32(x)``; ``numba_cuda/numba/cuda/cudadecl.py``: ``float(float16)``;
``numba_cuda/numba/cuda/typeconv/rules.py``: the conversion kinds that choose among a
``ConcreteTemplate``'s cases, the first listed case winning a tie).

The first part tests the rule functions alone; the second types whole functions, so
``int(x)``, ``float(x)``, ``complex(x)``, ``np.uint8(x)`` reach the rules through
inference (the differential fuzzer's finding: ``int(np.uint32(v))`` is ``uint32`` in
numba, so ``max(np.uint64(1), int(np.uint32(v)) << 3)`` stays an integer and ``~`` of it
compiles).
"""

from __future__ import annotations

import numpy as np
import pytest

import cudalite.core.typing  # noqa: F401  (registers the built-in typing rules)
from cudalite import types as T
from cudalite.core import ir
from cudalite.core.errors import TypingError
from cudalite.core.registry import registry
from cudalite.core.types import Tuple
from cudalite.core.typing import TypingContext
from cudalite.core.typing._fold import ConstantRangeError, fold_binop, literal_operands
from cudalite.core.typing.rules.builtins import (
    abs_signature, builtin_cast_result, divmod_signature, round_signature,
)

SIGNED = [T.int8, T.int16, T.int32, T.int64]
UNSIGNED = [T.uint8, T.uint16, T.uint32, T.uint64]
INTS = SIGNED + UNSIGNED
FLOATS = [T.float16, T.float32, T.float64]
COMPLEX = [T.complex64, T.complex128]
NUMBERS = [T.boolean] + INTS + FLOATS + COMPLEX

# numba's result type of int(x), float(x), complex(x), bool(x) for each argument type
# where numba types the call (numba refuses int()/float() of complex and float(bool)).
NUMBA_INT = {**{t: t for t in INTS}, T.boolean: T.int64, **{t: T.int64 for t in FLOATS}}
NUMBA_FLOAT = {**{t: T.float64 for t in INTS}, **{t: t for t in FLOATS}}
NUMBA_COMPLEX = {**{t: T.complex128 for t in NUMBERS if t != T.boolean}, T.float32: T.complex64}
NUMBA_BOOL = {t: T.boolean for t in NUMBERS}


@pytest.mark.parametrize("arg", sorted(NUMBA_INT, key=str))
def test_int_result_is_numbas(arg):
    assert builtin_cast_result(int, arg, T.int64) == NUMBA_INT[arg]


@pytest.mark.parametrize("arg", sorted(NUMBA_FLOAT, key=str))
def test_float_result_is_numbas(arg):
    assert builtin_cast_result(float, arg, T.float64) == NUMBA_FLOAT[arg]


@pytest.mark.parametrize("arg", sorted(NUMBA_COMPLEX, key=str))
def test_complex_result_is_numbas(arg):
    assert builtin_cast_result(complex, arg, T.complex128) == NUMBA_COMPLEX[arg]


@pytest.mark.parametrize("arg", NUMBERS, ids=str)
def test_bool_result_is_boolean(arg):
    assert builtin_cast_result(bool, arg, T.boolean) == NUMBA_BOOL[arg]


@pytest.mark.parametrize("target", INTS + FLOATS + COMPLEX + [T.boolean], ids=str)
def test_named_constructors_give_the_named_type(target):
    """``np.uint8(x)``, ``types.float32(x)``: the named type for every number (numba's
    ``NumberClassAttribute.resolve___call__`` returns ``ty`` for any Number or Boolean)."""
    for arg in NUMBERS:
        assert builtin_cast_result(np.dtype(str(target)).type, arg, target) == target


def test_cudalite_extensions_beyond_numba():
    """Where numba refuses, cudalite accepts with Python's meaning: float(True) is a
    float64."""
    assert builtin_cast_result(float, T.boolean, T.float64) == T.float64


# numba's Abs cases: signed, unsigned, real (same type), complex (underlying float);
# a bool matches int8 first (safe, the first of the tied cases).
@pytest.mark.parametrize("arg, res", [
    *[(t, t) for t in INTS + FLOATS], (T.complex64, T.float32), (T.complex128, T.float64), (T.boolean, T.int8),
], ids=str)
def test_abs_result_is_numbas(arg, res):
    assert abs_signature(arg).return_type == res


# numba's Round cases: (intp, float32), (int64, float64), (float32, float32, intp),
# (float64, float64, intp).  round(x) is int64 for every number; round(x, n) is the
# float x converts to best: float32 for bool/int8/int16/uint8 (safe, first case),
# float64 for wider integers (float32 would be unsafe), float32 for float16 (promote).
ROUND_N = {T.boolean: T.float32, T.int8: T.float32, T.int16: T.float32, T.uint8: T.float32,
           T.int32: T.float64, T.int64: T.float64, T.uint16: T.float64, T.uint32: T.float64,
           T.uint64: T.float64, T.float16: T.float32, T.float32: T.float32, T.float64: T.float64}


@pytest.mark.parametrize("arg", sorted(ROUND_N, key=str))
def test_round_result_is_numbas(arg):
    assert round_signature((arg,)).return_type == T.int64
    sig = round_signature((arg, T.int32))
    assert sig.return_type == ROUND_N[arg] and sig.args == (ROUND_N[arg], T.int64)


# numba's DivMod cases: (int64, int64), (uint64, uint64), (float32, float32),
# (float64, float64), each giving UniTuple(ty, 2).
@pytest.mark.parametrize("a, b, res", [
    (T.int32, T.int32, T.int64), (T.uint32, T.uint8, T.uint64), (T.int32, T.uint32, T.int64),
    (T.int64, T.uint32, T.int64), (T.uint64, T.int64, T.float64), (T.int8, T.uint64, T.float64),
    (T.uint64, T.uint64, T.uint64), (T.float32, T.float32, T.float32), (T.int16, T.float32, T.float32),
    (T.int32, T.float32, T.float64), (T.float64, T.int64, T.float64), (T.boolean, T.boolean, T.int64),
], ids=str)
def test_divmod_result_is_numbas(a, b, res):
    sig = divmod_signature(a, b)
    assert sig.return_type == Tuple((res, res)) and sig.args == (res, res)


# -- constant folding: refused only where CPython folds literals into one constant --------
def _lit(v):
    return ir.Const(None, v)


def test_literal_operands():
    assert literal_operands(ir.BinOp(None, "*", _lit(2**62), _lit(4)))
    assert literal_operands(ir.BinOp(None, "*", ir.UnaryOp(None, "-", _lit(2**62)), _lit(4)))
    assert not literal_operands(ir.BinOp(None, "*", ir.Const(None, 2**62, "N"), _lit(4)))  # a global
    assert not literal_operands(ir.BinOp(None, "*", ir.Var(None, "v"), _lit(4)))
    tup = ir.TupleExpr(None, [_lit(2**62), _lit(4)])
    assert not literal_operands(ir.BinOp(None, "*", ir.Index(None, tup, _lit(0)), _lit(4)))


def test_fold_of_non_literals_wraps_at_run_time():
    with pytest.raises(ConstantRangeError, match="does not fit in 64 bits"):
        fold_binop("*", -2**62, -2**62)
    assert fold_binop("*", -2**62, -2**62, False) is ir.NOTCONST
    assert fold_binop("*", 3, 5, False) == 15


# -- through type inference ----------------------------------------------------------------
def rtype(func, *argtypes):
    return TypingContext(registry).type_function(func, argtypes).return_type


def call_int(x):
    return int(x)


def call_float(x):
    return float(x)


def call_complex(x):
    return complex(x)


def call_complex2(x, y):
    return complex(x, y)


def call_bool(x):
    return bool(x)


@pytest.mark.parametrize("arg", sorted(NUMBA_INT, key=str))
def test_inferred_int(arg):
    assert rtype(call_int, arg) == NUMBA_INT[arg]


@pytest.mark.parametrize("arg", sorted(NUMBA_FLOAT, key=str))
def test_inferred_float(arg):
    assert rtype(call_float, arg) == NUMBA_FLOAT[arg]


@pytest.mark.parametrize("arg", sorted(NUMBA_COMPLEX, key=str))
def test_inferred_complex(arg):
    assert rtype(call_complex, arg) == NUMBA_COMPLEX[arg]


@pytest.mark.parametrize("a, b, res", [
    (T.float32, T.float32, T.complex64), (T.float32, T.float64, T.complex128), (T.int32, T.int32, T.complex128),
], ids=str)
def test_inferred_complex_two_parts(a, b, res):
    assert rtype(call_complex2, a, b) == res


@pytest.mark.parametrize("arg", NUMBERS, ids=str)
def test_inferred_bool(arg):
    assert rtype(call_bool, arg) == T.boolean


def literals():
    return int(5), int(2**63), int(True), int(2.5), float(7), complex(1.5), np.uint8(300), T.float32(1)


def test_inferred_literal_arguments():
    """Literals are typed as numba types them (int64, uint64 beyond int64, bool,
    float64), then the rules apply."""
    assert rtype(literals) == Tuple((T.int64, T.uint64, T.int64, T.int64, T.float64, T.complex128, T.uint8,
                                     T.float32))


@pytest.mark.parametrize("ctor, res", [
    (np.int8, T.int8), (np.int16, T.int16), (np.int32, T.int32), (np.int64, T.int64), (np.uint8, T.uint8),
    (np.uint16, T.uint16), (np.uint32, T.uint32), (np.uint64, T.uint64), (np.float16, T.float16),
    (np.float32, T.float32), (np.float64, T.float64), (np.bool_, T.boolean), (np.complex64, T.complex64),
    (np.complex128, T.complex128),
], ids=str)
def test_inferred_numpy_constructors(ctor, res):
    def f(x):
        return ctor(x)

    for arg in NUMBERS:
        assert rtype(f, arg) == res, (ctor, arg)


def fuzz_int_of_uint32(v):
    w = max(np.uint64(1), int(np.uint32(v)) << 3)
    return ~w | w


def test_int_keeps_unsigned_so_bit_operations_type():
    """The differential fuzzer's case: numba types this uint64 all the way through."""
    assert rtype(fuzz_int_of_uint32, T.int64) == T.uint64


def tuple_product(a):
    t = (-4611686018427387904, -4611686018427387904, a)
    return t[0] * t[1]


def literal_product(a):
    return -4611686018427387904 * -4611686018427387904 + a


def test_constant_items_multiply_at_run_time():
    """numba computes ``t[0] * t[1]`` at run time (int64, wrapping); only an operation
    of literals CPython folds into one too-big constant is refused."""
    assert rtype(tuple_product, T.int64) == T.int64
    with pytest.raises(TypingError, match="does not fit in 64 bits"):
        rtype(literal_product, T.int64)
