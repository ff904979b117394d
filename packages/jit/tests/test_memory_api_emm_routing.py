"""GPU-less: with an EMM plugin in use, every allocation of cudalite.cuda goes through it
(issue 23: "every device allocation goes through the active memory manager").

The CUDA driver's allocation functions are replaced by fakes that fail the test when
called, the "device" is ordinary host memory (a plugin's ``memalloc`` returns a
:class:`~cudalite.cuda.MemoryPointer` over a NumPy buffer, and the driver's copies are
``memmove``), and a counting plugin records each call of the protocol.  The plugin is
installed with ``cuda.set_memory_manager`` (or assigned to the context) and the
process-wide record is restored afterwards, so nothing leaks into other tests."""

from __future__ import annotations

import ast
import ctypes
import gc
import pathlib

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite import cuda
from cudalite.cuda import devicearray
from cudalite.cuda._runtime.record import jit_runtime


class _FakeDevice:
    id = 0


class CountingPlugin(cuda.HostOnlyCUDAMemoryManager):
    """numba's protocol over host buffers: every call is logged in ``self.log`` (shared
    by all instances through the class's ``log``), frees too."""

    log: list = []

    def _buffer(self, kind, size):
        buf = np.zeros(max(size, 1), np.uint8)
        ptr = buf.ctypes.data
        log = self.log

        def free(ptr=ptr, buf=buf):
            log.append(("free", kind, ptr))

        return buf, ptr, free

    def memalloc(self, size):
        buf, ptr, free = self._buffer("device", size)
        self.log.append(("memalloc", size))
        return cuda.MemoryPointer(self.context, ctypes.c_void_p(ptr), size, owner=None, finalizer=free)

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        buf, ptr, free = self._buffer("host", size)
        self.log.append(("memhostalloc", size, mapped, portable, wc))
        if mapped:  # the "device" address of mapped memory: the host address (UVA)
            return cuda.MappedMemory(self.context, ptr, size, owner=buf, finalizer=free)
        return cuda.PinnedMemory(self.context, ptr, size, owner=buf, finalizer=free)

    def mempin(self, owner, pointer, size, mapped=False):
        self.log.append(("mempin", pointer, size, mapped))
        log = self.log

        def unpin():
            log.append(("unpin", pointer))

        cls = cuda.MappedMemory if mapped else cuda.PinnedMemory
        return cls(self.context, pointer, size, owner=owner, finalizer=unpin)

    def memallocmanaged(self, size, attach_global):
        buf, ptr, free = self._buffer("managed", size)
        self.log.append(("memallocmanaged", size, attach_global))
        return cuda.cudadrv.driver.ManagedMemory(self.context, ptr, size, owner=buf, finalizer=free)

    def initialize(self):
        self.log.append(("initialize",))

    def get_ipc_handle(self, memory):
        return ("ipc", memory.ptr)

    def get_memory_info(self):
        return cuda.MemoryInfo(free=1, total=2)

    @property
    def interface_version(self):
        return 1


def _forbidden(name):
    def call(*args, **kwargs):
        raise AssertionError(f"cudalite.driver.{name} called directly while an EMM plugin is in use")

    return call


@pytest.fixture
def fake_gpu(monkeypatch):
    """A one-device fake driver: allocations forbidden, copies are memmove."""
    for name in ("alloc", "alloc_host", "alloc_managed", "register_host", "host_device_pointer"):
        monkeypatch.setattr(drv, name, _forbidden(name))
    monkeypatch.setattr(drv, "current_device_id", lambda: 0)
    monkeypatch.setattr(drv, "current_device", lambda: _FakeDevice())
    monkeypatch.setattr(drv, "get_device", lambda n: _FakeDevice())
    monkeypatch.setattr(drv, "device_count", lambda: 1)

    def h2d(dst, src, nbytes=None, stream=None):
        src = np.ascontiguousarray(src)
        ctypes.memmove(drv.device_pointer(dst), src.ctypes.data, src.nbytes if nbytes is None else nbytes)

    def d2h(dst, src, nbytes=None, stream=None):
        ctypes.memmove(dst.ctypes.data, drv.device_pointer(src), dst.nbytes if nbytes is None else nbytes)
        return dst

    def d2d(dst, src, nbytes=None, stream=None):
        ctypes.memmove(drv.device_pointer(dst), drv.device_pointer(src), nbytes)

    monkeypatch.setattr(drv, "copy_host_to_device", h2d)
    monkeypatch.setattr(drv, "copy_device_to_host", d2h)
    monkeypatch.setattr(drv, "copy_device_to_device", d2d)


