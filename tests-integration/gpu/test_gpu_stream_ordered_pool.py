"""GPU: ``cuda.set_memory_manager(cuda.StreamOrderedMemoryManager)`` in a fresh process:
arrays and ufunc outputs come from the device's default pool (its used memory grows
by them), results equal NumPy's, freed memory is reused, work on a ``cuda.stream()``
(blocking) is ordered before the free, and IPC handles are refused."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("the driver's stream-ordered memory pool")]

PROGRAM = r"""
import numpy as np
from cuda.bindings import driver as cu
from cudalite import cuda
import cudalite.driver as drv

cuda.set_memory_manager(cuda.StreamOrderedMemoryManager)
dev = drv.current_device()
err, pool = cu.cuDeviceGetDefaultMemPool(dev.handle)
def used():
    err, v = cu.cuMemPoolGetAttribute(pool, cu.CUmemPool_attribute.CU_MEMPOOL_ATTR_USED_MEM_CURRENT)
    return int(v)

base = used()
a = cuda.to_device(np.arange(1 << 20, dtype=np.float32))
assert used() >= base + (1 << 22), (base, used())

@cuda.vectorize(["float32(float32, float32)"])
def add(x, y):
    return x + y

x = np.arange(10000, dtype=np.float32)
dx, dy = cuda.to_device(x), cuda.to_device(2 * x)
for _ in range(50):  # new outputs, freed as they go: the pool hands the memory out again
    r = add(dx, dy)
    np.testing.assert_array_equal(r.copy_to_host(), 3 * x)
del r
peak = used()
for _ in range(50):
    add(dx, dy)
cuda.synchronize()
assert used() <= peak + (1 << 21), (peak, used())

@cuda.jit
def slow_fill(out, v):  # long enough that the free would overtake it without stream order
    i = cuda.grid(1)
    if i < out.size:
        acc = 0.0
        for k in range(2000):
            acc += v
        out[i] = acc / 2000

s = cuda.stream()
for _ in range(20):
    tmp = cuda.device_array(1 << 16, np.float32, stream=s)
    slow_fill[256, 256, s](tmp, 1.0)
    keep = cuda.device_array(1 << 16, np.float32, stream=s)
    slow_fill[256, 256, s](keep, 7.0)
    del tmp  # freed on the legacy stream, after s's kernels (s blocks with it)
    fresh = cuda.to_device(np.zeros(1 << 16, np.float32))
    s.synchronize()
    np.testing.assert_allclose(keep.copy_to_host(), 7.0)
    np.testing.assert_array_equal(fresh.copy_to_host(), 0.0)

try:
    a.get_ipc_handle()
except NotImplementedError as e:
    assert "no CUDA IPC handle" in str(e)
else:
    raise AssertionError("IPC handle of pool memory was not refused")
print("OK")
"""


def test_stream_ordered_pool_end_to_end(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env["CUDALITE_CACHE_DIR"] = str(tmp_path / "cache")
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", textwrap.dedent(PROGRAM)], capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stderr[-3000:]
