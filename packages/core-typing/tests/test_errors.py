"""The error contract: every user error is a cudalite exception whose message shows
``file:line:col``, the source line and a caret under the offending code, and
names the types involved.  Line numbers are computed from each function's
``co_firstlineno``; columns from the source text itself.

(Errors raised through ``cudalite.nvvm.compile_ptx``, and their tracebacks, are
tested in tests-integration/test_compile_errors.py: core tests stay numpy-only.)
"""

from __future__ import annotations

import linecache

import pytest

import cudalite.core.typing  # noqa: F401
from cudalite import types as T
from cudalite.core.errors import (
    CompilerError, CudaliteError, Loc, LoweringError, NvvmError, SignatureError, TypingError, UnsupportedError,
)
from cudalite.core.registry import registry
from cudalite.core.types import UniTuple, parse_signature
from cudalite.core.typing import TypingContext


def typed(func, *argtypes):
    return TypingContext(registry).type_function(func, argtypes)


def raises(exc_type, func, *argtypes):
    with pytest.raises(exc_type) as info:
        typed(func, *argtypes)
    assert type(info.value) is exc_type
    return info.value


def check_location(err, func, offset, snippet, width=None, occurrence=0):
    """``err`` points at ``snippet`` on line ``co_firstlineno + offset`` of ``func``."""
    line = func.__code__.co_firstlineno + offset
    src = linecache.getline(func.__code__.co_filename, line).rstrip("\n")
    col = -1
    for _ in range(occurrence + 1):
        col = src.index(snippet, col + 1)
    text = str(err).splitlines()
    assert text[0] == f"{func.__code__.co_filename}:{line}:{col + 1}", str(err)
    assert text[1] == "    " + src.strip()
    indent = len(src) - len(src.lstrip())
    caret = text[2]
    assert caret.index("^") == 4 + col - indent, str(err)
    assert caret.strip() == "^" * (width if width is not None else len(snippet)), str(err)
    assert text[3].startswith(f"{err.kind}: ")
    assert (err.loc.line, err.loc.col) == (line, col)
    return text[3]


# -- unsupported syntax ---------------------------------------------------------------------
def test_try_is_unsupported():
    def f(x):
        try:
            x += 1
        except Exception:
            pass
        return x

    err = raises(UnsupportedError, f, T.int32)
    msg = check_location(err, f, 1, "try:", width=1)  # a multi-line statement: one caret
    assert "try/except" in msg


def test_with_is_unsupported():
    def f(x):
        y = x
        with y:
            pass

    err = raises(UnsupportedError, f, T.int32)
    assert "'with' statements" in check_location(err, f, 2, "with", width=1)


def test_generator_is_unsupported():
    def f(x):
        yield x

    err = raises(UnsupportedError, f, T.int32)  # refused at its def: a generator function, whatever its body
    assert "f is a generator function (it contains yield)" in check_location(err, f, 0, "def", width=1)


def test_class_definition_is_unsupported():
    def f(x):
        class Local:
            pass
        return x

    err = raises(UnsupportedError, f, T.int32)
    assert "class definitions" in check_location(err, f, 1, "class", width=1)


def test_double_starred_call_is_unsupported():
    def f(x):
        t = (x, x)
        print(**t)

    err = raises(UnsupportedError, f, T.int32)
    assert "**kwargs" in check_location(err, f, 2, "print(**t)")


def test_starred_call_of_a_non_tuple_is_located():
    def f(x):
        t = x
        print(*t)

    err = raises(TypingError, f, T.int32)
    assert "*args in a call must be a tuple" in check_location(err, f, 2, "*t")


def test_list_comprehension_is_unsupported():
    def f(n):
        return [i for i in range(n)]

    err = raises(UnsupportedError, f, T.int32)
    assert "list comprehension" in check_location(err, f, 1, "[i for i in range(n)]")


def test_non_range_for_loop_points_at_the_iterable():
    def f(t):
        for v in t:
            pass

    err = raises(TypingError, f, T.float64)
    assert "cannot iterate over a value of type float64" in check_location(err, f, 1, "t", width=1)


# -- type errors --------------------------------------------------------------------------------
def test_tuple_plus_float_names_both_types():
    def f(t):
        y = t + 1.5
        return y

    err = raises(TypingError, f, UniTuple(T.int64, 2))
    msg = check_location(err, f, 1, "t + 1.5")
    assert msg == "TypingError: unsupported operand types for +: UniTuple(int64 x 2) and float64"


def test_unknown_global_name():
    def f(x):
        return x + not_defined_anywhere  # noqa: F821

    err = raises(TypingError, f, T.int32)
    msg = check_location(err, f, 1, "not_defined_anywhere")
    assert "name 'not_defined_anywhere' is not defined" in msg


def device_add(x, y):
    return x + y


def test_wrong_argument_count_calling_a_device_function():
    def f(x):
        return device_add(x) * 2

    err = raises(TypingError, f, T.float32)
    msg = check_location(err, f, 1, "device_add(x)")
    assert "device_add() takes 2 argument(s) but 1 were given" in msg


def test_error_inside_a_callee_points_into_the_callee_with_a_note_for_the_call():
    def bad_callee(t):
        return t * 2.5

    def caller(x):
        u = (x, x)
        return bad_callee(u)

    err = raises(TypingError, caller, T.int32)
    check_location(err, bad_callee, 1, "t * 2.5")
    assert "UniTuple(int32 x 2) and float64" in err.msg
    head, sep, note = str(err).partition(".bad_callee(UniTuple(int32 x 2))")
    assert sep and head.splitlines()[-1].startswith("while typing the call to ")
    line = caller.__code__.co_firstlineno + 2
    assert f"{__file__}:{line}:" in note
    assert "return bad_callee(u)" in note