@pytest.fixture
def isolated_runtime():
    """No EMM plugin class and no context at the start; the process-wide record as it
    was restored after the test."""
    rt = jit_runtime()
    before_mm, before_ctx = rt.memory_manager, dict(rt.contexts)
    with rt.lock:
        rt.memory_manager = None
        rt.contexts.clear()
    yield rt
    with rt.lock:
        rt.memory_manager = before_mm
        rt.contexts.clear()
        rt.contexts.update(before_ctx)


@pytest.fixture
def plugin(fake_gpu, isolated_runtime):
    """``CountingPlugin`` installed with ``cuda.set_memory_manager``; yields its log."""
    CountingPlugin.log = log = []
    cuda.set_memory_manager(CountingPlugin)
    yield log
    gc.collect()  # run the finalizers of what the test allocated while the fakes are in place


def _allocs(log):
    return [e for e in log if e[0] not in ("initialize", "free", "unpin")]


# -- device memory ----------------------------------------------------------------------------------
def test_device_array_and_like_allocate_through_the_plugin(plugin):
    d = cuda.device_array((3, 4), np.float32)
    assert _allocs(plugin) == [("memalloc", 48)]
    assert ("initialize",) in plugin  # initialized before its first allocation
    assert isinstance(d.gpu_data, cuda.MemoryPointer) and d._ptr == d.gpu_data.ptr
    f = cuda.device_array_like(np.zeros((5, 2), np.int16, order="F"))
    assert f.strides == (2, 10) and _allocs(plugin)[-1] == ("memalloc", 20)
    cuda.device_array_like(d)
    assert _allocs(plugin)[-1] == ("memalloc", 48)


def test_to_device_allocates_through_the_plugin_and_round_trips(plugin):
    x = np.arange(24, dtype=np.float64).reshape(4, 6)
    d = cuda.to_device(x)
    assert _allocs(plugin) == [("memalloc", 192)]
    np.testing.assert_array_equal(d.copy_to_host(), x)
    t = cuda.to_device(x[:, ::2])  # made contiguous first: 4 * 3 elements
    assert _allocs(plugin)[-1] == ("memalloc", 96)
    np.testing.assert_array_equal(t.copy_to_host(), x[:, ::2])
    assert cuda.to_device(d) is d and len(_allocs(plugin)) == 2  # a device array: no allocation


def test_auto_device_and_bare_device_ndarray_allocate_through_the_plugin(plugin):
    x = np.arange(10, dtype=np.int32)
    d, copied = devicearray.auto_device(x)
    assert copied and _allocs(plugin) == [("memalloc", 40)]
    np.testing.assert_array_equal(d.copy_to_host(), x)
    same, copied = devicearray.auto_device(d)
    assert same is d and not copied and len(_allocs(plugin)) == 1
    cuda.DeviceNDArray((2, 3), None, np.float32)  # gpu_data=None: allocates
    assert _allocs(plugin)[-1] == ("memalloc", 24)


def test_random_states_allocate_through_the_plugin(plugin):
    from cudalite.cuda.random import create_xoroshiro128p_states, xoroshiro128p_states_host

    states = create_xoroshiro128p_states(8, seed=42)
    assert _allocs(plugin) == [("memalloc", 8 * 16)]
    np.testing.assert_array_equal(states.copy_to_host(), xoroshiro128p_states_host(8, 42))


def test_zero_bytes_never_reach_the_plugin(plugin, monkeypatch):
    monkeypatch.setattr(drv, "alloc", lambda n, pool=False: drv.DeviceMemory(0, 0, 0))  # NULL, as numba
    d = cuda.device_array((0, 3))
    assert _allocs(plugin) == [] and d.size == 0


