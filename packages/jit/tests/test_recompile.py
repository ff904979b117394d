"""``kernel.recompile()`` compiles every signature afresh, reading globals again (numba's
recompile).  GPU-less: the kernels are built (not loaded) for sm_80."""

from __future__ import annotations

import functools

import pytest

from cudalite import cuda
from cudalite.cuda import types
from cudalite.cuda._dispatch import kernel as _dispatcher
from cudalite.cuda._compiler.kernel import CompiledKernel

Z = 1


def _add(r, x):
    r[0] = x + Z


def test_recompile_reads_globals_again(monkeypatch):
    monkeypatch.setattr(_dispatcher, "current_cc", lambda: (8, 0))
    k = cuda.jit(_add)
    k._compiler = functools.partial(CompiledKernel, load=False)
    sig = (types.int64[::1], types.int64)
    k.compile(sig)
    before = k.overloads[sig].inspect_llvm()
    assert k.stats.cache_misses[sig] == 1
    monkeypatch.setitem(globals(), "Z", 1234567)
    k.compile(sig)
    assert k.overloads[sig].inspect_llvm() == before  # frozen at compile time
    k.recompile()
    after = k.overloads[sig].inspect_llvm()
    assert "1234567" in after and "1234567" not in before
    assert list(k.overloads) == [sig] and k.stats.cache_misses[sig] == 2


def test_specialization_records_are_immutable_values():
    from cudalite.cuda._dispatch.specializations import Specialization, SpecTable

    k = object()
    a = Specialization((types.float32,), k)
    assert a == Specialization([types.float32], k) and a != Specialization((types.float32,), object())
    with pytest.raises(AttributeError, match="immutable"):
        a.kernel = None
    table = SpecTable([Specialization((types.int32,))])
    assert table.pending() == [(types.int32,)] and table.kernels() == {}
    table.put(Specialization((types.int32,), k))  # replaces the pending record
    assert table.pending() == [] and table.kernels() == {(types.int32,): k}
