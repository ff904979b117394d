"""Type inference through ``TypingContext(registry).type_function(pyfunc, argtypes)``."""

from __future__ import annotations

import numpy as np
import pytest

import cudalite.core.typing  # noqa: F401  (registers the built-in typing rules)
from cudalite import types as T
from cudalite.core import ir
from cudalite.core.errors import TypingError
from cudalite.core.registry import registry
from cudalite.core.types import Array, Tuple, UniTuple
from cudalite.core.typing import CallKind, Comparison, TypingContext


def typed(func, *argtypes, return_type=None):
    return TypingContext(registry).type_function(func, argtypes, return_type)


def rtype(func, *argtypes):
    return typed(func, *argtypes).return_type


# -- return types and variables ----------------------------------------------------------------
def test_return_type_is_inferred():
    def add(x, y):
        return x + y

    assert rtype(add, T.int32, T.int32) == T.int64
    assert rtype(add, T.float32, T.float32) == T.float32
    assert rtype(add, T.float32, T.int64) == T.float64


def test_no_return_is_void():
    def proc(a):
        a[0] = 1

    tf = typed(proc, T.float32[:])
    assert tf.return_type == T.void


def test_return_types_unify():
    def f(x):
        if x > 0:
            return 1
        return 2.5

    assert rtype(f, T.int32) == T.float64


def test_declared_return_type_is_kept():
    def f(x):
        return x * 2

    tf = typed(f, T.int32, return_type=T.int32)
    assert tf.return_type == T.int32


def test_variable_unification_across_assignments():
    def f(v):
        x = 0
        x += v
        return x

    tf = typed(f, T.float32)
    # each assignment is a version with its own type (numba): x = 0 is int64, x += v is float64
    assert tf.vartypes["x"] == T.int64 and tf.vartypes["x.1"] == T.float64
    assert tf.return_type == T.float64


def test_accumulating_float32_array_into_int_literal_gives_float64():
    def total(a):
        s = 0
        for i in range(a.shape[0]):
            s += a[i]
        return s

    tf = typed(total, T.float32[:])
    # s = 0 (int64), the loop's merge of s (float64), s += a[i] (float64)
    assert tf.vartypes == {"a": Array(T.float32, 1), "s": T.int64, "s.1": T.float64, "i": T.int64,
                           "s.2": T.float64}
    assert tf.return_type == T.float64


def test_float32_accumulator_stays_float32():
    def total(a):
        s = T.float32(0)
        for i in range(len(a)):
            s += a[i]
        return s

    assert rtype(total, T.float32[::1]) == T.float32


def test_loops_while_break_continue():
    def f(n):
        i = 0
        acc = 0
        while i < n:
            i += 1
            if i % 2 == 0:
                continue
            if i > 100:
                break
            acc += i
        return acc

    tf = typed(f, T.int32)
    assert tf.vartypes["i"] == T.int64
    assert tf.return_type == T.int64


def test_range_loop_variable_type_and_use_after_loop():
    def f(a, b):
        for i in range(a, b, 2):
            pass
        return i

    tf = typed(f, T.int32, T.int64)
    assert tf.vartypes["i"] == T.int64
    assert tf.return_type == T.int64
    loop = tf.fir.body[0]
    assert isinstance(loop, ir.ForRange)


def test_range_of_uint64_stays_unsigned():
    def f(n):
        for i in range(n):
            pass
        return i

    assert typed(f, T.uint64).vartypes["i"] == T.uint64


def test_type_changes_propagate_through_loops_to_a_fixpoint():
    def f(n):
        a = 0
        b = 0
        for _ in range(n):
            b = a
            a = 0.5
        return b

    tf = typed(f, T.int32)
    # the loop-header merges: a (0, then 0.5) and b (0, then the merged a) are float64
    assert tf.vartypes["a"] == T.int64 and tf.vartypes["a.1"] == T.float64 and tf.vartypes["a.2"] == T.float64
    assert tf.vartypes["b"] == T.int64 and tf.vartypes["b.1"] == T.float64 and tf.vartypes["b.2"] == T.float64
    assert tf.return_type == T.float64


