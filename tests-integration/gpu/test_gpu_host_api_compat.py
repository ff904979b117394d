"""numba.cuda host-API behaviours on the GPU (issue 11, compat-r3b): ``driver``
overrides reach cudalite's transfers, device data needs none, ``__cuda_array_interface__``
streams (produced by device/mapped/managed arrays, synchronized on import through
``cudadrv.driver.Stream``), ``with device:``, ``max_cooperative_grid_blocks``,
``inspect_asm`` for the current device."""

from __future__ import annotations

import threading
from unittest.mock import patch

import numpy as np
import pytest

from cudalite import cuda
from cudalite.cuda.cudadrv.driver import CudaAPIError, driver

pytestmark = pytest.mark.gpu


def _refuse(*args):
    raise CudaAPIError(999, "Transfer not allowed")


@pytest.mark.nosim("launch path and driver internals (driver call overrides)")
def test_driver_override_blocks_transfers_but_not_device_ufuncs():
    dev = cuda.to_device(np.arange(16, dtype=np.float32))
    old_h, old_d = driver.cuMemcpyHtoD, driver.cuMemcpyDtoH
    driver.cuMemcpyHtoD = driver.cuMemcpyDtoH = _refuse
    try:
        with pytest.raises(CudaAPIError, match="Transfer not allowed"):
            dev.copy_to_host()
        with pytest.raises(CudaAPIError, match="Transfer not allowed"):
            cuda.to_device([1])

        @cuda.vectorize(["float32(float32)"], target="cuda")
        def plus1(x):
            return x + 1.0

        out = plus1(dev)  # device in, device out: no transfer
    finally:
        driver.cuMemcpyHtoD, driver.cuMemcpyDtoH = old_h, old_d
    del driver.cuMemcpyHtoD, driver.cuMemcpyDtoH
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(16, dtype=np.float32) + 1)


@pytest.mark.nosim("foreign device arrays: CUDA array interface and DLPack need real device pointers")
def test_cai_reports_the_arrays_stream():
    s = cuda.stream()
    for arr in (cuda.device_array(10, stream=s), cuda.mapped_array(10, stream=s),
                cuda.managed_array(10, stream=s)):
        assert arr.__cuda_array_interface__["stream"] == int(s.handle)
    for arr in (cuda.device_array(10), cuda.mapped_array(10), cuda.managed_array(10)):
        assert arr.__cuda_array_interface__["stream"] is None


class _Foreign:
    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


@pytest.mark.nosim("foreign device arrays: CUDA array interface and DLPack need real device pointers")
def test_cai_import_synchronizes_through_the_driver_stream_class(monkeypatch):
    s = cuda.stream()
    with_stream = _Foreign(cuda.device_array(10, stream=s))
    without = _Foreign(cuda.device_array(10))
    with patch.object(cuda.cudadrv.driver.Stream, "synchronize", return_value=None) as sync:
        c = cuda.as_cuda_array(with_stream)
    sync.assert_called_once_with()
    assert c.stream.external and int(c.stream.handle) == int(s.handle)
    with patch.object(cuda.cudadrv.driver.Stream, "synchronize", return_value=None) as sync:
        assert cuda.as_cuda_array(without).stream == 0
    sync.assert_not_called()
    monkeypatch.setenv("CUDALITE_CUDA_ARRAY_INTERFACE_SYNC", "0")
    with patch.object(cuda.cudadrv.driver.Stream, "synchronize", return_value=None) as sync:
        cuda.as_cuda_array(with_stream)
    sync.assert_not_called()


def test_device_is_a_context_manager_in_each_thread():
    @cuda.jit
    def add1(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    dev = cuda.gpus.current
    d = cuda.to_device(np.zeros(10, np.int64))
    errors = []

    def work():
        try:
            with dev:
                add1[1, 32](d)
            cuda.synchronize()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    np.testing.assert_array_equal(d.copy_to_host(), np.full(10, 4))
    with cuda.gpus[0] as g:
        assert cuda.get_current_device().id == g.id == 0


@pytest.mark.nosim("PTX/SASS inspection")
def test_max_cooperative_grid_blocks_and_inspect_asm():
    @cuda.jit("void(int32[::1])")
    def k(a):
        g = cuda.cg.this_grid()
        a[0] = 1
        g.sync()

    ov = k.overloads[k.signatures[0]]
    mb = ov.max_cooperative_grid_blocks(32)
    assert mb >= cuda.get_current_device().MULTIPROCESSOR_COUNT
    assert ov.max_cooperative_grid_blocks((32, 1, 1)) == mb
    cc = cuda.get_current_device().compute_capability
    assert ".target sm_%s%s" % cc in ov.inspect_asm(cc)
