"""Functions defined inside device code (numba's make_function -> JIT function): called,
passed to another function, closing over constants, inner functions and globals.
Results are checked against CPython by running the lowered code on the CPU (host_jit);
a nested function reading a run-time variable of its enclosing function is refused."""

from __future__ import annotations

import itertools

import pytest

from cudalite import nvvm as cuda
from cudalite.core.errors import UnsupportedError
from host_jit import host_function

SIG = "int64(int64, int64)"
_GLOBAL = 123


def apply(func, arg):
    return func(arg)


def called(x, y):
    def inner(a):
        return a * 3 + 1

    return inner(x) + inner(y)


def passed_on(x, y):
    offset = 10  # a literal assigned once: the inner function may read it

    def shift(z):
        return z + offset + _GLOBAL

    return apply(shift, x) - y


def uses_another_inner(x, y):
    def ten():
        return 10

    def eleven():
        return ten() + 1

    def pick(a, b=2):
        return a if a > b else b

    return eleven() * x + pick(y) + pick(y, 7)


def nested_twice(x, y):
    def outer(a):
        def inner(b):
            return b * b

        return inner(a) + 1

    return outer(x) - outer(y)


@pytest.mark.parametrize("fn", [called, passed_on, uses_another_inner, nested_twice])
def test_nested_functions_match_cpython(fn):
    compiled = host_function(fn, SIG)
    for x, y in itertools.product(range(-4, 5), range(-3, 9)):
        assert compiled(x, y) == fn(x, y) & (2**64 - 1), (fn.__name__, x, y)


def test_reading_a_runtime_variable_passes_it_at_each_call():
    def reads_param(x, y):
        def f():
            return x + 1

        return f()

    ptx, _ = cuda.compile_ptx(reads_param, SIG, device=True, cc=(8, 0))
    assert "add.s64" in ptx  # x + 1 with x a parameter (test_nested_runtime_closures.py runs it)


def test_decorated_nested_function_is_refused():
    def decorated(x, y):
        @staticmethod
        def f():
            return 1

        return x

    with pytest.raises(UnsupportedError, match="nested function 'f' is decorated"):
        cuda.compile_ptx(decorated, SIG, device=True, cc=(8, 0))


def test_a_literal_assigned_in_a_branch_is_read_as_the_enclosing_function_reads_it():
    def branchy(x, y):
        if x > 0:
            k = 5

        def f():
            return k

        return f()

    def plain(x, y):
        if x > 0:
            k = 5
        return k

    from host_jit import host_function

    nested, direct = host_function(branchy, SIG), host_function(plain, SIG)
    for x in (1, 7, 100):  # where CPython defines k (else both read an unassigned local, as numba does)
        assert nested(x, 0) == direct(x, 0) == branchy(x, 0) == 5


# -- *args (numba-cuda's consumer(func, *args) pattern) -------------------------------------
def consumer(func, *args):
    return func(*args)


def _add(a, b):
    return a + b


def _neg(a):
    return -a


def star_args(x, y):
    def mul(a, b, c):
        return a * b * c

    return consumer(_add, x, y) * 10 + consumer(_neg, x) + consumer(mul, x, y, 3)


def count_args(*args):
    return len(args)


def _seven():
    return 7


def star_none(x, y):
    def ten():
        return 10

    return consumer(ten) + consumer(_seven) * x + y  # func(*args) of an empty *args: func()


def star_len(x, y):
    return count_args() + count_args(x) * 10 + count_args(x, y, x) * 100


def test_star_args_match_cpython():
    for fn in (star_args, star_len, star_none):
        compiled = host_function(fn, SIG)
        for x, y in itertools.product(range(-4, 5), range(-3, 4)):
            assert compiled(x, y) == fn(x, y) & (2**64 - 1), (fn.__name__, x, y)


def test_star_args_function_compiled_on_its_own_is_refused():
    from cudalite.core.errors import TypingError

    with pytest.raises(TypingError, match=r"takes \*args: it can only be called from device code"):
        cuda.compile_ptx(count_args, "int64(int64, int64)", device=True, cc=(8, 0))

    def kw(x, y):
        return consumer(_add, a=x, b=y)

    with pytest.raises(TypingError, match=r"consumer\(\) takes \*args: calls passing keyword arguments"):
        cuda.compile_ptx(kw, SIG, device=True, cc=(8, 0))

    def empty_expression(x, y):  # an empty tuple other than the function's own *args
        return _seven(*())

    with pytest.raises(TypingError, match=r"\*args of an empty tuple is not supported"):
        cuda.compile_ptx(empty_expression, SIG, device=True, cc=(8, 0))


# -- branches on compile-time constants are pruned before typing (numba's dead-branch pruning) --
DEBUG = False


def by_count(*z):
    if len(z) == 1:
        tmp = z[0]
    elif len(z) == 2:
        tmp = z[0] + z[1]  # z[1] does not exist for one argument: this branch is not typed then
    else:
        tmp = -1
    return tmp


def by_count_expr(*z):
    return z[0] if len(z) == 1 else z[0] * z[1]  # a conditional expression is pruned too


def pruned(x, y):
    if DEBUG:
        return x + "never typed"  # a frozen global False: the branch never runs
    return by_count(x) * 100 + by_count(x, y) + by_count() + by_count_expr(y) * 7 + by_count_expr(x, y)


def test_constant_branches_are_pruned_and_results_match_cpython():
    compiled = host_function(pruned, SIG)
    for x, y in itertools.product(range(-3, 4), range(-3, 4)):
        assert compiled(x, y) == pruned(x, y) & (2**64 - 1), (x, y)