# -- tuples -----------------------------------------------------------------------------------------
def test_heterogeneous_tuples_constant_index_and_unpacking():
    def f(a, b):
        t = (a, b, 1.5)
        x, y, z = t
        return t[0], t[-1], y, z

    tf = typed(f, T.int32, T.float32)
    assert tf.vartypes["t"] == Tuple((T.int32, T.float32, T.float64))
    assert tf.vartypes["y"] == T.float32
    assert tf.return_type == Tuple((T.int32, T.float64, T.float32, T.float64))


def test_tuple_index_through_a_constant_local():
    def f(x):
        i = 2
        t = (1, 2.0, x)
        return t[i]

    assert rtype(f, T.int16) == T.int16


def test_uniform_tuple_indexed_by_a_variable():
    def f(t, i):
        return t[i]

    assert rtype(f, UniTuple(T.int32, 3), T.int64) == T.int32
    with pytest.raises(TypingError, match=r"heterogeneous tuple \(Tuple\(int32, float32\)\)"):
        typed(f, Tuple((T.int32, T.float32)), T.int64)


def test_tuple_index_out_of_range():
    def f(t):
        return t[3]

    with pytest.raises(TypingError, match="tuple index 3 is out of range for a tuple of length 3"):
        typed(f, UniTuple(T.int32, 3))


def test_tuple_returned_from_a_device_function():
    def pair(x):
        return x, x * 2

    def caller(x):
        a, b = pair(x)
        return a + b

    tf = typed(caller, T.float32)
    assert tf.vartypes["a"] == T.float32
    assert tf.vartypes["b"] == T.float64
    assert tf.return_type == T.float64
    (callee,) = tf.callees
    assert callee.return_type == Tuple((T.float32, T.float64))


def test_tuple_concatenation_and_equality():
    def f(a, b):
        t = (a, b)
        return t == (1, 2), t + (3,)

    assert rtype(f, T.int32, T.int32) == Tuple((T.boolean, Tuple((T.int32, T.int32, T.int64))))


def test_unpacking_arity_mismatch():
    def f(x):
        a, b = (x, x, x)
        return a

    with pytest.raises(TypingError, match=r"cannot unpack UniTuple\(int32 x 3\) into 2 target"):
        typed(f, T.int32)


# -- calls to other Python functions ---------------------------------------------------------------
def helper(x, y):
    return x * y


def test_nested_device_function_calls():
    def inner(x):
        return x + 1

    def middle(x):
        return inner(x) * 2.0

    def outer(x):
        return middle(x) + helper(x, x)

    tf = typed(outer, T.float32)
    assert tf.return_type == T.float64
    (m, h) = tf.callees
    assert m.fir.name == "middle" and m.argtypes == (T.float32,)
    assert h.fir.name == "helper" and h.return_type == T.float32
    assert m.callees[0].fir.name == "inner"


def test_keyword_arguments_to_python_functions():
    def f(a):
        return helper(y=a, x=1.0) + helper(a, y=2)

    tf = typed(f, T.int32)
    sigs = sorted(str(c.argtypes) for c in tf.callees)
    assert sigs == ["(float64, int32)", "(int32, int64)"]
    assert tf.return_type == T.float64


def test_keyword_argument_errors():
    def dup(a):
        return helper(a, x=a)

    def unknown(a):
        return helper(a, z=a)

    with pytest.raises(TypingError, match="multiple values for argument 'x'"):
        typed(dup, T.int32)
    with pytest.raises(TypingError, match="unexpected keyword argument 'z'"):
        typed(unknown, T.int32)


def test_same_callee_with_two_signatures_is_typed_twice():
    def f(a, b):
        return helper(a, a), helper(b, b)

    tf = typed(f, T.int32, T.float32)
    assert [c.argtypes for c in tf.callees] == [(T.int32, T.int32), (T.float32, T.float32)]
    assert tf.return_type == Tuple((T.int64, T.float32))


def rec(n):
    if n <= 0:
        return 0
    return rec(n - 1) + 1


def ping(n):
    return pong(n)


def pong(n):
    return ping(n)


