"""The host-side numba.cuda API on the GPU (issue 11): EMM plugins, IPC, stream
callbacks, current_context(), In/Out/InOut, mapped_array_like, list launch
configurations, dispatcher signatures/get_compile_result, profiling."""

from __future__ import annotations

import asyncio
import base64
import ctypes
import gc
import os
import pickle
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite import cuda

pytestmark = pytest.mark.gpu


@cuda.jit
def add_one(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + 1
        x[i] = -1  # the kernel also writes its input: In() must not copy that back


@cuda.jit
def fill2d(out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = i * 100 + j


@cuda.jit
def spin_then_write(out, n):
    if cuda.grid(1) == 0:
        acc = 0
        for k in range(n):
            acc += k % 7
        out[0] = acc


# -- current_context ----------------------------------------------------------------------------------
@pytest.mark.nosim("launch path and driver internals (driver memory info)")
def test_current_context_memory_info_matches_cumemgetinfo():
    ctx = cuda.current_context()
    assert ctx is cuda.current_context()
    free, total = ctx.get_memory_info()
    dfree, dtotal = drv.memory_info()
    assert total == dtotal and isinstance(ctx.get_memory_info(), cuda.MemoryInfo)
    assert abs(free - dfree) < 256 << 20
    assert ctx.device == cuda.get_current_device()
    ctx.deallocations.clear()  # numba's flush: the device synchronizes, freed blocks become reusable
    assert len(ctx.deallocations) == 0
    with ctx.deallocations.disable():
        assert ctx.deallocations.is_disabled
        x = cuda.device_array(1000)
        del x
        gc.collect()
        held = len(ctx.deallocations)
        ctx.deallocations.clear()  # held: nothing flushed inside defer_cleanup
        assert held >= 1 and len(ctx.deallocations) == held
    ctx.deallocations.clear()
    assert len(ctx.deallocations) == 0
    ctx.synchronize()
    ctx.reset()
    d = cuda.to_device(np.arange(4))  # memory stays usable after reset
    assert d.copy_to_host().tolist() == [0, 1, 2, 3]
    with cuda.defer_cleanup():
        del d


@pytest.mark.nosim("launch path and driver internals (driver version and support queries)")
def test_profiling_and_support_queries():
    with cuda.profiling():
        pass
    cuda.profile_start()
    cuda.profile_stop()
    assert cuda.is_bfloat16_supported() == (cuda.get_current_device().compute_capability >= (8, 0))
    assert cuda.cuda_error() is None
    major, minor = cuda.cudadrv.driver.get_version()
    assert major >= 11


# -- EMM plugins --------------------------------------------------------------------------------------
class CountingEMM(cuda.HostOnlyCUDAMemoryManager):
    """A plugin written against numba's protocol: real memory from the driver, counted."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.live, self.total, self.initialized = {}, 0, 0

    def initialize(self):
        self.initialized += 1

    def memalloc(self, size):
        mem = drv.alloc(size)
        self.total += 1
        self.live[mem.ptr] = size
        live = self.live

        def finalizer(ptr=mem.ptr, mem=mem):
            del live[ptr]
            mem.free()

        return cuda.cudadrv.driver.AutoFreePointer(weakref.proxy(self.context), ctypes.c_void_p(mem.ptr), size,
                                                  finalizer=finalizer)

    def get_ipc_handle(self, memory):
        return "dummy handle %d" % memory.device_pointer_value

    def get_memory_info(self):
        return cuda.MemoryInfo(free=32, total=64)

    @property
    def interface_version(self):
        return 1


@pytest.fixture
def counting_emm():
    ctx = cuda.current_context()
    before = ctx.memory_manager
    ctx.memory_manager = CountingEMM(context=ctx)
    try:
        yield ctx.memory_manager
    finally:
        ctx.memory_manager = before


@pytest.mark.nosim("external memory managers (EMM plugins)")
def test_emm_plugin_allocates_device_arrays(counting_emm):
    x = np.arange(1000, dtype=np.float32)
    dx = cuda.to_device(x)
    dout = cuda.device_array_like(x)
    assert counting_emm.total == 2 and sorted(counting_emm.live.values()) == [4000, 4000]
    assert counting_emm.initialized >= 1
    add_one[4, 256](dout, dx)
    np.testing.assert_array_equal(dout.copy_to_host(), x + 1)
    view = dout[10:20]
    del dout
    gc.collect()
    assert len(counting_emm.live) == 2  # the view keeps the allocation
    del view, dx
    gc.collect()
    assert counting_emm.live == {}
    assert cuda.current_context().get_memory_info() == (32, 64)
    d = cuda.device_array(3)
    assert d.get_ipc_handle()._ipc_handle == "dummy handle %d" % d.gpu_data.device_pointer_value


@pytest.mark.nosim("external memory managers (EMM plugins)")
def test_emm_plugin_host_arrays_copied_for_a_launch(counting_emm):
    x = np.arange(64, dtype=np.float32)
    out = np.zeros_like(x)
    add_one[1, 64](out, x)  # the implicit copies are plugin allocations too
    np.testing.assert_array_equal(out, np.arange(64, dtype=np.float32) + 1)
    assert counting_emm.total == 2


@pytest.mark.nosim("external memory managers (EMM plugins)")
def test_set_memory_manager_reaches_existing_contexts():
    from cudalite.cuda._runtime.record import jit_runtime

    ctx = cuda.current_context()
    before, rt_before = ctx.memory_manager, jit_runtime().memory_manager
    try:
        cuda.set_memory_manager(CountingEMM)
        assert type(ctx.memory_manager) is CountingEMM
        cuda.device_array(10)
        assert ctx.memory_manager.total == 1
    finally:
        ctx.memory_manager = before
        jit_runtime().memory_manager = rt_before


# -- IPC ----------------------------------------------------------------------------------------------
CHILD = textwrap.dedent("""
    import base64, pickle, sys
    import numpy as np
    from cudalite import cuda
    h = pickle.loads(base64.b64decode(sys.stdin.read()))
    with h as arr:
        host = arr.copy_to_host()
        arr[0] = 1234.0
    raw = pickle.loads(base64.b64decode(sys.argv[1]))
    with cuda.open_ipc_array(raw.handle, shape=4, dtype=np.float32, offset=raw.offset) as a2:
        host2 = a2.copy_to_host()
    print(",".join(map(str, host.tolist() + host2.tolist())))
""")


@pytest.mark.nosim("CUDA IPC")
def test_ipc_handle_opens_in_another_process():
    d = cuda.to_device(np.arange(8, dtype=np.float32))
    view = d[2:6]
    h = view.get_ipc_handle()
    raw = cuda.current_context().get_ipc_handle(cuda.MemoryPointer(None, view._ptr, 16))
    with pytest.raises(ValueError, match="from original process"):
        h.open()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", CHILD, base64.b64encode(pickle.dumps(raw)).decode()],
                       input=base64.b64encode(pickle.dumps(h)).decode(), capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "2.0,3.0,4.0,5.0,1234.0,3.0,4.0,5.0"
    assert d.copy_to_host().tolist() == [0, 1, 1234, 3, 4, 5, 6, 7]


# -- streams ------------------------------------------------------------------------------------------
def test_stream_add_callback_runs_after_the_work_in_order():
    s = cuda.stream()
    out = cuda.device_array(1, dtype=np.int64)
    host = cuda.pinned_array(1, dtype=np.int64)
    host[0] = -5
    seen = []
    spin_then_write[1, 1, s](out, 200000)
    out.copy_to_host(host, stream=s)
    s.add_callback(lambda stream, status, arg: seen.append((arg, status, int(host[0]), stream is s)), "first")
    s.add_callback(lambda stream, status, arg: seen.append((arg, status)), "second")
    s.synchronize()
    expected = sum(k % 7 for k in range(200000))
    assert seen == [("first", 0, expected, True), ("second", 0)]


def test_stream_async_done():
    async def main():
        s = cuda.stream()
        out = cuda.device_array(1, dtype=np.int64)
        spin_then_write[1, 1, s](out, 1000)
        done = await s.async_done()
        return done is s, out.copy_to_host()[0]

    same, value = asyncio.run(main())
    assert same and value == sum(k % 7 for k in range(1000))


# -- In / Out / InOut ---------------------------------------------------------------------------------
def test_in_out_inout_copy_semantics():
    x = np.arange(32, dtype=np.float32)
    out = np.full(32, 7, dtype=np.float32)
    add_one[1, 32](cuda.Out(out), cuda.In(x))
    np.testing.assert_array_equal(out, np.arange(32, dtype=np.float32) + 1)
    np.testing.assert_array_equal(x, np.arange(32, dtype=np.float32))  # In: not copied back
    y = np.arange(32, dtype=np.float32)
    res = np.zeros(32, dtype=np.float32)
    add_one[1, 32](cuda.InOut(res), cuda.InOut(y))
    np.testing.assert_array_equal(y, np.full(32, -1, dtype=np.float32))  # InOut: copied back
    np.testing.assert_array_equal(res, np.arange(32, dtype=np.float32) + 1)
    d = cuda.to_device(np.arange(32, dtype=np.float32))
    add_one[1, 32](cuda.Out(res), cuda.In(d))  # a device array inside a hint is passed as it is
    assert d.copy_to_host()[0] == -1


def test_in_out_on_a_stream_and_forall():
    s = cuda.stream()
    x = np.arange(100, dtype=np.float32)
    out = np.zeros(100, dtype=np.float32)
    add_one.forall(100, stream=s)(cuda.Out(out), cuda.In(x))
    np.testing.assert_array_equal(out, np.arange(100, dtype=np.float32) + 1)


# -- arrays, launches, dispatchers -----------------------------------------------------------------------
def test_mapped_array_like():
    like = np.zeros((4, 8), dtype=np.float64, order="F")
    m = cuda.mapped_array_like(like)
    assert m.shape == (4, 8) and m.dtype == np.float64 and m.flags["F_CONTIGUOUS"]
    fill2d[(1, 1), (4, 8)](m)
    cuda.synchronize()
    np.testing.assert_array_equal(m, np.add.outer(np.arange(4) * 100, np.arange(8)))


def test_list_launch_configuration():
    out = cuda.device_array((32, 32), dtype=np.int64)
    fill2d[[2, 2], [16, 16]](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.add.outer(np.arange(32) * 100, np.arange(32)))
    out2 = cuda.device_array((32, 32), dtype=np.int64)
    fill2d.configure([2, 2], [16, 16])(out2)
    np.testing.assert_array_equal(out2.copy_to_host(), out.copy_to_host())


@pytest.mark.nosim("compiled dispatch: overloads and signature matching")
def test_signatures_and_get_compile_result():
    @cuda.jit("void(float32[::1], float32[::1])", nopython=True, target="cuda")
    def k(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * 2

    f32 = cuda.float32[::1]
    assert k.signatures == [(f32, f32)]
    res = k.get_compile_result(cuda.void(f32, f32))
    assert res is k.overloads[(f32, f32)]
    assert ".entry" in res.ptx
