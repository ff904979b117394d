"""``GraphExec.launch``'s lean path (no generic call layers), GPU-less with a fake
binding module: the stream reaches the driver as given, an error names the call."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

import pytest
from cuda.bindings import driver as cub

from cudalite.driver import CudaDriverError, Stream

graph_mod = importlib.import_module("cudalite.driver.graph")


def _exec():
    ex = graph_mod.GraphExec.__new__(graph_mod.GraphExec)
    ex._cu = cub.CUgraphExec(0x1234)
    return ex


def _fake(result, seen):
    def cuGraphLaunch(hexec, hstream):
        seen.append((int(hexec), int(hstream)))
        return (result,)
    return SimpleNamespace(cuGraphLaunch=cuGraphLaunch)


def test_launch_passes_exec_and_stream(monkeypatch):
    seen = []
    monkeypatch.setattr(graph_mod, "cu", lambda: _fake(cub.CUresult.CUDA_SUCCESS, seen))
    ex = _exec()
    ex.launch(0x77)
    ex.launch(None)
    owned = Stream.__new__(Stream)  # an owned stream without a driver: only its CUstream matters here
    owned._cu = cub.CUstream(0x99)
    ex.launch(owned)
    assert seen == [(0x1234, 0x77), (0x1234, 0), (0x1234, 0x99)]


def test_launch_error_names_the_call(monkeypatch):
    monkeypatch.setattr(graph_mod, "cu", lambda: _fake(cub.CUresult.CUDA_ERROR_INVALID_VALUE, []))
    with pytest.raises(CudaDriverError) as info:
        _exec().launch(0)
    assert info.value.call == "cuGraphLaunch" and info.value.name == "CUDA_ERROR_INVALID_VALUE"
