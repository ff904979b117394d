"""GPU-less checks of the CUDA graph API's argument errors (``Stream.capture``); the
captures themselves run in tests-integration/gpu/test_gpu_graphs.py."""

import types

import pytest

from cudalite import cuda
from cudalite.cuda import Stream


def _stream(handle):
    return Stream(types.SimpleNamespace(handle=handle, owned=True, device_id=0))


def test_default_streams_cannot_be_captured():
    for s in (cuda.default_stream(), cuda.legacy_default_stream(), cuda.per_thread_default_stream()):
        with pytest.raises(ValueError, match="default streams cannot be captured"):
            s.capture()


def test_capture_mode_is_checked_before_anything_runs():
    with pytest.raises(ValueError, match="capture mode must be one of 'global', 'thread_local', 'relaxed', "
                                         "got 'eager'"):
        _stream(0x1234).capture(mode="eager")


def test_recapture_needs_the_same_stream_and_mode():
    a, b = _stream(0x1234), _stream(0x5678)
    g = a.capture()
    assert a.capture(graph=g) is g
    with pytest.raises(ValueError, match="captured on .*0x1234.*same stream"):
        b.capture(graph=g)
    with pytest.raises(ValueError, match="captured in mode 'global', not 'relaxed'"):
        a.capture(graph=g, mode="relaxed")
    with pytest.raises(TypeError, match="graph must be a CUDAGraph"):
        a.capture(graph=object())


def test_an_uncaptured_graph_cannot_launch():
    g = _stream(0x1234).capture()
    with pytest.raises(RuntimeError, match="not been captured yet"):
        g.launch()
    with pytest.raises(RuntimeError, match="not been captured yet"):
        g.kernel_nodes()
    assert "empty" in repr(g)
