"""Typing per definition (numba's SSA typing): every assignment is a version of the
variable with its own type; different versions are unified only where control flow
merges them *and* a use after the merge needs the merged value.

Each table entry is a function, its argument types, the return type numba gives
it, and where the program has no merge of different types the return type agrees
with the type of CPython's result for sample arguments (int -> int64, float ->
float64, bool -> bool).  The GPU suite runs the same programs and compares values
(tests-integration/gpu/test_gpu_ssa_typing.py).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cudalite.core.typing  # noqa: F401
from cudalite import types as T
from cudalite.core import ir
from cudalite.core.errors import TypingError
from cudalite.core.registry import registry
from cudalite.core.typing import TypingContext


def typed(func, *argtypes, return_type=None):
    return TypingContext(registry).type_function(func, argtypes, return_type)


# -- programs -------------------------------------------------------------------------------
def redefined_after_use(x):
    v = x
    v <<= 7
    w = v // 3  # integer floor division: v is still an int here
    v = 2.0
    return w + v  # int64 + float64


def int_then_float_in_branches(c):
    if c > 0:
        v = 1
    else:
        v = 1.5
    return v  # merged: float64 (CPython: int or float)


def per_path_types_without_a_merged_use(c):
    if c > 0:
        v = 7
        r = v // 2  # int arithmetic on this path
    else:
        v = (1.5, 2.5)
        r = v[0]
    return r  # r merges int64 and float64; v is never used after the join


def int32_and_int64(a, b):
    if a > 0:
        v = a  # int32
    else:
        v = b  # int64
    return v


def accumulate(n):
    s = 0
    for i in range(n):
        s += 0.5
    return s


def loop_reassigns_its_target(n):
    t = 0
    for i in range(n):
        i = i * 2.5
        t += i
    return t


def straight_line(x):
    y = x + 1
    y = y / 2
    y = y > 1.0
    return y


def tuple_then_number(x):
    p = (x, x)
    q = p[0] + p[1]
    p = q * 3
    return p


def while_counter(n):
    k = 0
    x = 1
    while k < n:
        x = x * 2
        k += 1
    return x


def constant_redefined(n):
    m = 4
    a = m * n
    m = 8
    return a + m


TABLE = [
    (redefined_after_use, (T.int64,), T.float64, [(3,), (-5,)]),
    (int_then_float_in_branches, (T.int64,), T.float64, None),
    (per_path_types_without_a_merged_use, (T.int64,), T.float64, None),
    (int32_and_int64, (T.int32, T.int64), T.int64, [(1, 2), (-1, 2)]),
    (accumulate, (T.int64,), T.float64, None),
    (loop_reassigns_its_target, (T.int64,), T.float64, None),
    (straight_line, (T.int64,), T.boolean, [(1,), (5,)]),
    (tuple_then_number, (T.int64,), T.int64, [(2,)]),
    (while_counter, (T.int64,), T.int64, [(0,), (10,)]),
    (constant_redefined, (T.int64,), T.int64, [(3,)]),
]

_PY = {int: (T.int64, T.int32), float: (T.float64,), bool: (T.boolean,)}


@pytest.mark.parametrize("func, argtypes, rt, samples", TABLE, ids=[t[0].__name__ for t in TABLE])
def test_return_type_per_definition(func, argtypes, rt, samples):
    tf = typed(func, *argtypes)
    assert tf.return_type == rt
    for args in samples or ():  # no merge of different types: CPython's result has the same kind
        assert rt in _PY[type(func(*args))]


def test_versions_of_a_redefined_variable():
    tf = typed(redefined_after_use, T.int64)
    assert (tf.vartypes["v"], tf.vartypes["v.1"], tf.vartypes["v.2"]) == (T.int64, T.int64, T.float64)
    assert tf.vartypes["w"] == T.int64
    floordiv = next(e for e in tf.typemap if isinstance(e, ir.BinOp) and e.op == "//")
    assert tf.typemap[floordiv] == T.int64  # not float64: v is an int where it is read


def test_a_merge_is_unified_only_where_a_use_needs_it():
    tf = typed(per_path_types_without_a_merged_use, T.int64)
    assert tf.vartypes["v"] == T.int64 and tf.vartypes["v.1"] == T.UniTuple(T.float64, 2)
    assert "v.2" not in tf.vartypes  # no merged version: nothing reads v after the join
    assert tf.vartypes["r"] == T.int64 and tf.vartypes["r.1"] == T.float64 and tf.vartypes["r.2"] == T.float64


def test_incompatible_merge_names_both_definitions():
    def f(c, a):
        if c:
            v = a
        else:
            v = 1
        return v

    with pytest.raises(TypingError) as info:
        typed(f, T.int64, T.float32[:])
    err = info.value
    line = f.__code__.co_firstlineno
    assert err.loc.line == line + 5
    assert err.msg.startswith("variable 'v' has type array(float32, 1d, A) on one path and int64 on another")
    text = str(err)
    assert f"makes 'v' array(float32, 1d, A):\n{err.loc.filename}:{line + 2}:" in text
    assert f"makes 'v' int64:\n{err.loc.filename}:{line + 4}:" in text


def test_use_before_any_assignment_is_an_error_even_if_assigned_later():
    def f(x):
        y = z + x  # noqa: F821
        z = 1
        return y

    with pytest.raises(TypingError, match="local variable 'z' is used before it is assigned"):
        typed(f, T.int64)


def test_use_in_a_loop_of_a_later_assignment_reads_the_previous_iteration():
    def f(n):
        t = 0
        for i in range(n):
            if i > 0:
                t += last  # noqa: F821
            last = i * 0.5
        return t

    assert typed(f, T.int64).return_type == T.float64


def test_dead_code_after_return_is_typed():
    def f(x):
        return x
        y = x + 1  # noqa: F841

    assert typed(f, T.int64).return_type == T.int64


def test_while_true_exit_only_through_break_merges_only_the_breaks():
    def f(a):
        v = a  # an array: never merged with the float, as only the break leaves the loop
        while True:
            v = 1.5
            break
        return v

    assert typed(f, T.float32[:]).return_type == T.float64


def test_redefined_constant_is_a_compile_time_shape():
    from cudalite.core import device_api as cuda

    def f(x):
        n = 4
        a = cuda.local.array(n, T.float32)
        n = 8
        b = cuda.local.array(n, T.float32)
        a[0] = x
        b[0] = x
        return a[0] + b[0]

    assert typed(f, T.float32).return_type == T.float32


def test_ssa_is_made_once_by_the_frontend():
    from cudalite.core.frontend import build_ir

    fir = build_ir(accumulate)
    assert isinstance(fir.ssa, ir.SSAInfo)
    assert [(v.name, v.kind) for v in fir.ssa.versions.values()] == [
        ("n", "param"), ("s", "def"), ("s.1", "phi"), ("i", "def"), ("s.2", "def")]
    phi = fir.ssa.versions["s.1"]
    assert [v.name for v in phi.incoming] == ["s", "s.2"]
    assert [p.name for p in fir.ssa.versions["s.2"].stores] == ["s.1"]


# -- Hypothesis: random two-way assignments, merged or not -----------------------------------
_VALUES = {"i": ("7", T.int64), "f": ("2.5", T.float64), "b": ("True", T.boolean), "x": ("x", T.int32)}


def _numba_unify(a, b):
    from cudalite.core.typing.rules.casts import unify

    return unify(a, b)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(_VALUES)), st.sampled_from(sorted(_VALUES)), st.booleans(), st.booleans())
def test_random_branch_assignments(left, right, use_after, reassign):
    """``if c: v = L else: v = R`` then either a use of the merge, or a new assignment
    first: the merge is typed (unify) only when it is used."""
    lsrc, lt = _VALUES[left]
    rsrc, rt = _VALUES[right]
    tail = "    v = 0.25\n" if reassign else ""
    body = (f"def g(c, x):\n    if c:\n        v = {lsrc}\n        u = v\n    else:\n        v = {rsrc}\n"
            f"        u = v\n{tail}    return {'v' if use_after else 'u'}\n")
    ns: dict = {}
    import linecache

    filename = f"<ssa-hypothesis-{left}{right}{use_after}{reassign}>"
    linecache.cache[filename] = (len(body), None, body.splitlines(True), filename)
    exec(compile(body, filename, "exec"), ns)
    tf = typed(ns["g"], T.int64, T.int32)
    assert tf.vartypes["v"] == lt and tf.vartypes["v.1"] == rt  # each path keeps its own type
    expected = T.float64 if (use_after and reassign) else _numba_unify(lt, rt)
    assert tf.return_type == expected