def test_memory_goes_back_through_the_plugins_finalizer(plugin):
    d = cuda.device_array(16, np.uint8)
    ptr = d.gpu_data.ptr
    view = d[4:8]
    del d
    gc.collect()
    assert ("free", "device", ptr) not in plugin  # the view keeps the allocation
    del view
    gc.collect()
    assert plugin.count(("free", "device", ptr)) == 1


def test_ipc_handle_of_plugin_memory_comes_from_the_plugin(plugin):
    d = cuda.device_array(4)
    assert d.get_ipc_handle()._ipc_handle == ("ipc", d.gpu_data.ptr)


# -- ufunc outputs, reductions, launch copies: the kernels run on the host -------------------------
def _host_view(d):
    """The NumPy array over a (fake) device array's memory, views and zero strides kept."""
    cai = d.__cuda_array_interface__
    dtype, shape = np.dtype(cai["typestr"]), tuple(cai["shape"])
    strides = cai["strides"] or tuple(int(s) for s in np.empty(shape, dtype).strides)
    span = dtype.itemsize + sum((n - 1) * abs(s) for n, s in zip(shape, strides)) if all(shape) else 0
    buf = (ctypes.c_char * max(span, 1)).from_address(cai["data"][0])
    return np.ndarray(shape, dtype, buffer=buf, strides=strides)


class _HostKernel:
    """``kernel[grid, block, stream](*args)`` running ``body(grid, *args)`` on the host."""

    def __init__(self, body):
        self.body, self.grids = body, []

    def __getitem__(self, config):
        self.grids.append(config[0])
        return lambda *args: self.body(config[0], *args)


def _add(a, b):
    return a + b


def test_vectorize_output_and_input_copies_go_through_the_plugin(plugin, monkeypatch):
    f = cuda.vectorize(["float64(float64, float64)"])(_add)

    def body(grid, out, a, b):
        _host_view(out)[...] = _host_view(a) + _host_view(b)

    kernel = _HostKernel(body)
    monkeypatch.setattr(f, "_kernel", lambda index, ndim, scalars: kernel)
    monkeypatch.setattr(f, "_multiprocessors", lambda: 4)
    x, y = np.arange(50.0), np.linspace(0, 1, 50)
    np.testing.assert_array_equal(f(x, y), x + y)  # host inputs: both copied, the output allocated
    assert sorted(_allocs(plugin)) == [("memalloc", 400)] * 3
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    del plugin[:]
    got = f(dx, dy)  # device inputs: only the output is new
    assert _allocs(plugin) == [("memalloc", 400)]
    assert isinstance(got.gpu_data, cuda.MemoryPointer)
    np.testing.assert_array_equal(got.copy_to_host(), x + y)


def test_gufunc_output_and_input_copy_go_through_the_plugin(plugin, monkeypatch):
    g = cuda.guvectorize(["void(float64[:], float64[:])"], "(n)->()")(_row_sum)

    def body(grid, nloops, a, out):
        _host_view(out)[...] = _host_view(a).sum(axis=-1, keepdims=True)

    monkeypatch.setattr(g, "_kernel", lambda index, nloop, scalars: _HostKernel(body))
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(g(x), x.sum(axis=1))
    assert sorted(_allocs(plugin)) == [("memalloc", 24), ("memalloc", 96)]  # the output, the input's copy


def _row_sum(a, out):
    out[0] = a.sum()


def test_reduce_input_copy_result_and_partials_go_through_the_plugin(plugin, monkeypatch):
    from cudalite.cuda._ufuncs import reduce as R

    r = cuda.reduce(_add)

    def body(grid, arr, n, out, init, final):
        parts = np.array_split(_host_view(arr)[:n], grid)
        _host_view(out)[:grid] = [init + p.sum() for p in parts] if final else [p.sum() for p in parts]

    kernel = _HostKernel(body)
    monkeypatch.setattr(r, "_kernel", lambda dtype: kernel)
    x = np.arange(3 * R._BLOCK, dtype=np.int64)  # more than one block: a buffer of partials
    assert r(x, init=5) == x.sum() + 5
    assert kernel.grids == [3, 1]
    assert sorted(_allocs(plugin)) == [("memalloc", 8), ("memalloc", 24), ("memalloc", x.nbytes)]
    del plugin[:]
    small = np.arange(10, dtype=np.int64)
    assert r(cuda.to_device(small)) == small.sum()  # one block, a device input: the result only
    assert _allocs(plugin) == [("memalloc", 80), ("memalloc", 8)]


