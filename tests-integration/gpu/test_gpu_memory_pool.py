"""The device-memory pool on the GPU (cudalite.driver.pool): a freed array's block is
not reused while work queued before its death may still run -- here a kernel still
writing it on another, non-blocking stream -- and is reused after the flush's
synchronization; results stay right; ``CUDALITE_MEMORY_POOL=0`` turns it off."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite import cuda

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("the simulator has no device memory pool")]

N = 123_457  # elements: a size class (float32, rounded to 512 bytes) no other test uses


@cuda.jit
def slow_fill(a, value, naps):
    i = cuda.grid(1)
    if i < a.size:
        for _ in range(naps):  # keeps the kernel running for a while (~1 us a nap)
            cuda.nanosleep(1000)
        a[i] = value


def test_a_block_still_in_use_on_another_stream_is_reused_only_after_the_flush():
    ctx = cuda.current_context()
    ctx.deallocations.clear()
    s = cuda.stream()
    a = cuda.device_array(N, np.float32)
    first = a.device_ctypes_pointer.value
    slow_fill[(N + 255) // 256, 256, s](a, 7.0, 2000)  # still running on s when `a` dies
    del a
    gc.collect()
    assert len(ctx.deallocations) >= 1
    b = cuda.device_array(N, np.float32)
    assert b.device_ctypes_pointer.value != first  # pending: not reused before a synchronization
    ctx.deallocations.clear()  # the flush: waits for the slow kernel, then the block is reusable
    c = cuda.device_array(N, np.float32)
    assert c.device_ctypes_pointer.value == first
    slow_fill[(N + 255) // 256, 256](c, 3.0, 0)
    assert np.all(c.copy_to_host() == 3.0)
    s.synchronize()


def test_many_new_outputs_stay_correct_and_reuse_memory():
    pool = drv.memory_pool()
    x = cuda.to_device(np.arange(4096, dtype=np.float64))

    @cuda.vectorize(["float64(float64, float64)"])
    def axpy(a, b):
        return 2.0 * a + b

    addresses = set()
    for i in range(500):
        out = axpy(x, float(i))
        addresses.add(out.device_ctypes_pointer.value)
        if i % 97 == 0:
            assert np.array_equal(out.copy_to_host(), 2.0 * np.arange(4096) + i)
    del out
    cuda.synchronize()
    assert pool.outstanding >= 1  # x
    # reused: blocks come back after each flush (every 64), not 500 separate allocations
    # (counted in this process: the device's free memory moves with other processes' work)
    assert len(addresses) <= 2 * 64 + 1


def test_memory_pool_can_be_turned_off():
    code = textwrap.dedent("""
        import cudalite.driver as drv
        from cudalite import cuda
        a = cuda.device_array(1000)
        print(a.gpu_data._give is None, drv.memory_pool().outstanding)
    """)
    env = dict(os.environ, CUDALITE_MEMORY_POOL="0")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "0"]
