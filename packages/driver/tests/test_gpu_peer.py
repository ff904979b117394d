"""GPU tests of the peer functions: ``copy_peer`` (one device, and between two when
present), ``can_access_peer``, ``enable_peer_access``, ``stream_device``,
``current_device_id`` and the per-thread device."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import cudalite.driver as drv

pytestmark = pytest.mark.gpu


def _round_trip(dst_dev, src_dev, stream=None):
    x = np.arange(4096, dtype=np.uint8)
    drv.set_current_device(src_dev)
    src = drv.alloc(x.nbytes)
    drv.copy_host_to_device(src, x)
    drv.set_current_device(dst_dev)
    dst = drv.alloc(x.nbytes)
    drv.set_current_device(0)
    drv.copy_peer(dst, dst_dev, src, src_dev, stream=stream)
    if stream is not None:
        stream.synchronize()
    out = np.zeros_like(x)
    drv.set_current_device(dst_dev)
    drv.copy_device_to_host(out, dst)
    drv.set_current_device(0)
    np.testing.assert_array_equal(out, x)
    assert (src.device_id, dst.device_id) == (src_dev, dst_dev)


def test_copy_peer_on_one_device_and_queries():
    _round_trip(0, 0)
    _round_trip(0, 0, stream=drv.Stream())
    assert drv.can_access_peer(0, 0) is False
    assert drv.current_device_id() == 0
    assert drv.stream_device(drv.Stream()) == 0
    s = drv.Stream()
    assert drv.stream_device(s.handle) == 0  # asked through cuStreamGetDevice


def test_copy_peer_between_two_devices():
    if drv.device_count() < 2:
        pytest.skip("needs 2 GPUs")
    _round_trip(1, 0)
    _round_trip(0, 1)
    drv.set_current_device(1)
    s1 = drv.Stream()
    drv.set_current_device(0)
    _round_trip(0, 1, stream=s1)
    assert drv.stream_device(s1.handle) == 1
    if drv.can_access_peer(0, 1):
        drv.enable_peer_access(0, 1)
        drv.enable_peer_access(0, 1)  # idempotent
    seen = []
    t = threading.Thread(target=lambda: (drv.set_current_device(1), seen.append(drv.current_device_id())))
    t.start()
    t.join()
    assert seen == [1] and drv.current_device_id() == 0