def test_launch_copies_of_host_arguments_go_through_the_plugin(plugin):
    from cudalite.cuda._launch.host import HostArrayKind, HostBufferKind, RecordScalarKind

    x, after = np.arange(6, dtype=np.float32), []
    d = HostArrayKind().stage_in(x, 0, after)
    assert _allocs(plugin) == [("memalloc", 24)] and isinstance(d.gpu_data, cuda.MemoryPointer)
    _host_view(d)[...] *= 2  # "the kernel"
    for copy_back in after:
        copy_back()
    np.testing.assert_array_equal(x, np.arange(6) * 2)
    HostBufferKind().stage_in(bytearray(b"abcd"), 0, [])
    assert _allocs(plugin)[-1] == ("memalloc", 4)
    rec = np.zeros(1, dtype=[("a", np.int32), ("b", np.float64)])[0]
    RecordScalarKind().stage_in(rec, 0, [])
    assert _allocs(plugin)[-1] == ("memalloc", rec.dtype.itemsize)


# -- host memory ------------------------------------------------------------------------------------
def test_pinned_array_through_memhostalloc(plugin):
    a = cuda.pinned_array((2, 3), np.float32)
    assert _allocs(plugin) == [("memhostalloc", 24, False, False, False)]
    a[...] = 1.5
    assert a.__array_interface__["data"][0] == a.base.base.owner.ptr  # the plugin's memory
    cuda.pinned_array_like(np.zeros((3, 2), order="F"))
    assert _allocs(plugin)[-1] == ("memhostalloc", 48, False, False, False)


def test_mapped_array_through_memhostalloc(plugin):
    a = cuda.mapped_array((4,), np.int64, portable=True, wc=True)
    assert _allocs(plugin) == [("memhostalloc", 32, True, True, True)]
    a[:] = [1, 2, 3, 4]
    host = a.__array_interface__["data"][0]
    assert a.__cuda_array_interface__["data"][0] == host == a.gpu_data.ptr
    assert a[1:]._ptr == host + 8
    cuda.mapped_array_like(a)
    assert _allocs(plugin)[-1] == ("memhostalloc", 32, True, False, False)


def test_managed_array_through_memallocmanaged(plugin):
    a = cuda.managed_array((2, 2), np.float64, attach_global=False)
    assert _allocs(plugin) == [("memallocmanaged", 32, False)]
    a[...] = [[1, 2], [3, 4]]
    assert a.__cuda_array_interface__["data"][0] == a.__array_interface__["data"][0]
    np.testing.assert_array_equal(np.asarray(a), [[1, 2], [3, 4]])


def test_pinned_and_mapped_blocks_through_mempin(plugin):
    h, empty = np.arange(6, dtype=np.float32), np.zeros(0)
    with cuda.pinned(h, empty):
        assert _allocs(plugin) == [("mempin", h.ctypes.data, 24, False)]  # nothing for 0 bytes
        assert ("unpin", h.ctypes.data) not in plugin
    assert plugin[-1] == ("unpin", h.ctypes.data)  # released when the block ends
    with cuda.mapped(h) as dh:
        assert _allocs(plugin)[-1] == ("mempin", h.ctypes.data, 24, True)
        assert dh._ptr == h.ctypes.data and dh.shape == (6,)
    assert plugin[-1] == ("unpin", h.ctypes.data)


def test_managed_falls_back_to_the_builtin_one_for_a_plugin_without_it(plugin, monkeypatch):
    class DeviceOnly(cuda.BaseCUDAMemoryManager):  # numba's bare protocol: no memallocmanaged
        memalloc = CountingPlugin.memalloc
        memhostalloc = CountingPlugin.memhostalloc
        mempin = CountingPlugin.mempin
        initialize = CountingPlugin.initialize
        get_ipc_handle = CountingPlugin.get_ipc_handle
        get_memory_info = CountingPlugin.get_memory_info
        log = CountingPlugin.log

        def reset(self):
            pass

        def defer_cleanup(self):
            return CountingPlugin.defer_cleanup(self)

        interface_version = 1

    seen = []
    monkeypatch.setattr(drv, "alloc_managed", lambda n, attach_global=True: seen.append(n) or _Managed(n))
    cuda.current_context().memory_manager = DeviceOnly(context=cuda.current_context())
    a = cuda.managed_array(3, np.int32)
    assert seen == [12] and a.shape == (3,)


