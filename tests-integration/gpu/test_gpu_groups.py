"""Grid-wide synchronization (cooperative groups) on the GPU."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import nvvm as cuda
from cudalite.nvvm.api import make_options
from cudalite.nvvm.pipeline import EntrySpec, run_pipeline

def shift_rounds(buf, out, rounds):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = buf.shape[0]
    buf[i] = i
    for r in range(rounds):
        g.sync()
        v = buf[(i + 97) % n]  # a value written by another block in the previous round
        g.sync()
        buf[i] = v + 1
    g.sync()
    out[i] = buf[i]


def test_kernel_using_grid_sync_is_flagged_for_cooperative_launch():
    res = run_pipeline(shift_rounds, "void(int64[::1], int64[::1], int32)", EntrySpec(device=False),
                       make_options(cc=(9, 0)), until="nvvm-ir")
    assert res.uses_grid_sync


@pytest.mark.gpu
@pytest.mark.nosim("too slow under the simulator (8192 threads, 41 grid barriers)")
def test_grid_sync_orders_all_blocks(gpu):
    blocks, threads, rounds = 64, 128, 20
    n = blocks * threads
    buf = np.zeros(n, np.int64)
    out = np.zeros(n, np.int64)
    gpu.run(shift_rounds, [buf, out, np.int32(rounds)], grid=blocks, block=threads, cooperative=True)
    ref = np.arange(n, dtype=np.int64)
    for _ in range(rounds):
        ref = np.roll(ref, -97) + 1
    np.testing.assert_array_equal(out, ref)
