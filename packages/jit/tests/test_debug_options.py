"""``cuda.jit``'s debug options GPU-less: the ``CUDALITE_CUDA_DEBUGINFO`` default,
numba's ``_dbg_optnone``, the missing-source warning, line information through
inlined device functions, and a device function's ``signatures``."""

from __future__ import annotations

import re
import warnings

import pytest

from cudalite import cuda
from cudalite import types as T
from cudalite.core.errors import NumbaDebugInfoWarning


def store_one(x):
    x[0] = 1


def test_debuginfo_default_from_the_environment(monkeypatch):
    monkeypatch.setenv("CUDALITE_CUDA_DEBUGINFO", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cuda.jit(opt=False)(store_one).options.debug is True
    assert cuda.jit(debug=False)(store_one).options.debug is False  # an explicit debug= wins
    monkeypatch.setenv("CUDALITE_CUDA_DEBUGINFO", "0")
    assert cuda.jit(store_one).options.debug is False


def test_debuginfo_default_is_off(monkeypatch):
    monkeypatch.delenv("CUDALITE_CUDA_DEBUGINFO", raising=False)
    assert cuda.jit(store_one).options.debug is False


def test_bad_debuginfo_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("CUDALITE_CUDA_DEBUGINFO", "maybe")
    with pytest.raises(ValueError, match="CUDALITE_CUDA_DEBUGINFO"):
        cuda.jit(store_one)


def test_dbg_optnone_is_accepted():
    @cuda.jit("int64(boolean, boolean)", debug=True, opt=False, _dbg_optnone=True, device=True)
    def choice(a, b):
        if a and b:
            return 1
        return 2

    assert choice.signatures == [(T.boolean, T.boolean)]
    text = choice.inspect_llvm()[choice.signatures[0]]
    assert "llvm.dbg.declare" in text


def test_debug_build_without_source_warns():
    ns = {}
    exec("def foo(x):\n    x[0] = 1\n", {}, ns)
    k = cuda.jit(debug=True, opt=False)(ns["foo"])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", NumbaDebugInfoWarning)
        k.compile((T.int32[:],))
    found = [x for x in w if x.category is NumbaDebugInfoWarning]
    assert len(found) == 1
    assert "Could not find source for function" in str(found[0].message)
    assert str(ns["foo"]) in str(found[0].message)


def test_debug_build_with_source_does_not_warn():
    k = cuda.jit(debug=True, opt=False)(store_one)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", NumbaDebugInfoWarning)
        k.compile((T.int32[:],))
    assert not [x for x in w if x.category is NumbaDebugInfoWarning]


def test_lineinfo_follows_inlined_device_functions():
    @cuda.jit(lineinfo=True, device=True)
    def callee(x):
        x[0] += 1

    @cuda.jit(lineinfo=True)
    def caller(x):
        x[0] = 1
        callee(x)

    sig = (T.int32[:],)
    caller.compile(sig)
    ptx = caller.inspect_asm(sig)
    assert re.search(r"\.loc\s+\d+\s+\d+\s+\d+, function_name [^,]+, inlined_at \d+ \d+ \d+", ptx)
    assert not re.search(r"^\.weak\s+\.func", ptx, re.MULTILINE)
    assert ", debug" not in ptx and ".debug_info" not in ptx
