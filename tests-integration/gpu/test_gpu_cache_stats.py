"""GPU: ``kernel.stats`` reports a miss for a first compile and a hit when a fresh import
of the same module reads the kernel from the disk cache (numba's check_hits)."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("the on-disk kernel cache")]

SOURCE = """
from cudalite import cuda

@cuda.jit(cache=True)
def add(r, x, y):
    r[()] = x[()] + y[()]
"""


def test_stats_after_fresh_import(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDALITE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cl_stats_mod.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        counts = []
        for _ in range(2):
            sys.modules.pop("cl_stats_mod", None)
            mod = importlib.import_module("cl_stats_mod")
            r = np.zeros((), dtype=np.float64)
            mod.add[1, 1](r, np.asarray(2.0), np.asarray(3.5))
            assert r[()] == 5.5
            st = mod.add.stats
            counts.append((sum(st.cache_hits.values()), sum(st.cache_misses.values())))
        assert counts == [(0, 1), (1, 0)]
    finally:
        sys.modules.pop("cl_stats_mod", None)