def test_recursion_typed_by_its_base_case():
    assert typed(rec, T.int64).return_type == T.int64
    with pytest.raises(TypingError, match=r"cannot infer the return type of the recursive function ping\(int64\)"
                       ) as info:
        typed(ping, T.int64)  # no return path that does not recurse
    assert "while typing the call to pong(int64)" in str(info.value)


def test_wrong_argument_count_to_a_device_function():
    def f(x):
        return helper(x)

    with pytest.raises(TypingError, match=r"helper\(\) takes 2 argument\(s\) but 1 were given"):
        typed(f, T.int32)


# -- globals and closures are frozen constants --------------------------------------------------------
G_INT = 3
G_FLOAT = 2.5
G_TUPLE = (1, 2.0)
G_NP32 = np.float32(1.5)
G_U8 = np.uint8(7)
G_ARRAY = np.arange(12, dtype=np.float32).reshape(3, 4)
G_LIST = [1, 2]


def test_globals_are_typed_as_constants():
    def f(x):
        return x + G_INT, x + G_FLOAT, G_TUPLE[1], x + G_NP32, G_U8

    tf = typed(f, T.int32)
    assert tf.return_type == Tuple((T.int64, T.float64, T.float64, T.float64, T.uint8))
    consts = [v for v in tf.consts.values() if isinstance(v, tuple)]
    assert (1, 2.0) in consts


def test_float32_numpy_scalar_keeps_single_precision():
    def f(x):
        return x * G_NP32

    assert rtype(f, T.float32) == T.float32


def test_globals_are_frozen_at_compile_time():
    global G_INT

    def f(x):
        return x + G_INT

    ctx = TypingContext(registry)
    tf = ctx.type_function(f, (T.int32,))
    old = G_INT
    try:
        G_INT = 2.5  # changing the global after the IR was built does not change the typing
        assert ctx.type_function(f, (T.int32,)).return_type == T.int64
        # a fresh compilation sees the new value
        assert rtype(f, T.int32) == T.float64
    finally:
        G_INT = old
    assert tf.return_type == T.int64


def test_closure_variables_are_constants():
    def make(k):
        def g(x):
            return x + k
        return g

    assert rtype(make(2), T.int32) == T.int64
    assert rtype(make(np.float32(2)), T.float32) == T.float32
    assert rtype(make(1.5), T.int32) == T.float64
    with pytest.raises(TypingError, match=r"unsupported operand types for \+: int32 and UniTuple\(int64 x 2\)"):
        typed(make((1, 2)), T.int32)


def test_closure_over_a_tuple_constant_indexed():
    k = (1, 2.5, np.int16(3))

    def g(i):
        return k[0] + i, k[1], k[2]

    assert rtype(g, T.int32) == Tuple((T.int64, T.float64, T.int16))


def test_global_numpy_array_is_read_only():
    def load(i, j):
        return G_ARRAY[i, j], G_ARRAY.shape, G_ARRAY[i]

    tf = typed(load, T.int64, T.int64)
    ga = Array(T.float32, 2, "C", readonly=True)
    assert tf.return_type == Tuple((T.float32, UniTuple(T.int64, 2), Array(T.float32, 1, "C", readonly=True)))
    assert ga.readonly

    def store(i):
        G_ARRAY[i, 0] = 1.0

    with pytest.raises(TypingError, match=r"cannot store into a read-only array \(readonly array\(float32, 2d, C\)\)"):
        typed(store, T.int64)

    def augmented(i):
        G_ARRAY[i, 0] += 1.0

    with pytest.raises(TypingError, match="read-only"):
        typed(augmented, T.int64)


def test_global_list_is_a_clear_error():
    def f(i):
        return G_LIST[i]

    with pytest.raises(TypingError, match=r"'G_LIST' = \[1, 2\] \(list\) cannot be used in device code"):
        typed(f, T.int64)


def test_unknown_global_name():
    def f(x):
        return x + no_such_name  # noqa: F821

    with pytest.raises(TypingError, match="name 'no_such_name' is not defined"):
        typed(f, T.int32)


def test_builtins_can_be_shadowed_by_locals_for_range():
    def f(n):
        range = 3  # noqa: F841
        return n

    assert rtype(f, T.int32) == T.int32