class _Managed:
    def __init__(self, n):
        self.buf = np.zeros(max(n, 1), np.uint8)
        self.ptr, self.size = self.buf.ctypes.data, n

    def free(self):
        pass


# -- which manager: the one decision -----------------------------------------------------------------
def test_assigning_the_contexts_manager_routes_and_restoring_it_stops(fake_gpu, isolated_runtime, monkeypatch):
    from cudalite.cuda._runtime.context import memory_plugin
    from cudalite.cuda._memory.emm import DefaultMemoryManager

    CountingPlugin.log = log = []
    assert memory_plugin() is None  # nothing installed
    ctx = cuda.current_context()
    assert type(ctx.memory_manager) is DefaultMemoryManager and memory_plugin() is None
    ctx.memory_manager = CountingPlugin(context=ctx)  # numba's per-context assignment
    assert memory_plugin() is ctx.memory_manager
    cuda.device_array(2)
    assert _allocs(log) == [("memalloc", 16)]
    ctx.memory_manager = DefaultMemoryManager(context=ctx)
    calls = []
    monkeypatch.setattr(drv, "alloc", lambda n, pool=False: calls.append(n) or drv.DeviceMemory(0, 0, 0))
    cuda.device_array(0)
    assert memory_plugin() is None and calls == [0] and len(_allocs(log)) == 1


def test_set_memory_manager_reaches_contexts_made_later(fake_gpu, isolated_runtime):
    CountingPlugin.log = log = []
    cuda.set_memory_manager(CountingPlugin)
    assert not isolated_runtime.contexts  # made on the first allocation, with the plugin
    cuda.to_device(np.ones(3))
    assert type(isolated_runtime.contexts[0].memory_manager) is CountingPlugin
    assert _allocs(log) == [("memalloc", 24)]


def test_defer_cleanup_enters_the_plugins(plugin):
    ctx = cuda.current_context()
    with cuda.defer_cleanup():
        assert ctx.memory_manager.deallocations.is_disabled
    assert not ctx.memory_manager.deallocations.is_disabled


# -- no allocation bypasses the memory manager ------------------------------------------------------
SRC = pathlib.Path(cuda.__file__).parent
ALLOCATORS = {"alloc", "alloc_pooled", "alloc_host", "alloc_managed", "register_host", "cuMemAlloc",
              "cuMemAllocManaged", "cuMemHostAlloc", "cuMemHostRegister", "cuMemAllocAsync"}
# the one place deciding (its default branch) and the built-in manager's implementations
# (at their present paths, and where the package layout of issue 23 moves them)
_DEFAULT_BRANCHES = {"alloc", "alloc_pooled"}, {"alloc_host", "alloc_managed", "register_host"}
ALLOWED = {"_context_api.py": _DEFAULT_BRANCHES[0], "_runtime/context.py": _DEFAULT_BRANCHES[0],
           "_memory_api.py": _DEFAULT_BRANCHES[1], "_memory/api.py": _DEFAULT_BRANCHES[1],
           "_emm.py": _DEFAULT_BRANCHES[0] | _DEFAULT_BRANCHES[1],
           "_memory/emm.py": _DEFAULT_BRANCHES[0] | _DEFAULT_BRANCHES[1]}


def _driver_allocations(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else None)
            if name in ALLOCATORS:
                yield name, node.lineno
            elif isinstance(node.args[0] if node.args else None, ast.Constant) and node.args[0].value in ALLOCATORS:
                yield node.args[0].value, node.lineno  # call("cuMemAlloc", ...)


def test_no_module_allocates_with_the_driver_directly():
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if rel.parts[0] == "simulator":  # the CPU simulator has no device memory
            continue
        allowed = ALLOWED.get(rel.as_posix(), set())
        bad = [(n, line) for n, line in _driver_allocations(path) if n not in allowed]
        if bad:
            found[str(rel)] = bad
    assert found == {}
