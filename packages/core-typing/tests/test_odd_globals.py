"""Odd globals and closure values: the compiler never hangs on them and never lets
an internal exception escape; each is a located ``TypingError`` naming the global
(issue 28, findings 9 and 10).

A value that contains itself (a cyclic list, dict or closure cell) used to make
``walk_exprs`` spin forever (it walked into constant values); an int of thousands
of digits, a NumPy array with more dimensions than device code has, a broken
``__cuda_array_interface__`` or an object whose ``__repr__`` / ``__eq__`` /
``__getattr__`` / ``__len__`` raises used to end in an internal error.
"""

from __future__ import annotations

import linecache

import numpy as np
import pytest

import cudalite.core.typing  # noqa: F401
from cudalite import types as T
from cudalite.core import ir
from cudalite.core.errors import TypingError
from cudalite.core.frontend import build_ir
from cudalite.core.registry import registry
from cudalite.core.typing import TypingContext

pytestmark = pytest.mark.timeout(60)  # a regression of finding 9 hangs: fail instead


def typed(func, *argtypes):
    return TypingContext(registry).type_function(func, argtypes)


def located_error(func, snippet, *argtypes):
    """The TypingError typing ``func`` raises, checked to point at ``snippet``'s line."""
    with pytest.raises(TypingError) as info:
        typed(func, *(argtypes or (T.int64,)))
    err = info.value
    line = next(i for i in range(func.__code__.co_firstlineno, func.__code__.co_firstlineno + 20)
                if snippet in linecache.getline(func.__code__.co_filename, i))
    assert str(err).splitlines()[0].startswith(f"{func.__code__.co_filename}:{line}:"), str(err)
    assert err.loc.line == line
    return err


# -- finding 9: values that contain themselves -----------------------------------------
CYCLIC_LIST = []
CYCLIC_LIST.append(CYCLIC_LIST)
CYCLIC_DICT = {}
CYCLIC_DICT["self"] = CYCLIC_DICT
NESTED_CYCLE = ([1, 2],)
NESTED_CYCLE[0].append(NESTED_CYCLE)


def test_walk_exprs_does_not_enter_constant_values():
    def f(x):
        return len(CYCLIC_LIST) + x

    (ret,) = build_ir(f).body
    kinds = [type(e).__name__ for e in ir.walk_exprs(ret)]
    assert kinds == ["BinOp", "Call", "Const", "Const", "Var"]


def test_cyclic_list_global_is_a_located_error():
    def f(x):
        return len(CYCLIC_LIST) + x

    err = located_error(f, "len(CYCLIC_LIST)")
    assert "'CYCLIC_LIST' = [[[[...]]]] (list) cannot be used in device code" in err.msg


def test_cyclic_dict_global_is_a_located_error():
    def f(x):
        y = CYCLIC_DICT
        return x

    err = located_error(f, "y = CYCLIC_DICT")
    assert "'CYCLIC_DICT' = {'self': {'self': {'self': {...}}}} (dict) cannot be used in device code" in err.msg


def test_tuple_holding_a_cycle_is_a_located_error():
    def f(x):
        return NESTED_CYCLE[0][0] + x

    err = located_error(f, "NESTED_CYCLE[0]")
    assert "'NESTED_CYCLE' = ([1, 2, ([...],)],) (tuple) cannot be used in device code" in err.msg


def test_cyclic_closure_cell_is_a_located_error():
    def outer():
        cell = []
        cell.append(cell)

        def f(x):
            return len(cell) + x

        return f

    f = outer()
    err = located_error(f, "len(cell)")
    assert "'cell' = [[[[...]]]] (list)" in err.msg


def test_self_referencing_function_global_still_compiles():
    # a function refers to itself through its globals (recursion): not a cycle in the IR
    assert typed(_countdown, T.int64).return_type == T.int64


def _countdown(n):
    if n <= 0:
        return 0
    return _countdown(n - 1)


# -- finding 10: odd globals -----------------------------------------------------------
HUGE_INT = 10**5000
TOO_MANY_DIMS = np.zeros((1,) * 32)
NINE_DIMS = np.zeros((1,) * 9)
EIGHT_DIMS = np.zeros((1,) * 8, dtype=np.int64)
LONG_LIST = list(range(100_000))


class NoTypestr:
    """A device-array look-alike whose interface lacks ``typestr``."""

    __cuda_array_interface__ = {"shape": (4,), "data": (0, False), "version": 3}


class RaisingInterface:
    @property
    def __cuda_array_interface__(self):
        raise KeyError("boom")


class BadShapeInterface:
    __cuda_array_interface__ = {"shape": ("x",), "typestr": "<f4", "data": (0, False), "version": 3}


class BadRepr:
    def __repr__(self):
        raise RuntimeError("no repr")


class BadEq:
    def __eq__(self, other):
        raise RuntimeError("no eq")

    __hash__ = object.__hash__


class BadGetattr:
    def __getattr__(self, name):
        raise RuntimeError(f"no attribute {name}")


class BadLen:
    def __len__(self):
        raise RuntimeError("no len")


class BadEverything(BadRepr, BadEq, BadGetattr, BadLen):
    __hash__ = object.__hash__


