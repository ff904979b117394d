"""``isinstance`` in device code: a compile-time constant by numba's rule (the class's
type must equal the value's), run on the host LLVM and compared with CPython; the branch
it rules out is never typed; unsupported values/classes are located errors."""

from __future__ import annotations

import numpy as np
import pytest

from host_jit import host_function

from cudalite import nvvm as cuda
from cudalite import types
from cudalite.core.errors import TypingError


def checks(a, b):
    r = 0
    if isinstance(a, int):
        r += 1
    if isinstance(a, float):
        r += 2
    if isinstance(a > b, bool):
        r += 4
    if isinstance(1.5 * a, (complex, float)):
        r += 8
    if isinstance((a, b), tuple):
        r += 16
    if isinstance(a, ((float,), int)):
        r += 32
    return r


def pruned(a, b):
    if isinstance(a, float):
        return a.no_such_attribute  # never typed: a is an int64
    return a + b


def by_exact_type(a, b):
    x = np.int32(a)
    return (1 if isinstance(x, int) else 0) + (2 if isinstance(x, np.int32) else 0) + b


def test_isinstance_matches_cpython():
    compiled = host_function(checks, "int64(int64, int64)")
    for a, b in ((0, 1), (3, -2)):
        assert compiled(a, b) == checks(a, b) == 1 + 4 + 8 + 16 + 32


def test_the_branch_isinstance_rules_out_is_not_typed():
    assert host_function(pruned, "int64(int64, int64)")(3, 4) == 7


def test_the_class_type_must_equal_the_value_type():
    """``isinstance(x, int)`` is False for an int32 ``x`` (numba's rule; CPython agrees for np.int32)."""
    assert host_function(by_exact_type, "int64(int64, int64)")(5, 10) == by_exact_type(5, 10) == 12


def _f_of(cls):
    def f(a):
        return 1 if isinstance(a, cls) else 0
    return f


def test_a_value_of_an_unsupported_kind_is_a_located_error():
    rec = types.from_dtype(np.dtype([("a", np.int32)]))
    with pytest.raises(TypingError, match=r'isinstance\(\): does not support variables of type "Record') as e:
        cuda.compile_ptx(_f_of(int), types.int64(rec), device=True)
    assert "test_isinstance.py" in str(e.value)


def test_a_class_without_a_type_is_a_located_error():
    with pytest.raises(TypingError, match=r"isinstance\(\): <class 'str'> is not a class that device code has a type"):
        cuda.compile_ptx(_f_of(str), "int64(int64)", device=True)