# -- arrays ---------------------------------------------------------------------------------------------
def test_array_attributes_len_and_negative_index():
    def f(a):
        return a.shape, a.size, a.ndim, a.strides, len(a), a[-1, 0], a[1]

    tf = typed(f, T.float64[:, ::1])
    assert tf.return_type == Tuple((
        UniTuple(T.int64, 2), T.int64, T.int64, UniTuple(T.int64, 2), T.int64, T.float64,
        Array(T.float64, 1, "C"),
    ))


@pytest.mark.parametrize("layout, view_layout", [("C", "C"), ("F", "A"), ("A", "A")])
def test_partial_index_gives_a_view(layout, view_layout):
    def f(a, i):
        return a[i]

    assert rtype(f, Array(T.int32, 3, layout), T.int64) == Array(T.int32, 2, view_layout)


def test_array_stores_and_tuple_indices():
    def f(a, i, j):
        a[i, j] = a[j, i] + 1
        idx = (i, j)
        a[idx] = 0
        return a[idx]

    tf = typed(f, T.float32[:, :], T.int32, T.int64)
    assert tf.return_type == T.float32


def test_array_index_errors():
    def too_many(a):
        return a[0, 0, 0]

    def float_index(a):
        return a[1.0]

    def bad_store(a):
        a[0] = (1, 2)

    def view_store(a):
        a[0] = (1.0, 2.0)

    with pytest.raises(TypingError, match=r"too many indices \(3\) for a 2-d array"):
        typed(too_many, T.float32[:, :])
    with pytest.raises(TypingError, match="not float64"):
        typed(float_index, T.float32[:])
    with pytest.raises(TypingError, match=r"cannot store a UniTuple\(int64 x 2\) into an array of float32"):
        typed(bad_store, T.float32[:])
    with pytest.raises(TypingError, match=r"cannot store a UniTuple\(float64 x 2\) into an array of float32"):
        typed(view_store, T.float32[:, :])


def test_array_has_no_unknown_attribute():
    def f(a):
        return a.foo

    with pytest.raises(TypingError, match=r"array\(float32, 1d, A\) has no attribute 'foo'"):
        typed(f, T.float32[:])


# -- expressions -----------------------------------------------------------------------------------------
def test_chained_comparisons_conditional_expressions_and_boolean_ops():
    def f(a, b, c):
        return a < b <= c, (a if a > 0 else b), (a and b), (a or c), not a

    tf = typed(f, T.int32, T.int64, T.float32)
    assert tf.return_type == Tuple((T.boolean, T.int64, T.int64, T.float64, T.boolean))
    cmp = tf.fir.body[0].value.items[0]
    assert isinstance(cmp, ir.Compare) and cmp.ops == ["<", "<="]
    info = tf.calls[cmp]
    assert info.kind is CallKind.COMPARE
    (l1, l2) = info.payload
    assert (l1.op, l1.sig.args, l1.constant) == ("<", (T.int64, T.int64), None)
    assert (l2.op, l2.sig.args, l2.constant) == ("<=", (T.float64, T.float64), None)


def test_tuple_and_none_comparisons_are_decided_by_typing():
    def f(t, u, v, x):
        return t == u, t != v, x is None, x is not None

    tf = typed(f, Tuple((T.int32, Tuple((T.float32, T.int8)))), Tuple((T.int64, Tuple((T.float64, T.int8)))),
               UniTuple(T.int32, 3), T.int32)
    eq, ne, is_none, is_not_none = (tf.calls[c].payload[0] for c in tf.fir.body[0].value.items)
    assert eq.is_tuple and eq.constant is None
    first, nested = eq.items
    assert first == Comparison("==", T.boolean(T.int64, T.int64))
    assert nested.is_tuple and [i.sig.args for i in nested.items] == [(T.float64, T.float64), (T.int64, T.int64)]
    assert (ne.op, ne.constant) == ("!=", True)  # lengths 2 and 3: never equal
    assert (is_none.constant, is_not_none.constant) == (False, True)  # an int32 is never None


def test_conditional_expression_branches_must_unify():
    def f(c, x):
        return x if c else (1, 2)

    with pytest.raises(TypingError, match=r"types int32 and UniTuple\(int64 x 2\) that do not unify"):
        typed(f, T.boolean, T.int32)


