"""GPU tests (``@pytest.mark.gpu``) of the one launch entry: ``Launcher.bind`` on
every backend, the cooperative attribute (a grid-wide barrier; a grid too large to
be co-resident refused by cuLaunchKernelEx), thread-block clusters chosen at launch
and programmatic dependent launch (compute capability 9.0+), against hand-written
PTX kernels (driver_kernels.py)."""

from __future__ import annotations

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite.driver import CudaDriverError, LaunchConfig

pytestmark = pytest.mark.gpu
BACKENDS = ["shim", "cffi", "bindings", "ctypes"]


def _zeros(n, dtype=np.float32):
    """Zeroed device memory, the zeros in place before this returns: cuMemsetD8 is
    asynchronous for device memory and runs on the legacy stream, which a
    non-blocking stream's kernels do not wait for (the PDL test below read 40s and
    16s where it expected 20s under ``-n 8`` on the H200)."""
    d = drv.alloc(n * np.dtype(dtype).itemsize)
    drv.memset(d, 0)
    drv.synchronize()
    return d


def _read(d, n, dtype=np.float32):
    out = np.empty(n, dtype)
    drv.copy_device_to_host(out, d)
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_bind_launches_on_each_backend(module, backend):
    lau = module.get_function("add_one").launcher("Qi", backend=backend)
    assert lau.backend == backend
    n = 1000
    d, s = _zeros(n), drv.Stream()
    plain = lau.bind(LaunchConfig(((n + 127) // 128, 1, 1), (128, 1, 1), stream=s.handle))
    with_attrs = lau.bind(plain.config.replace(cooperative=True))
    for _ in range(3):
        plain(d.ptr, n)
        with_attrs(d.ptr, n)
    lau.launch(plain.config, d.ptr, n)
    s.synchronize()
    assert (_read(d, n) == 7).all()


@pytest.mark.parametrize("backend", BACKENDS)
def test_cooperative_attribute_gives_a_grid_barrier(module, backend):
    """Every block waits for all the others (a hand-made grid barrier): it finishes
    because the cooperative launch keeps the whole grid co-resident."""
    fn = module.get_function("grid_sync")
    blocks = drv.current_device().multiprocessor_count
    counter, out = _zeros(1, np.uint32), _zeros(blocks, np.uint32)
    launch = fn.launcher("QQ", backend=backend).bind(LaunchConfig((blocks, 1, 1), (32, 1, 1), cooperative=True))
    launch(counter.ptr, out.ptr)
    drv.synchronize()
    assert (_read(out, blocks, np.uint32) == blocks).all()
    assert _read(counter, 1, np.uint32)[0] == blocks


@pytest.mark.parametrize("backend", BACKENDS)
def test_cooperative_attribute_reaches_the_driver(module, backend):
    """A grid too large to be co-resident: refused as a cooperative launch
    (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE from cuLaunchKernelEx), accepted as a
    plain one."""
    fn = module.get_function("add_one")
    lau = fn.launcher("Qi", backend=backend)
    too_many = drv.current_device().multiprocessor_count * 64 + 1
    d = _zeros(32)
    cfg = LaunchConfig((too_many, 1, 1), (1024, 1, 1))
    with pytest.raises(CudaDriverError) as info:
        lau.bind(cfg.replace(cooperative=True))(d.ptr, 32)
    assert info.value.name == "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE" and info.value.call == "cuLaunchKernelEx"
    lau.bind(cfg)(d.ptr, 32)
    drv.synchronize()
    assert (_read(d, 32) == 1).all()


@pytest.mark.parametrize("backend", BACKENDS)
def test_cluster_attribute_groups_blocks(sm90_module, backend):
    """``cluster=(2, 1, 1)``: blocks 2k and 2k+1 form cluster k (ranks 0 and 1 of 2);
    without the attribute every block is a cluster of one."""
    lau = sm90_module.get_function("cluster_ids").launcher("Q", backend=backend)
    blocks = 8
    out = _zeros(3 * blocks, np.uint32)
    lau.bind(LaunchConfig((blocks, 1, 1), (32, 1, 1), cluster=(2, 1, 1)))(out.ptr)
    drv.synchronize()
    got = _read(out, 3 * blocks, np.uint32).reshape(blocks, 3)
    ids = np.arange(blocks)
    np.testing.assert_array_equal(got, np.stack([ids // 2, ids % 2, np.full(blocks, 2)], axis=1))
    lau.bind(LaunchConfig((blocks, 1, 1), (32, 1, 1)))(out.ptr)
    drv.synchronize()
    got = _read(out, 3 * blocks, np.uint32).reshape(blocks, 3)
    np.testing.assert_array_equal(got, np.stack([ids, np.zeros(blocks), np.ones(blocks)], axis=1))


def test_cluster_not_dividing_the_grid_is_refused(sm90_module):
    lau = sm90_module.get_function("cluster_ids").launcher("Q")
    out = _zeros(3 * 3, np.uint32)
    with pytest.raises(CudaDriverError) as info:
        lau.bind(LaunchConfig((3, 1, 1), (32, 1, 1), cluster=(2, 1, 1)))(out.ptr)
    assert info.value.call == "cuLaunchKernelEx"


@pytest.mark.parametrize("backend", BACKENDS)
def test_programmatic_dependent_launch_is_accepted(sm90_module, backend):
    """A chain of PDL launches of a kernel that waits on griddepcontrol: every launch
    is accepted and their effects are ordered (each adds one after the previous)."""
    lau = sm90_module.get_function("add_one_pdl").launcher("Qi", backend=backend)
    n = 1 << 16
    d, s = _zeros(n), drv.Stream()
    launch = lau.bind(LaunchConfig((n // 256, 1, 1), (256, 1, 1), stream=s.handle, programmatic_dependent_launch=True))
    for _ in range(20):
        launch(d.ptr, n)
    s.synchronize()
    assert (_read(d, n) == 20).all()


def test_generic_launch_with_attributes(module):
    fn = module.get_function("grid_sync")
    blocks = drv.current_device().multiprocessor_count
    counter, out = _zeros(1, np.uint32), _zeros(blocks, np.uint32)
    drv.launch_cooperative(fn, blocks, 32, [(counter, "Q"), (out, "Q")])
    drv.synchronize()
    assert (_read(out, blocks, np.uint32) == blocks).all()
