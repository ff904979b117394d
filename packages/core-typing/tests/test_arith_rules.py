"""numba's scalar typing rules, tested as pure functions of types (no AST, no IR).

Expected values follow numba's documented behaviour (the integer typing NBEP:
integer results are at least 64 bits wide and signed if either operand is;
``/`` on integers gives float64; mixed kinds follow NumPy promotion; ``~bool``
is ``bool``; shifts take the left operand's signedness).
"""

from __future__ import annotations

import itertools

import pytest

from cudalite import types as T
from cudalite.core.types import Array, Integer, Signature, Tuple, UniTuple
from cudalite.core.typing.rules.arithmetic import (
    ARITH_OPS, COMPARE_OPS, binop_signature, compare_signature, int_result, promote, unary_signature,
)
from cudalite.core.typing.rules.casts import can_convert, needs_cast, unify

INTS = (T.int8, T.int16, T.int32, T.int64, T.uint8, T.uint16, T.uint32, T.uint64)
FLOATS = (T.float16, T.float32, T.float64)
COMPLEX = (T.complex64, T.complex128)
NUMBERS = (T.boolean,) + INTS + FLOATS + COMPLEX


def result(op, a, b):
    sig = binop_signature(op, a, b)
    return None if sig is None else sig.return_type


# -- integer results ------------------------------------------------------------------
@pytest.mark.parametrize("a, b, expected", [
    (T.int32, T.int32, T.int64),
    (T.int8, T.int8, T.int64),
    (T.uint8, T.uint8, T.uint64),
    (T.uint32, T.uint16, T.uint64),
    (T.int64, T.uint64, T.int64),
    (T.uint64, T.int8, T.int64),
    (T.int16, T.uint32, T.int64),
    (T.boolean, T.boolean, T.int64),
    (T.boolean, T.uint8, T.int64),  # bool counts as a signed int8
    (T.boolean, T.int32, T.int64),
])
@pytest.mark.parametrize("op", ["+", "-", "*", "//", "%", "**"])
def test_int_op_int(op, a, b, expected):
    sig = binop_signature(op, a, b)
    assert sig == Signature(expected, (expected, expected))
    # commutative in its result type
    assert result(op, b, a) == expected


def test_int_result_is_at_least_64_bits_and_signed_if_any_signed():
    assert int_result(T.int8) == T.int64
    assert int_result(T.uint8) == T.uint64
    assert int_result(T.uint64, T.uint32) == T.uint64
    assert int_result(T.uint64, T.int32) == T.int64
    assert int_result(T.boolean) == T.int64
    for a, b in itertools.product(INTS, INTS):
        r = int_result(a, b)
        assert r.bitwidth == 64
        assert r.signed == (a.signed or b.signed)


@pytest.mark.parametrize("a, b", [(T.int32, T.int32), (T.uint8, T.int64), (T.boolean, T.boolean),
                                  (T.uint64, T.uint64)])
def test_true_division_of_integers_is_float64(a, b):
    assert binop_signature("/", a, b) == Signature(T.float64, (T.float64, T.float64))


# -- floats and mixed kinds (NumPy promotion) -------------------------------------------
@pytest.mark.parametrize("op, a, b, expected", [
    ("+", T.float32, T.float32, T.float32),
    ("+", T.int16, T.float32, T.float32),
    ("+", T.uint8, T.float32, T.float32),
    ("+", T.int32, T.float32, T.float64),
    ("+", T.int64, T.float32, T.float64),
    ("*", T.float32, T.int64, T.float64),  # float32 * 2 is float64 in numba: literals are int64
    ("-", T.float64, T.float32, T.float64),
    ("+", T.float16, T.float16, T.float16),
    ("*", T.float16, T.float32, T.float32),
    ("+", T.complex64, T.float64, T.complex128),
    ("+", T.complex64, T.float32, T.complex64),
    ("*", T.complex64, T.complex128, T.complex128),
    ("+", T.int64, T.complex64, T.complex128),
    ("/", T.float32, T.float32, T.float32),
    ("/", T.float32, T.int32, T.float64),
    ("/", T.complex64, T.complex64, T.complex64),
    ("//", T.float32, T.float32, T.float32),
    ("%", T.float64, T.int64, T.float64),
    ("+", T.boolean, T.float32, T.float32),
])
def test_mixed_and_float_results(op, a, b, expected):
    sig = binop_signature(op, a, b)
    assert sig is not None
    assert sig.return_type == expected
    assert sig.args == (expected, expected)


def test_float_power_integer_keeps_the_float_type():
    # numba: float32 ** int stays single precision (no float64 pow)
    assert binop_signature("**", T.float32, T.int64) == Signature(T.float32, (T.float32, T.int64))
    assert binop_signature("**", T.float32, T.int32).return_type == T.float32
    assert binop_signature("**", T.float64, T.uint64).return_type == T.float64
    assert binop_signature("**", T.int64, T.float32).return_type == T.float64
    assert binop_signature("**", T.float32, T.float32).return_type == T.float32
    # no complex special case: int32 -> complex64 is unsafe, so numba picks complex128
    assert binop_signature("**", T.complex64, T.int32).return_type == T.complex128
    assert binop_signature("**", T.complex64, T.int16).return_type == T.complex64
    assert binop_signature("**", T.int32, T.int32).return_type == T.int64


