"""Odd globals through the public compile APIs (issue 28, findings 9 and 10):
``cuda.compile_ptx`` of a device function and an eager ``cuda.jit`` kernel compile
(no GPU needed) end in a located ``TypingError`` naming the global, never a hang
or an internal error.  Typing-level cases are in
packages/core-typing/tests/test_odd_globals.py."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("llvmlite")

from cudalite import cuda  # noqa: E402
from cudalite.core.errors import TypingError  # noqa: E402

pytestmark = pytest.mark.timeout(120)  # a regression of finding 9 hangs: fail instead

CYCLIC = []
CYCLIC.append(CYCLIC)
HUGE = 10**5000
DIMS32 = np.zeros((1,) * 32)


class NoTypestr:
    __cuda_array_interface__ = {"shape": (4,), "data": (0, False), "version": 3}


class Hostile:
    def __repr__(self):
        raise RuntimeError("no repr")

    def __eq__(self, other):
        raise RuntimeError("no eq")

    def __getattr__(self, name):
        raise RuntimeError(f"no attribute {name}")

    def __len__(self):
        raise RuntimeError("no len")

    __hash__ = object.__hash__


NO_TYPESTR = NoTypestr()
HOSTILE = Hostile()


def dev_cyclic(x):
    return len(CYCLIC) + x


def dev_huge(x):
    return HUGE + x


def dev_dims(x):
    return DIMS32.size + x


def dev_no_typestr(x):
    return NO_TYPESTR[0] + x


def dev_hostile(x):
    return len(HOSTILE) + x


def dev_hostile_attr(x):
    return HOSTILE.size + x


def dev_hostile_dtype(x):
    a = cuda.local.array(4, HOSTILE)
    return x


def dev_hostile_shape(x):
    a = cuda.local.array(HOSTILE, np.int64)
    return x


CASES = [
    (dev_cyclic, "the value 'CYCLIC' = [[[[...]]]] (list) cannot be used in device code"),
    (dev_huge, "the value 'HUGE' = <int of 5001 digits> (int) cannot be used in device code: "
               "it does not fit in 64 bits"),
    (dev_dims, "cannot be used in device code: it has 32 dimensions; device code handles arrays of 0 to 8"),
    (dev_no_typestr, "(NoTypestr) cannot be used in device code: its __cuda_array_interface__ has no 'typestr'"),
    (dev_hostile, "no implementation of len() for argument types (<test_odd_globals_kernels.<"
                  "test_odd_globals_kernels.Hostile object>>)"),
    (dev_hostile_attr, "reading HOSTILE.size at compile time raised RuntimeError: no attribute size"),
    (dev_hostile_dtype, "dtype=<test_odd_globals_kernels.<test_odd_globals_kernels.Hostile object>>"),
    (dev_hostile_shape, "shape=<test_odd_globals_kernels.<test_odd_globals_kernels.Hostile object>>"),
]


def _check(err, func, text, line_offset=1):
    assert type(err) is TypingError
    assert err.loc.filename == func.__code__.co_filename
    assert err.loc.line == func.__code__.co_firstlineno + line_offset
    assert text in str(err), str(err)


@pytest.mark.parametrize("func, text", CASES, ids=[c[0].__name__ for c in CASES])
def test_compile_ptx_reports_odd_global_at_its_line(func, text):
    with pytest.raises(TypingError) as info:
        cuda.compile_ptx(func, "int64(int64)", device=True, cc=(9, 0))
    _check(info.value, func, text)


def kernel_cyclic(out):
    out[0] = len(CYCLIC)


def kernel_huge(out):
    out[0] = HUGE


def kernel_no_typestr(out):
    out[0] = NO_TYPESTR[0]


@pytest.mark.parametrize("func, text", [
    (kernel_cyclic, "'CYCLIC' = [[[[...]]]] (list)"),
    (kernel_huge, "'HUGE' = <int of 5001 digits> (int)"),
    (kernel_no_typestr, "its __cuda_array_interface__ has no 'typestr'"),
], ids=["cyclic", "huge", "no_typestr"])
@pytest.mark.parametrize("cache", [False, True])
def test_eager_kernel_compile_reports_odd_global(func, text, cache, tmp_path, monkeypatch):
    monkeypatch.setenv("CUDALITE_CACHE_DIR", str(tmp_path))
    with pytest.raises(TypingError) as info:
        cuda.jit("void(int64[:])", cache=cache)(func)
    _check(info.value, func, text)


def kernel_hostile_unused(out):
    h = HOSTILE
    out[0] = 1


def test_kernel_binding_hostile_global_to_a_local_compiles():
    k = cuda.jit("void(int64[:])")(kernel_hostile_unused)
    assert k is not None