def test_recursion_without_a_base_case_error_location():
    err = raises(TypingError, runaway, T.int64)
    check_location(err, runaway, 1, "runaway(n - 1)")
    assert "cannot infer the return type of the recursive function runaway(int64)" in err.msg


def runaway(n):
    return runaway(n - 1)


def test_runaway_type_recursion_error_location():
    err = raises(TypingError, growing, T.int64, T.int64)
    check_location(err, growing, 3, "growing((x, x), n - 1)")
    assert "runaway type recursion: growing calls itself with argument types that keep changing" in err.msg


def growing(x, n):
    if n == 0:
        return 0
    return growing((x, x), n - 1)


def test_variable_reassigned_another_type_is_a_new_version():
    def f(x):
        y = x
        y = (1, 2)
        return y

    assert typed(f, T.int32).return_type == UniTuple(T.int64, 2)


def test_incompatible_definitions_merging_at_a_use():
    def f(x):
        if x > 0:
            y = x
        else:
            y = (1, 2)
        return y

    err = raises(TypingError, f, T.int32)
    msg = check_location(err, f, 5, "y", width=1)
    assert msg == ("TypingError: variable 'y' has type int32 on one path and UniTuple(int64 x 2) on another, "
                   "and both reach this use; the types do not unify (numba: 'Cannot unify')")
    line = f.__code__.co_firstlineno
    assert f"the assignment that makes 'y' int32:\n{f.__code__.co_filename}:{line + 2}:" in str(err)
    assert f"the assignment that makes 'y' UniTuple(int64 x 2):\n{f.__code__.co_filename}:{line + 4}:" in str(err)


def test_store_into_read_only_global_array():
    import numpy as np

    table = np.zeros(4, dtype=np.float32)

    def f(i):
        table[i] = 1.0

    err = raises(TypingError, f, T.int64)
    msg = check_location(err, f, 1, "table[i]")
    assert "readonly array(float32, 1d, C)" in msg


def test_bad_call_argument_types_name_the_types():
    def f(a):
        return a[1.5]

    err = raises(TypingError, f, T.float32[:])
    assert "not float64" in check_location(err, f, 1, "a[1.5]")


def test_return_type_conflict():
    def f(x):
        if x:
            return (1, 2)
        return 1.0

    err = raises(TypingError, f, T.int32)
    msg = check_location(err, f, 3, "return 1.0")
    assert "cannot unify return types UniTuple(int64 x 2) and float64" in msg


def test_condition_of_wrong_type():
    def f(t):
        if t:
            return 1
        return 0

    err = raises(TypingError, f, UniTuple(T.int32, 2))
    assert "UniTuple(int32 x 2) as a condition" in check_location(err, f, 1, "t", width=1)


# -- signatures ------------------------------------------------------------------------------------
@pytest.mark.parametrize("sig, needle", [
    ("float32(", "'float32('"),
    ("foo(int32)", "unknown type name 'foo'"),
    ("int32", "'int32' must look like 'rettype(argtypes...)'"),
])
def test_bad_signature_is_a_signature_error(sig, needle):
    with pytest.raises(SignatureError) as info:
        parse_signature(sig)
    assert needle in str(info.value)
    assert isinstance(info.value, CompilerError)


def test_signature_error_gets_the_location_of_the_function_compiled():
    err = SignatureError("kernels must return void")
    assert str(err) == "kernels must return void"
    loc = Loc(__file__, device_add.__code__.co_firstlineno)
    err.with_default_loc(loc)
    text = str(err).splitlines()
    assert text[0] == f"{__file__}:{loc.line}:1"
    assert text[1] == "    def device_add(x, y):"
    assert text[2] == "    ^"
    assert text[3] == "SignatureError: kernels must return void"
    # an error that already has a location keeps it
    other = Loc(__file__, 1)
    assert err.with_default_loc(other).loc is loc


# -- rendering ---------------------------------------------------------------------------------------
def test_loc_render_strips_indentation_and_places_the_caret():
    loc = Loc("f.py", 3, 12, 3, 19, source_line="        y = t + 1.5")
    assert str(loc) == "f.py:3:13"
    assert loc.render() == "f.py:3:13\n    y = t + 1.5\n        ^^^^^^^"


def test_loc_render_multiline_span_has_one_caret():
    loc = Loc("f.py", 3, 4, 5, 2, source_line="    if x:")
    assert loc.render().splitlines()[2] == "    ^"


def test_loc_without_source_renders_only_the_position():
    loc = Loc("<nowhere>", 7, 2)
    assert loc.render() == "<nowhere>:7:3"
    assert Loc(None, 1).filename == "<unknown>"


def test_error_family():
    for cls in (TypingError, UnsupportedError, SignatureError, LoweringError):
        assert issubclass(cls, CompilerError) and issubclass(cls, CudaliteError)
    assert issubclass(SignatureError, TypeError)
    assert issubclass(NvvmError, CudaliteError)
    e = NvvmError("libNVVM failed", log="error: bad IR")
    assert "error: bad IR" in str(e) and e.log == "error: bad IR"


def test_notes_are_appended_to_the_message():
    err = TypingError("boom", Loc("f.py", 1, 0, source_line="x"))
    err.add_note_loc("while doing something", Loc("g.py", 2, 0, source_line="call()"))
    text = str(err)
    assert text.startswith("f.py:1:1\n    x\n    ^\nTypingError: boom\nwhile doing something\ng.py:2:1")
    assert err.args == (text,)
