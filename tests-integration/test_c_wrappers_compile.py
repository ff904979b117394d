"""The compile API, ``cuda.jit`` and the CLI accept a C-level wrapper (no
``__code__``, e.g. ``functools.lru_cache(f)``): they compile its ``__wrapped__``
function and say so with a SourceWarning."""

from __future__ import annotations

import functools

import pytest

from cudalite.core.errors import SourceWarning


def scale(x):
    return x * 3


def test_compile_ptx_and_jit_accept_a_c_wrapper():
    from cudalite import cuda, nvvm

    cached = functools.lru_cache(scale)
    with pytest.warns(SourceWarning):
        ptx, resty = nvvm.compile_ptx(cached, "int32(int32)", device=True, cc=(9, 0))
    assert str(resty) == "int32" and "mul.lo.s32" in ptx
    with pytest.warns(SourceWarning):
        disp = cuda.jit(device=True)(cached)
    assert disp.py_func is scale
    with pytest.warns(SourceWarning):
        assert cuda.jit(cached, device=True).py_func is scale


def test_compile_ptx_refuses_what_is_not_a_function():
    from cudalite import nvvm

    with pytest.raises(TypeError, match="expected a Python function"):
        nvvm.compile_ptx(len, "int32(int32)", device=True)
