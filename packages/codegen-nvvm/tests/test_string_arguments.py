"""A device function called with a string literal is specialized on it: comparisons of
the string parameter with literals are constants, and only the branch they choose is
typed (numba-cuda's issue 755 program).  Run on the host LLVM, compared with CPython."""

from __future__ import annotations

import pytest

from host_jit import host_function

from cudalite import nvvm as cuda
from cudalite.core.errors import TypingError


def pick(x, mode):
    if mode == "add":
        return x + 1
    elif mode != "neg":
        return x.no_such_attribute  # never typed for the modes called below
    return -x


def outer(a, b):
    return pick(a, "add") * 1000 + pick(b, "neg")


def test_string_literal_arguments_fold_comparisons():
    compiled = host_function(outer, "int64(int64, int64)")
    for a, b in ((1, 2), (-5, 7)):
        assert compiled(a, b) & (2**64 - 1) == outer(a, b) & (2**64 - 1)


def test_a_mode_that_reaches_the_bad_branch_is_still_an_error():
    def other(a):
        return pick(a, "mul")

    with pytest.raises(TypingError, match="no_such_attribute"):
        cuda.compile_ptx(other, "int64(int64)", device=True)