def test_is_none_comparisons():
    def f(x):
        return x is None, x is not None

    assert rtype(f, T.int32) == UniTuple(T.boolean, 2)


def test_complex_ordering_is_an_error():
    def f(a, b):
        return a < b

    with pytest.raises(TypingError, match="cannot compare complex64 < complex64"):
        typed(f, T.complex64, T.complex64)


def test_casts_with_type_objects_and_numpy_classes():
    def f(x):
        return T.float32(x), np.float64(x), np.int8(x)

    assert rtype(f, T.int64) == Tuple((T.float32, T.float64, T.int8))


def test_shift_of_unsigned_keeps_unsigned():
    def f(x):
        return x >> 1, ~True

    assert rtype(f, T.uint32) == Tuple((T.uint64, T.boolean))


# -- lambdas -----------------------------------------------------------------------------------------------
SCALE = lambda x: x * 2.0  # noqa: E731
INC, HALVE = (lambda x: x + 1), (lambda x: x / 2)  # noqa: E731


def test_lambda_assigned_to_a_global():
    assert rtype(SCALE, T.float32) == T.float64
    assert typed(SCALE, T.float32).fir.name == "<lambda>"


def test_two_lambdas_on_one_line_are_told_apart():
    assert rtype(INC, T.int32) == T.int64
    assert rtype(HALVE, T.int32) == T.float64


def test_device_function_calling_a_global_lambda():
    def f(x):
        return SCALE(x) + INC(x)

    assert rtype(f, T.int32) == T.float64


# -- unassigned / fall-through ----------------------------------------------------------------------------
def test_value_on_some_paths_and_none_on_others():
    def bare(x):
        if x > 0:
            return 1
        return

    def falls_off(x):
        if x > 0:
            return 1

    with pytest.raises(TypingError, match="returns a value on some paths and nothing on others"):
        typed(bare, T.int32)
    with pytest.raises(TypingError, match="returns int64 on some paths but can reach its end"):
        typed(falls_off, T.int32)
    with pytest.raises(TypingError, match="declared to return int32 can reach its end"):
        typed(falls_off, T.int32, return_type=T.int32)


def test_exhaustive_returns_are_not_fall_through():
    def if_else(x):
        if x > 0:
            return 1
        else:
            return 2

    def loop_forever(x):
        while True:
            if x > 10:
                return x
            x += 1

    def raises(x):
        if x > 0:
            return x
        raise ValueError("negative")

    assert rtype(if_else, T.int32) == T.int64
    assert rtype(loop_forever, T.int32) == T.int64
    assert rtype(raises, T.int32) == T.int32


def test_while_true_with_break_can_fall_through():
    def f(x):
        while True:
            if x > 10:
                return x
            break

    with pytest.raises(TypingError, match="can reach its end"):
        typed(f, T.int32)


def test_results_are_cached_per_signature():
    ctx = TypingContext(registry)
    a = ctx.type_function(helper, (T.int32, T.int32))
    assert ctx.type_function(helper, (T.int32, T.int32)) is a
    assert ctx.type_function(helper, (T.float32, T.int32)) is not a
    assert ctx.function_ir(helper) is a.fir  # one IR serves every signature


def test_range_loop_variable_is_64_bit_and_unsigned_only_for_unsigned_arguments():
    def f(a, b):
        for i in range(a, b):
            pass
        return i

    def down(a, b):
        for i in range(a, b, -1):
            pass
        return i

    assert typed(f, T.uint32, T.uint32).vartypes["i"] == T.uint64
    assert typed(f, T.int8, T.int8).vartypes["i"] == T.int64  # cannot wrap before reaching stop
    assert typed(f, T.int64, T.uint64).vartypes["i"] == T.int64  # not float64 (their unification)
    assert typed(f, T.boolean, T.int32).vartypes["i"] == T.int64
    assert typed(down, T.uint32, T.uint32).vartypes["i"] == T.int64  # a negative step


def test_range_loop_variable_merged_with_a_float_after_the_loop():
    def f(n):
        i = 0.5
        for i in range(n):
            pass
        return i

    tf = typed(f, T.int32)  # numba: the loop's i is int64, after the loop 0.5 or the last i: float64
    assert tf.vartypes["i"] == T.float64 and tf.vartypes["i.2"] == T.int64 and tf.return_type == T.float64


