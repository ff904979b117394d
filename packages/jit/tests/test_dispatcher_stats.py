"""``kernel.stats`` counts cache hits and misses per signature, as numba's dispatcher
(GPU-less: the compiler is replaced by a fake reporting the cache status)."""

from __future__ import annotations

from cudalite import cuda
from cudalite.cuda import types
from cudalite.cuda._dispatch import kernel as _dispatcher


class _FakeKernel:
    def __init__(self, status):
        self.status = status


def test_stats_count_hits_and_misses(monkeypatch, tmp_path):
    monkeypatch.setattr(_dispatcher, "current_cc", lambda: (8, 0))
    monkeypatch.setenv("CUDALITE_CACHE_DIR", str(tmp_path))

    @cuda.jit
    def k(a):
        a[0] = 1

    statuses = iter(["miss", "hit", "off"])
    k._compiler = lambda *a: _FakeKernel(next(statuses))
    assert sum(k.stats.cache_hits.values()) == 0 and sum(k.stats.cache_misses.values()) == 0
    k.compile((types.int32[::1],))
    k.compile((types.float32[::1],))
    k.compile((types.float32[::1],))  # compiled already: not counted again
    k.compile((types.int64[::1],))
    assert k.stats.cache_hits == {(types.float32[::1],): 1}
    assert k.stats.cache_misses == {(types.int32[::1],): 1, (types.int64[::1],): 1}
    assert k.stats.cache_path == str(tmp_path / "kernels")
