"""The simulator's launch limits (GPU-less): a configuration the GPU refuses is refused
with the compiled runtime's exception and message, and a valid huge grid is walked
lazily, block after block, never materialised as a list of indices."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pytest

from cudalite.cuda import simulator as sim
from cudalite.cuda._launch import config as launch_config
from cudalite.cuda.simulator import launch as sim_launch
from cudalite.cuda.simulator.context import Dim3


@sim.jit
def _noop(a):
    pass


@pytest.mark.parametrize("config", [
    (1.5, 32), (1, 32.0), ((1, 65536, 1), 1), ((1, 1, 65536), 1), (2**31, 1), ((2**31, 1, 1), 1),
    (1, (1025,)), (1, (1, 1025)), (1, (1, 1, 65)), (1, (32, 32, 2)), (1.0, 1)], ids=repr)
def test_refused_as_on_the_gpu(config):
    with pytest.raises((ValueError, TypeError)) as expected:
        launch_config.parse_config(config)
    with pytest.raises(type(expected.value)) as got:
        _noop[config]
    assert str(got.value) == str(expected.value)


def test_exact_messages_of_the_limits():
    with pytest.raises(TypeError, match=r"^griddim must be a sequence of integers, got \[1\.5\] "
                                        r"\(1\.5 is a float, not an int\)$"):
        _noop[1.5, 32]
    with pytest.raises(ValueError, match=r"^griddim \(1, 65536, 1\) exceeds the CUDA limit 65535 in dimension y$"):
        _noop[(1, 65536, 1), 1]
    with pytest.raises(ValueError, match=r"^griddim \(2147483648, 1, 1\) exceeds the CUDA limit 2147483647 in "
                                         r"dimension x$"):
        _noop[(2**31, 1, 1), 1]
    with pytest.raises(ValueError, match=r"^blockdim \(32, 32, 2\) has 2048 threads; a block has at most 1024$"):
        _noop[1, (32, 32, 2)]


def test_largest_valid_dimensions_are_accepted():
    configured = _noop[(2**31 - 1, 65535, 65535), (1024, 1, 1)]
    assert tuple(configured.griddim) == (2**31 - 1, 65535, 65535)
    assert tuple(_noop[1, (1, 1, 64)].blockdim) == (1, 1, 64)


def test_block_and_thread_indices_are_lazy_and_in_order():
    grid = Dim3(2**31 - 1, 65535, 65535)
    before = tracemalloc.is_tracing()
    tracemalloc.start()
    try:
        it = sim_launch._block_indices(grid)
        first = [next(it) for _ in range(3)]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if not before:
            tracemalloc.stop()
    assert first == [Dim3(0, 0, 0), Dim3(1, 0, 0), Dim3(2, 0, 0)]
    assert peak < 1 << 20  # bytes: nothing proportional to the grid
    small = Dim3(2, 3, 2)
    expected = [Dim3(x, y, z) for z in range(2) for y in range(3) for x in range(2)]  # x fastest
    assert list(sim_launch._block_indices(small)) == expected
    assert list(sim_launch._thread_indices(small)) == expected


def test_huge_grid_runs_in_bounded_memory():
    """A grid of 2**31 - 1 blocks whose first thread raises: the launch stops at block 0
    in a process limited to 1 GiB of address space (materialising the indices would need
    tens of GB)."""
    pytest.importorskip("resource")  # RLIMIT_AS: POSIX only
    code = textwrap.dedent("""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        import numpy as np
        from cudalite.cuda import simulator as sim

        @sim.jit
        def k(a):
            a[sim.grid(1) + 5] = 1

        try:
            k[2**31 - 1, 1](np.zeros(3))
        except IndexError as e:
            print("IndexError", "ctaid=[0, 0, 0]" in str(e))
        """)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert (proc.returncode, proc.stdout.strip()) == (0, "IndexError True"), proc.stderr[-2000:]


def test_huge_grid_result_matches_numpy_prefix():
    @sim.jit
    def k(a):
        i = sim.grid(1)
        if i < a.size:
            a[i] = i * 2
        if i == a.size:
            a[i] = 0  # out of bounds: stops the launch of a grid far too big to finish

    a = np.zeros(8, dtype=np.int64)
    with pytest.raises(IndexError, match=r"ctaid=\[2, 0, 0\]"):
        k[2**31 - 1, 4](a)
    np.testing.assert_array_equal(a, np.arange(8) * 2)
