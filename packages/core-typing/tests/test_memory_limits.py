"""Shared and local array sizes are checked against the target's limits when the
call is typed (issue 10): a located TypingError naming the bytes and the limit."""

from __future__ import annotations

import pytest

import cudalite.core.typing  # noqa: F401  (registers the built-in typing rules)
from cudalite import types as T
from cudalite.core import device_api as cuda
from cudalite.core.errors import TypingError
from cudalite.core.registry import registry
from cudalite.core.typing import TypingContext
from cudalite.core.typing.rules.memory import itemsize, memory_limits


def _type(func, options=None):
    return TypingContext(registry, options).type_function(func, (T.float32[::1],))


def test_limits_and_item_sizes():
    lim = memory_limits((9, 0))
    assert (lim.shared_static, lim.local) == (48 * 1024, 512 * 1024)
    assert memory_limits(None) == memory_limits((7, 5)) == lim
    assert [itemsize(t) for t in (T.boolean, T.int8, T.float16, T.float32, T.complex128)] == [1, 1, 2, 4, 16]


def test_shared_array_at_the_limit_is_accepted():
    def k(a):
        s = cuda.shared.array(12288, T.float32)  # 48 KiB exactly
        a[0] = s[0]

    _type(k)


def test_shared_array_over_the_limit_is_a_located_error():
    def k(a):
        s = cuda.shared.array((5, 2**30), T.float32)  # 20 GiB: ptxas's 32-bit sizes wrap to 0
        a[0] = s[0, 0]

    with pytest.raises(TypingError) as info:
        _type(k)
    msg = str(info.value)
    assert "cuda.shared.array(): this shared array of 5 x 1073741824 float32 takes 21474836480 bytes" in msg
    assert "more than the 49152 bytes (48 KiB) of static shared memory a block may have" in msg
    assert "dynamic shared memory" in msg
    assert info.value.loc.line == k.__code__.co_firstlineno + 1


def test_shared_array_one_item_over_the_limit():
    def k(a):
        s = cuda.shared.array(12289, T.float32)
        a[0] = s[0]

    with pytest.raises(TypingError, match="takes 49156 bytes, more than the 49152 bytes"):
        _type(k)


def test_local_array_over_the_limit_names_the_target():
    class Options:  # what a typing rule reads of the compile options
        cc = (9, 0)

    def k(a):
        s = cuda.local.array(2**40, T.float32)  # 4 TiB per thread
        a[0] = s[0]

    with pytest.raises(TypingError, match=r"takes 4398046511104 bytes, more than the 524288 bytes \(512 KiB\) "
                                          r"of local memory a thread may have on sm_90"):
        _type(k, Options())


def test_local_array_at_the_limit_and_records():
    def k(a):
        s = cuda.local.array((256, 256), T.float64)  # 512 KiB exactly
        a[0] = s[0, 0]

    _type(k)


def test_dynamic_shared_array_is_not_limited():
    def k(a):
        s = cuda.shared.array(0, T.float64)
        a[0] = s[0]

    _type(k)


def test_dtype_none_is_refused():
    def k(a):
        s = cuda.local.array(4, None)
        a[0] = s[0]

    with pytest.raises(TypingError, match=r"cuda.local.array\(\): the dtype must be given .* not None"):
        _type(k)
