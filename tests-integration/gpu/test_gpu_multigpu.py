"""GPU: several devices in one process -- arrays remember their device, launches run
on their arguments' device (numba issue #8612: a CuPy array on device 1 while device 0
is current), per-thread current devices, peer copies, and clear errors for arguments
on two devices.  The multi-GPU tests skip unless ``len(cuda.gpus) >= 2``; the first
section runs on one GPU."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite import cuda

pytestmark = [pytest.mark.gpu,
              pytest.mark.nosim("multi-GPU: device routing and peer access (the simulator has one device)")]


@pytest.fixture
def two_gpus():
    """Skip unless two devices are present (asked when the test runs, not at collection)."""
    if len(cuda.gpus) < 2:
        pytest.skip("needs 2 GPUs")
    yield
    assert cuda.get_current_device().id == 0  # every test leaves device 0 current


@cuda.jit
def _axpy(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + out[i]


@cuda.jit
def _fill(out, v):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = v


N = 1000
BLOCKS = (N + 127) // 128


def _run_in_thread(fn):
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as e:  # re-raised in the caller
            box["error"] = e

    t = threading.Thread(target=run)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


# -- one GPU -------------------------------------------------------------------------------
def test_device_arrays_record_their_device():
    x = np.arange(N, dtype=np.float32)
    d = cuda.to_device(x)
    assert d.device_id == 0 and d[10:20].device_id == 0 and d.reshape(10, 100).T.device_id == 0
    assert cuda.device_array(4).device_id == 0
    assert cuda.as_cuda_array(d).device_id == 0  # memory it did not allocate: cuPointerGetAttributes
    assert cuda.as_cuda_array(cuda.managed_array(4)).device_id is None  # every device addresses it
    with cuda.gpus[0]:
        out = cuda.to_device(np.ones(N, np.float32))
        _axpy[BLOCKS, 128](out, d, 2.0)
    np.testing.assert_array_equal(out.copy_to_host(), 2 * x + 1)
    for _ in range(3):  # the generated launch code: no device checks with one GPU
        _axpy[BLOCKS, 128](out, d, 1.0)
    np.testing.assert_array_equal(out.copy_to_host(), 5 * x + 1)
    if len(cuda.gpus) == 1:
        src = _axpy._table.last_factory.source
        assert "CURDEV" not in src and "_device" not in src


def test_one_gpu_peer_and_stream_queries():
    assert cuda.current_context().can_access_peer(0) is False
    assert drv.stream_device(cuda.stream()) == 0 and drv.stream_device(0) is None
    assert _run_in_thread(lambda: cuda.get_current_device().id) == 0
    assert drv.current_device_id() == 0


# -- two GPUs ------------------------------------------------------------------------------
def test_arrays_on_each_device(two_gpus):
    x = np.arange(N, dtype=np.float64)
    with cuda.gpus[0]:
        a0 = cuda.to_device(x)
    with cuda.gpus[1]:
        a1 = cuda.to_device(x * 2)
    assert (a0.device_id, a1.device_id) == (0, 1)
    # copies work whatever device is current: the array's device is made current for them
    for dev in (0, 1):
        with cuda.gpus[dev]:
            np.testing.assert_array_equal(a0.copy_to_host(), x)
            np.testing.assert_array_equal(a1.copy_to_host(), x * 2)
            assert a1[7] == 14.0
    a1[5:10] = np.full(5, -1.0)
    np.testing.assert_array_equal(a1.copy_to_host()[4:11], [8, -1, -1, -1, -1, -1, 20])


def test_launch_runs_on_the_arrays_device(two_gpus):
    x = np.arange(N, dtype=np.float32)
    with cuda.gpus[1]:
        x1, out1 = cuda.to_device(x), cuda.to_device(np.ones(N, np.float32))
    for _ in range(3):  # device 0 current: each launch is routed to device 1
        _axpy[BLOCKS, 128](out1, x1, 1.0)
    assert cuda.get_current_device().id == 0
    with cuda.gpus[1]:
        for _ in range(2):  # device 1 current: the generated launch code takes it
            _axpy[BLOCKS, 128](out1, x1, 1.0)
    np.testing.assert_array_equal(out1.copy_to_host(), 5 * x + 1)
    x0, out0 = cuda.to_device(x), cuda.to_device(np.zeros(N, np.float32))
    _axpy[BLOCKS, 128](out0, x0, 3.0)  # the same specialization, loaded on device 0 too
    np.testing.assert_array_equal(out0.copy_to_host(), 3 * x)
    sig = next(iter(_axpy.overloads))
    kernel = _axpy.overloads[sig]
    assert {kernel.on_device(0).device_id, kernel.on_device(1).device_id} == {0, 1}


def test_scalar_only_kernel_runs_on_the_current_device(two_gpus):
    @cuda.jit
    def where(out):
        out[0] = 1

    with cuda.gpus[1]:
        out = cuda.device_array(1, np.int32)
        where[1, 1](out)  # an array of device 1 from device 1
        np.testing.assert_array_equal(out.copy_to_host(), [1])


def test_stream_of_the_arrays_device(two_gpus):
    x = np.arange(N, dtype=np.float32)
    with cuda.gpus[1]:
        s1 = cuda.stream()
        x1, out1 = cuda.to_device(x, stream=s1), cuda.device_array(N, np.float32, stream=s1)
    _fill[BLOCKS, 128, s1](out1, 2.0)
    _axpy[BLOCKS, 128, s1](out1, x1, 1.0)
    s1.synchronize()
    np.testing.assert_array_equal(out1.copy_to_host(), x + 2)
    s0 = cuda.stream()
    with pytest.raises(ValueError, match=r"stream belongs to device 0 but the array arguments \('out', 'x'\) are "
                                         r"on device 1"):
        _axpy[BLOCKS, 128, s0](out1, x1, 1.0)


def test_mixed_devices_error(two_gpus):
    with cuda.gpus[1]:
        x1 = cuda.to_device(np.ones(N, np.float32))
    out0 = cuda.device_array(N, np.float32)
    with pytest.raises(ValueError) as info:
        _axpy[BLOCKS, 128](out0, x1, 1.0)
    msg = str(info.value)
    assert "kernel '_axpy'" in msg and "'out' on device 0; 'x' on device 1" in msg and "copy_to_device" in msg


def test_per_thread_current_device(two_gpus):
    barrier = threading.Barrier(2)
    seen = {}

    def worker(dev):
        cuda.select_device(dev)
        barrier.wait()  # both threads have selected: each still sees its own
        seen[dev] = cuda.get_current_device().id
        d = cuda.to_device(np.full(N, dev, np.float32))
        _axpy[BLOCKS, 128](d, d, 1.0)
        seen[(dev, "array")] = (d.device_id, float(d.copy_to_host()[0]))

    threads = [threading.Thread(target=worker, args=(dev,)) for dev in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {0: 0, 1: 1, (0, "array"): (0, 0.0), (1, "array"): (1, 2.0)}
    cuda.select_device(1)
    try:  # a new thread starts on device 0 whatever its creator selected (numba)
        assert _run_in_thread(lambda: cuda.get_current_device().id) == 0
    finally:
        cuda.select_device(0)


def test_peer_copy_round_trip(two_gpus):
    x = np.random.default_rng(0).standard_normal((64, 33))
    a0 = cuda.to_device(x)
    with cuda.gpus[1]:
        a1 = cuda.device_array_like(x)
    a1.copy_to_device(a0)  # device 0 -> device 1 from device 0
    with cuda.gpus[1]:
        np.testing.assert_array_equal(a1.copy_to_host(), x)
    b0 = cuda.device_array_like(x)
    with cuda.gpus[1]:
        b0.copy_to_device(a1)  # device 1 -> device 0 from device 1
    np.testing.assert_array_equal(b0.copy_to_host(), x)
    # a stream of either device, a slice, and a strided (non-contiguous) source
    s = cuda.stream()
    a1.copy_to_device(a0, stream=s)
    s.synchronize()
    a1[3] = a0[5]
    np.testing.assert_array_equal(a1.copy_to_host()[3], x[5])
    with cuda.gpus[1]:
        col = cuda.device_array(64)
    col.copy_to_device(a0[:, 7])
    np.testing.assert_array_equal(col.copy_to_host(), x[:, 7])
    with cuda.gpus[0]:
        ctx = cuda.current_context()
        assert ctx.can_access_peer(1) == drv.can_access_peer(0, 1)


def test_numba_multigpu_context_with_host_arrays(two_gpus):
    """numba-cuda's TestMultiGPUContext.test_multigpu_context, with an eager signature."""

    @cuda.jit("void(float64[:], float64[:])")
    def copy_plus_1(inp, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = inp[i] + 1

    n = 32
    with cuda.gpus[0]:
        a0, b0 = np.arange(n, dtype=np.float64), np.zeros(n)
        copy_plus_1[1, n](a0, b0)
        with cuda.gpus[1]:
            a1, b1 = np.arange(n, dtype=np.float64) * 2, np.zeros(n)
            copy_plus_1[1, n](a1, b1)
    np.testing.assert_array_equal(b0, a0 + 1)
    np.testing.assert_array_equal(b1, a1 + 1)


def test_threads_copy_an_array_of_the_current_device(two_gpus):
    """numba-cuda's test_multithreaded: ``with cuda.gpus.current:`` in 10 threads."""
    with cuda.gpus[1]:
        d = cuda.to_device(np.arange(10))
        gpu = cuda.gpus.current
    results = []

    def work():
        with gpu:
            results.append(np.array_equal(d.copy_to_host(), np.arange(10)))

    threads = [threading.Thread(target=work) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 10


def test_cupy_array_on_device_1_while_device_0_is_current(two_gpus):
    """numba issue #8612."""
    cp = pytest.importorskip("cupy")
    x = np.arange(N, dtype=np.float32)
    with cp.cuda.Device(1):
        x1 = cp.asarray(x)
        out1 = cp.ones(N, dtype=cp.float32)
    assert cuda.get_current_device().id == 0
    _axpy[BLOCKS, 128](out1, x1, 2.0)
    _axpy[BLOCKS, 128](out1, x1, 2.0)
    with cp.cuda.Device(1):
        cp.cuda.Device(1).synchronize()
        np.testing.assert_array_equal(cp.asnumpy(out1), 4 * x + 1)
    assert cuda.as_cuda_array(x1).device_id == 1
    with pytest.raises(ValueError, match="'x' on device 0"):
        _axpy[BLOCKS, 128](out1, cp.asarray(x), 1.0)


def test_torch_tensor_on_device_1(two_gpus):
    torch = pytest.importorskip("torch")
    x = torch.arange(N, dtype=torch.float32, device="cuda:1")
    out = torch.ones(N, dtype=torch.float32, device="cuda:1")
    _axpy[BLOCKS, 128](out, x, 3.0)
    torch.cuda.synchronize(1)
    np.testing.assert_array_equal(out.cpu().numpy(), 3 * np.arange(N, dtype=np.float32) + 1)
    with pytest.raises(ValueError, match="'out' on device 0; 'x' on device 1"):
        _axpy[BLOCKS, 128](torch.ones(N, device="cuda:0"), x, 1.0)