@pytest.mark.parametrize("op", ["//", "%"])
@pytest.mark.parametrize("a, b", [(T.complex64, T.float64), (T.complex128, T.complex128),
                                  (T.int32, T.complex64)])
def test_floor_division_and_modulo_reject_complex(op, a, b):
    assert binop_signature(op, a, b) is None


# -- bitwise and shifts -------------------------------------------------------------------
@pytest.mark.parametrize("op", ["&", "|", "^"])
def test_bitwise_on_booleans_is_boolean(op):
    assert binop_signature(op, T.boolean, T.boolean) == Signature(T.boolean, (T.boolean, T.boolean))
    assert result(op, T.boolean, T.int32) == T.int64
    assert result(op, T.uint8, T.uint32) == T.uint64
    assert result(op, T.int8, T.uint64) == T.int64


@pytest.mark.parametrize("op", ["&", "|", "^", "<<", ">>"])
@pytest.mark.parametrize("a, b", [(T.float32, T.int32), (T.int32, T.float64), (T.complex64, T.int64),
                                  (T.float16, T.float16)])
def test_bitwise_rejects_non_integers(op, a, b):
    assert binop_signature(op, a, b) is None


@pytest.mark.parametrize("op", ["<<", ">>"])
def test_shift_signedness_follows_the_left_operand(op):
    # uint32 >> 1 must be a logical shift: the literal 1 (int64) does not make it signed
    assert binop_signature(op, T.uint32, T.int64) == Signature(T.uint64, (T.uint64, T.uint64))
    assert result(op, T.uint8, T.int32) == T.uint64
    assert result(op, T.int32, T.uint64) == T.int64
    assert result(op, T.int64, T.int64) == T.int64
    assert result(op, T.boolean, T.int64) == T.int64


def test_matmul_and_unknown_operators_are_not_typed():
    assert binop_signature("@", T.int32, T.int32) is None
    assert binop_signature("<>", T.int32, T.int32) is None


@pytest.mark.parametrize("op", ARITH_OPS)
def test_non_numbers_are_rejected(op):
    tup = UniTuple(T.int64, 2)
    arr = Array(T.float32, 1)
    assert binop_signature(op, tup, T.float64) is None
    assert binop_signature(op, T.float64, tup) is None
    assert binop_signature(op, arr, T.int32) is None
    assert binop_signature(op, T.none, T.int32) is None


def test_every_arithmetic_op_types_every_integer_pair_as_integer():
    for op, a, b in itertools.product(["+", "-", "*", "//", "%", "**", "&", "|", "^"], INTS, INTS):
        r = result(op, a, b)
        assert isinstance(r, Integer), (op, a, b, r)
        assert r.bitwidth == 64


def test_result_types_are_symmetric_for_commutative_ops():
    for op in ("+", "*", "&", "|", "^"):
        for a, b in itertools.product(NUMBERS, NUMBERS):
            assert result(op, a, b) == result(op, b, a), (op, a, b)


# -- unary ----------------------------------------------------------------------------------
@pytest.mark.parametrize("op, a, expected", [
    ("-", T.int32, T.int64),
    ("-", T.uint8, T.uint64),
    ("+", T.int16, T.int64),
    ("-", T.boolean, T.int64),
    ("-", T.float32, T.float32),
    ("-", T.float16, T.float16),
    ("-", T.complex64, T.complex64),
    ("~", T.int32, T.int64),
    ("~", T.uint16, T.uint64),
    ("~", T.boolean, T.boolean),  # numba follows NumPy's invert: ~True is False
    ("not", T.float64, T.boolean),
    ("not", T.int8, T.boolean),
])
def test_unary(op, a, expected):
    sig = unary_signature(op, a)
    assert sig is not None and sig.return_type == expected


@pytest.mark.parametrize("a", [T.float32, T.float64, T.complex128])
def test_invert_rejects_non_integers(a):
    assert unary_signature("~", a) is None


def test_unary_minus_rejects_tuples():
    assert unary_signature("-", UniTuple(T.int64, 2)) is None


# -- comparisons ------------------------------------------------------------------------------
@pytest.mark.parametrize("op", COMPARE_OPS)
@pytest.mark.parametrize("a, b, common", [
    (T.int32, T.int32, T.int64),
    (T.int32, T.float32, T.float64),
    (T.int16, T.float32, T.float32),
    (T.float32, T.float32, T.float32),
    (T.uint8, T.int8, T.int64),
    (T.boolean, T.boolean, T.boolean),
    (T.float16, T.float64, T.float64),
    # numba-cuda's PTX: a uint64 against a signed integer compares as float64 (cvt.rn.f64.u64,
    # setp.gt.f64), never as int64 (which says uint64(2**63) < 0); a boolean takes the
    # unsigned side (setp.lt.u64); uint32 with int32 is exact in int64
    (T.uint64, T.int64, T.float64),
    (T.int32, T.uint64, T.float64),
    (T.uint64, T.int8, T.float64),
    (T.uint64, T.boolean, T.uint64),
    (T.boolean, T.uint32, T.uint64),
    (T.uint64, T.uint32, T.uint64),
    (T.uint32, T.int32, T.int64),
    (T.int64, T.uint32, T.int64),
])
def test_comparisons_give_bool_with_a_common_operand_type(op, a, b, common):
    assert compare_signature(op, a, b) == Signature(T.boolean, (common, common))


