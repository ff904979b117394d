"""Warp specialisation and programmatic dependent launch on the GPU (cc >= 9.0):
``cuda.elect_sync`` elects one lane per warp, ``cuda.named_barrier`` orders producer
warps before consumer warps, a chain of kernels launched with
``programmatic_dependent_launch=True`` and ``cuda.griddepcontrol`` computes what
NumPy computes, and ``cuda.fence_proxy_async`` runs (the PTX each emits is checked
GPU-less: tests-integration/test_warpspec_compile.py)."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("warp specialisation (sm_90)")]


@pytest.fixture(autouse=True)
def _sm90():
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("named barriers, elect.sync and griddepcontrol need cc >= 9.0")


def test_elect_sync_elects_one_lane_per_warp():
    @cuda.jit
    def elect(count, lane_of):
        warp = cuda.threadIdx.x // 32
        if cuda.elect_sync():
            cuda.atomic.add(count, warp, 1)
            lane_of[warp] = cuda.laneid

    count = cuda.to_device(np.zeros(8, np.int32))
    lane_of = cuda.to_device(np.full(8, -1, np.int32))
    elect[1, 256](count, lane_of)
    assert count.copy_to_host().tolist() == [1] * 8
    assert all(0 <= lane < 32 for lane in lane_of.copy_to_host())


def test_named_barrier_orders_producer_warps_before_consumers():
    """Warps 0-1 write shared memory and arrive on barrier 1; warps 2-3 wait on it (128
    threads) and read what the producers wrote, many rounds in a loop."""
    @cuda.jit
    def produce_consume(out, rounds):
        buf = cuda.shared.array(64, np.int32)
        tid = cuda.threadIdx.x
        for r in range(rounds):
            if tid < 64:
                buf[tid] = tid * 2 + r
                cuda.named_barrier.arrive(1, 128)  # the data is there
                cuda.named_barrier.sync(2, 128)    # wait until the consumers have read it
            else:
                cuda.named_barrier.sync(1, 128)
                out[r, tid - 64] = buf[tid - 64] + 1
                cuda.named_barrier.arrive(2, 128)

    rounds = 50
    out = cuda.to_device(np.zeros((rounds, 64), np.int32))
    produce_consume[1, 128](out, rounds)
    expect = np.arange(64)[None, :] * 2 + np.arange(rounds)[:, None] + 1
    np.testing.assert_array_equal(out.copy_to_host(), expect)


def test_dependent_launches_wait_for_the_grid_before():
    @cuda.jit
    def first(x, v):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = v + i
        cuda.griddepcontrol.launch_dependents()

    @cuda.jit(programmatic_dependent_launch=True)
    def second(y, x):
        i = cuda.grid(1)
        cuda.griddepcontrol.wait()  # x is written: the grid before has completed
        if i < y.size:
            y[i] = x[i] * 2

    assert second[64, 256].config.programmatic_dependent_launch
    n = 1 << 14
    x, y = cuda.device_array(n, np.int64), cuda.device_array(n, np.int64)
    s = cuda.stream()
    for v in range(20):
        first[n // 256, 256, s](x, v * 1000)
        second[n // 256, 256, s](y, x)
        s.synchronize()
        np.testing.assert_array_equal(y.copy_to_host(), (np.arange(n) + v * 1000) * 2)


def test_fence_proxy_async_runs():
    @cuda.jit
    def fenced(out):
        buf = cuda.shared.array(32, np.int32)
        buf[cuda.threadIdx.x] = cuda.threadIdx.x
        cuda.fence_proxy_async()
        cuda.syncthreads()
        out[cuda.threadIdx.x] = buf[31 - cuda.threadIdx.x]

    out = cuda.to_device(np.zeros(32, np.int32))
    fenced[1, 32](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(32)[::-1])