def test_range_rejects_float_arguments():
    def f(x):
        for i in range(x):
            pass

    with pytest.raises(TypingError, match="range\\(\\) arguments must be integers, not float32"):
        typed(f, T.float32)


def test_local_constant_tuple_indexes_a_heterogeneous_tuple():
    def f(x):
        idx = (2, 0)
        t = (x, 1.5, np.int8(3))
        return t[idx[0]], t[idx[1]]

    tf = typed(f, T.float32)
    assert tf.fir.constants["idx"] == (2, 0)
    assert tf.return_type == Tuple((T.int8, T.float32))


def test_raise_of_an_exception_instance_is_typed():
    def f(x):
        if x < 0:
            raise ValueError("negative", x)
        return x

    assert rtype(f, T.int32) == T.int32


@pytest.mark.parametrize("expr,ndim,layout", [
    ("a[:]", 2, "C"), ("a[1]", 1, "C"), ("a[1, :]", 1, "C"), ("a[:, 1]", 1, "A"),
    ("a[1:3]", 2, "A"), ("a[::2, :]", 2, "A"), ("a[i]", 1, "C"),
])
def test_slicing_gives_views_with_numba_layouts(expr, ndim, layout):
    import linecache

    name = f"<slice-typing {expr}>"
    text = f"def f(a, i):\n    return {expr}\n"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    ns = {}
    exec(compile(text, name, "exec"), ns)
    tf = typed(ns["f"], T.float32[:, ::1], T.int64)
    assert tf.return_type == Array(T.float32, ndim, layout)


def test_float_slice_bounds_are_errors():
    def floaty(a, x):
        return a[x:]

    with pytest.raises(TypingError, match="slice indices must be integers, not float64"):
        typed(floaty, T.float32[::1], T.float64)


def _scaled(x, factor=2.0, offset=1):
    return x * factor + offset


def test_default_and_keyword_arguments_of_device_functions():
    def k(a):
        return _scaled(a) + _scaled(a, 3.0) + _scaled(a, offset=5) + _scaled(offset=2, x=a, factor=1.0)

    tf = typed(k, T.float32)
    assert tf.return_type == T.float64
    callee = tf.callees[0]
    assert callee.argtypes == (T.float32, T.float64, T.int64)

    def missing(a):
        return _scaled()

    with pytest.raises(TypingError, match=r"_scaled\(\) takes 3 argument\(s\) but 0 were given"):
        typed(missing, T.float32)


def test_numpy_scalar_math_follows_numpy_types():
    def f(x, n):
        return np.sqrt(x), np.floor(x), np.sqrt(n), np.maximum(x, n), np.isnan(x), np.abs(n)

    tf = typed(f, T.float32, T.int32)
    assert tf.return_type == Tuple((T.float32, T.float32, T.float64, T.float64, T.boolean, T.int32))


def test_for_loops_over_arrays_tuples_enumerate_and_zip():
    def f(a, m):
        s = 0.0
        for i, (x, row) in enumerate(zip(a, m)):
            s += i * x + row[0]
        for v in (1, 2.5):
            s += v
        return s

    tf = typed(f, T.float32[::1], T.float64[:, ::1])
    assert tf.return_type == T.float64
    assert tf.vartypes["i"] == T.int64 and tf.vartypes["x"] == T.float32
    assert tf.vartypes["row"] == Array(T.float64, 1, "C") and tf.vartypes["v"] == T.float64

    def bad(a):
        for v in (1, (2, 3)):
            a[0] = v

    with pytest.raises(TypingError, match="do not unify"):
        typed(bad, T.float32[::1])


def test_slice_stores_type_check_shapes_and_dtypes():
    def ok(a, m, src):
        a[1:3] = 0
        m[1] = src
        m[:, 0] = 7.5

    typed(ok, T.float32[::1], T.float64[:, ::1], T.int32[::1])

    def bad(m, cube):
        m[1] = cube

    with pytest.raises(TypingError, match="into a 1-d view"):
        typed(bad, T.float64[:, ::1], T.float64[:, :, ::1])