def test_complex_supports_only_equality():
    assert compare_signature("==", T.complex64, T.complex64) == Signature(
        T.boolean, (T.complex64, T.complex64))
    assert compare_signature("!=", T.complex64, T.float64).args == (T.complex128, T.complex128)
    for op in ("<", "<=", ">", ">="):
        assert compare_signature(op, T.complex64, T.complex64) is None


def test_comparisons_reject_non_numbers():
    assert compare_signature("<", UniTuple(T.int64, 2), T.int64) is None
    assert compare_signature("==", T.none, T.int64) is None


# -- promote / unify / can_convert ------------------------------------------------------------
def test_promote_is_numpy_promotion():
    assert promote(T.int16, T.float32) == T.float32
    assert promote(T.int32, T.float32) == T.float64
    assert promote(T.int64, T.uint64) == T.float64
    assert promote(T.uint8, T.int8) == T.int16
    assert promote(T.float32, T.complex64) == T.complex64
    assert promote(T.float64, T.complex64) == T.complex128
    assert promote(T.float16, T.float16) == T.float16


def test_unify_numbers():
    # x = 0 then x += float32 value: int64 + float32 -> float64, and unify(int64, float64)
    assert unify(T.int64, T.float64) == T.float64
    assert unify(T.int32, T.int64) == T.int64
    assert unify(T.boolean, T.int32) == T.int32
    assert unify(T.int8, T.boolean) == T.int8
    assert unify(T.float32, T.float32) == T.float32
    assert unify(T.int64, T.uint64) == T.float64  # numba unifies numbers with NumPy's rules
    assert unify(T.float32, T.complex64) == T.complex64


def test_unify_tuples_and_arrays():
    assert unify(Tuple((T.int32, T.float32)), Tuple((T.int64, T.float32))) == Tuple((T.int64, T.float32))
    assert unify(UniTuple(T.int32, 2), UniTuple(T.int32, 3)) is None
    assert unify(Tuple((T.int32, UniTuple(T.int8, 2))), Tuple((T.int32, T.int8))) is None
    c = Array(T.float32, 2, "C")
    f = Array(T.float32, 2, "F")
    assert unify(c, c) == c
    assert unify(c, f) == Array(T.float32, 2, "A")
    assert unify(c, Array(T.float32, 2, "C", readonly=True)).readonly
    assert unify(c, Array(T.float64, 2, "C")) is None
    assert unify(c, Array(T.float32, 1, "C")) is None


def test_unify_rejects_incompatible_kinds():
    assert unify(T.int64, UniTuple(T.int64, 2)) is None
    assert unify(Array(T.float32, 1), T.float32) is None
    assert unify(T.none, T.int64) is None


def test_can_convert():
    assert can_convert(T.int32, T.float32)
    assert can_convert(T.float64, T.int8)  # unsafe but implicit, as numba allows for arguments
    assert can_convert(T.boolean, T.float64)
    assert can_convert(T.float32, T.complex64)
    assert not can_convert(T.complex64, T.float64)
    assert not can_convert(T.complex128, T.int64)
    assert can_convert(UniTuple(T.int32, 2), Tuple((T.float32, T.int64)))
    assert not can_convert(UniTuple(T.int32, 2), UniTuple(T.int32, 3))
    assert not can_convert(T.int32, UniTuple(T.int32, 1))


def test_can_convert_arrays_respects_layout_and_readonly():
    c = Array(T.float32, 2, "C")
    a = Array(T.float32, 2, "A")
    ro = Array(T.float32, 2, "C", readonly=True)
    assert can_convert(c, a)
    assert not can_convert(a, c)
    assert not can_convert(ro, c)  # never drop read-only
    assert can_convert(c, Array(T.float32, 2, "A", readonly=True))
    assert not can_convert(c, Array(T.float64, 2, "C"))
    assert not can_convert(c, Array(T.float32, 3, "C"))


def test_can_convert_pointers():
    assert can_convert(T.CPointer(T.float32), T.CPointer(T.float32))
    assert not can_convert(T.CPointer(T.float32), T.CPointer(T.float64))
    assert not can_convert(T.CPointer(T.float32), T.int64)


def test_needs_cast():
    assert not needs_cast(T.int32, T.int32)
    assert needs_cast(T.int32, T.int64)


def test_promote_matches_numpy_for_every_pair():
    import numpy as np

    from cudalite.core.types import dtype_of, number_types, type_from_dtype
    from cudalite.core.typing.rules.arithmetic import promote

    alltypes = (T.boolean,) + tuple(number_types)
    for a in alltypes:
        for b in alltypes:
            expected = type_from_dtype(np.promote_types(dtype_of(a), dtype_of(b)))
            assert promote(a, b) == expected, (a, b)
