"""A branch pruned on a compile-time constant does not reach the join (numba prunes dead
branches before it types): a variable reassigned to another type in the live branch is
that type after it, where merging both paths would not type.  Run on the host LLVM."""

from __future__ import annotations

import pytest

from host_jit import host_function

from cudalite import nvvm as cuda
from cudalite.core.errors import TypingError

TAKE_FIRST = True


def first_or_pair(a, b):
    x = (a, b)
    if TAKE_FIRST is True:
        x = x[0]  # a tuple becomes an int64: only this path reaches the return
    return x + 1


def closure_of(flag):
    def f(a, b):
        x = (a, b)
        if flag:
            x = x[1]
        else:
            pass
        return x * 2
    return f


def test_the_live_branch_alone_reaches_the_join():
    assert host_function(first_or_pair, "int64(int64, int64)")(41, 7) == 42
    assert host_function(closure_of(True), "int64(int64, int64)")(1, 21) == 42


def test_a_merge_that_does_not_type_without_pruning_is_still_reported():
    def f(a, b):
        x = (a, b)
        if a > 0:  # not a constant: both paths reach the return
            x = x[0]
        return x

    with pytest.raises(TypingError, match=r"variable 'x' has type .* on one path and .* on another"):
        cuda.compile_ptx(f, "int64(int64, int64)", device=True)


def test_the_pruned_away_type_is_an_error_where_it_is_used():
    with pytest.raises(TypingError) as e:
        cuda.compile_ptx(closure_of(False), "int64(int64, int64)", device=True)
    assert "x * 2" in str(e.value)
