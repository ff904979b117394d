"""``cuda.gpus`` indexes like numba's device list: ints (negative too) and slices (GPU-less:
the device count is faked)."""

from __future__ import annotations

import pytest

from cudalite.cuda._runtime import api as _runtime


def test_gpus_index_and_slice(monkeypatch):
    monkeypatch.setattr(_runtime._drv, "device_count", lambda: 3)
    gpus = _runtime.gpus
    assert [g._id for g in gpus[1:]] == [1, 2]
    assert [g._id for g in gpus[::-2]] == [2, 0]
    assert gpus[5:] == []
    assert gpus[-1]._id == 2 and gpus[0]._id == 0
    with pytest.raises(IndexError):
        gpus[3]
    with pytest.raises(TypeError):
        gpus[1.0]