NO_TYPESTR = NoTypestr()
RAISING_INTERFACE = RaisingInterface()
BAD_SHAPE = BadShapeInterface()
BAD_REPR = BadRepr()
BAD_EQ = BadEq()
BAD_GETATTR = BadGetattr()
BAD_LEN = BadLen()
BAD_EVERYTHING = BadEverything()


def test_huge_int_global_is_a_located_error():
    def f(x):
        return HUGE_INT + x

    err = located_error(f, "HUGE_INT + x")
    assert err.msg.startswith("the value 'HUGE_INT' = <int of 5001 digits> (int) cannot be used in device code: "
                              "it does not fit in 64 bits"), err.msg


def test_int_just_past_64_bits_is_a_located_error():
    def f(x):
        return BIG64 + x

    err = located_error(f, "BIG64 + x")
    assert err.msg.startswith(f"the value 'BIG64' = {2**64} (int) cannot be used in device code: "
                              "it does not fit in 64 bits"), err.msg


BIG64 = 2**64


def test_long_list_global_message_is_short():
    def f(x):
        return len(LONG_LIST) + x

    err = located_error(f, "len(LONG_LIST)")
    assert len(err.msg) < 400
    assert "'LONG_LIST' = [0, 1, 2, 3" in err.msg and "..." in err.msg


@pytest.mark.parametrize("name", ["TOO_MANY_DIMS", "NINE_DIMS"])
def test_array_with_too_many_dimensions_is_a_located_error(name):
    ndim = globals()[name].ndim

    def f(x):
        return x + (TOO_MANY_DIMS if name == "TOO_MANY_DIMS" else NINE_DIMS).size

    with pytest.raises(TypingError) as info:
        typed(f, T.int64)
    assert info.value.loc.line == f.__code__.co_firstlineno + 1
    assert f"has {ndim} dimensions; device code handles arrays of 0 to 8" in info.value.msg, info.value.msg


def test_array_of_eight_dimensions_still_types():
    def f(x):
        return EIGHT_DIMS[0, 0, 0, 0, 0, 0, 0, 0] + x

    assert typed(f, T.int64).return_type == T.int64


@pytest.mark.parametrize("name, why", [
    ("NO_TYPESTR", "its __cuda_array_interface__ has no 'typestr'"),
    ("RAISING_INTERFACE", "reading its __cuda_array_interface__ raised KeyError: 'boom'"),
    ("BAD_SHAPE", "its __cuda_array_interface__ is invalid: ValueError: invalid literal for int()"),
])
def test_broken_cuda_array_interface_is_a_located_error(name, why):
    fn = _interface_users[name]
    with pytest.raises(TypingError) as info:
        typed(fn, T.int64)
    err = info.value
    assert err.loc.line == fn.__code__.co_firstlineno + 1
    assert f"the value {name!r}" in err.msg and why in err.msg, err.msg


def _uses_no_typestr(x):
    return NO_TYPESTR[0] + x


def _uses_raising_interface(x):
    return RAISING_INTERFACE[0] + x


def _uses_bad_shape(x):
    return BAD_SHAPE[0] + x


_interface_users = {"NO_TYPESTR": _uses_no_typestr, "RAISING_INTERFACE": _uses_raising_interface,
                    "BAD_SHAPE": _uses_bad_shape}


def _add_bad_repr(x):
    return BAD_REPR + x


def _add_bad_eq(x):
    return BAD_EQ + x


def _add_bad_getattr(x):
    return BAD_GETATTR + x


def _add_bad_len(x):
    return BAD_LEN + x


def _add_bad_everything(x):
    return BAD_EVERYTHING + x


def _len_bad_len(x):
    return len(BAD_LEN) + x


def _len_bad_everything(x):
    return len(BAD_EVERYTHING) + x


def _attr_bad_getattr(x):
    return BAD_GETATTR.size + x


def _assign_bad_everything(x):
    y = BAD_EVERYTHING
    return x


@pytest.mark.parametrize("func, cls", [
    (_add_bad_repr, "BadRepr"), (_add_bad_eq, "BadEq"), (_add_bad_getattr, "BadGetattr"),
    (_add_bad_len, "BadLen"), (_add_bad_everything, "BadEverything"),
])
def test_hostile_object_in_arithmetic_is_a_located_error(func, cls):
    with pytest.raises(TypingError) as info:
        typed(func, T.int64)
    err = info.value
    assert err.loc.line == func.__code__.co_firstlineno + 1
    assert err.msg.startswith("unsupported operand types for +: ") and cls in err.msg, err.msg


@pytest.mark.parametrize("func", [_len_bad_len, _len_bad_everything, _attr_bad_getattr])
def test_hostile_object_in_len_or_attribute_is_a_located_error(func):
    with pytest.raises(TypingError) as info:
        typed(func, T.int64)
    assert info.value.loc.line == func.__code__.co_firstlineno + 1


def test_hostile_object_assigned_but_unused_types():
    # like any opaque global, a value bound to a local and never used is harmless
    assert typed(_assign_bad_everything, T.int64).return_type == T.int64
