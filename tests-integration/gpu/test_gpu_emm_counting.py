"""Every allocation goes through the active memory manager (issue 23), on the GPU.

A counting EMM plugin (a :class:`cudalite.cuda.HostOnlyCUDAMemoryManager` subclass, as
RMM's is, allocating real memory with the driver) is installed with
``cuda.set_memory_manager`` in a child process -- the memory manager is process-wide,
so the rest of the suite never sees it -- and each API that allocates runs once:
``device_array``, ``device_array_like``, ``to_device``, ``auto_device``, a kernel
launched with NumPy arguments, ``pinned_array``, ``mapped_array``, ``managed_array``,
``cuda.pinned``, ``cuda.mapped``, a ``vectorize`` ufunc (its output, and its inputs'
copies), ``cuda.reduce``, a ``guvectorize`` gufunc and ``create_xoroshiro128p_states``.
For each, the plugin saw exactly the allocations expected, the driver's allocation
functions were never called from outside the plugin, and the results equal NumPy's.

Run: ``pytest tests-integration/gpu/test_gpu_emm_counting.py -v``.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite import cuda

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("external memory managers (EMM plugins)")]


# -- the plugin and the scenarios (run in the child process) -----------------------------------------
class Recorder:
    """What the plugin allocated (``allocs``), what it freed, and the calls of the
    driver's allocation functions made from outside the plugin (``direct``)."""

    def __init__(self):
        self.allocs, self.freed, self.direct = [], [], []
        self.in_plugin = 0

    def wrap_driver(self):
        for name in ("alloc", "alloc_host", "alloc_managed", "register_host"):
            real = getattr(drv, name)

            def call(*args, _real=real, _name=name, **kwargs):
                if not self.in_plugin:
                    self.direct.append(_name)
                return _real(*args, **kwargs)

            setattr(drv, name, call)


RECORD = Recorder()  # the child process's (the module is imported there; never used by the parent)


class CountingEMM(cuda.HostOnlyCUDAMemoryManager):
    """numba's protocol over the driver, counting: device memory in ``memalloc``; pinned,
    mapped and managed memory through HostOnlyCUDAMemoryManager's own methods."""

    def initialize(self):
        pass

    def memalloc(self, size):
        RECORD.in_plugin += 1
        try:
            mem = drv.alloc(size)
        finally:
            RECORD.in_plugin -= 1
        RECORD.allocs.append(["memalloc", size])
        ptr = mem.ptr

        def free(mem=mem):
            RECORD.freed.append(ptr)
            mem.free()

        return cuda.cudadrv.driver.AutoFreePointer(self.context, ptr, size, finalizer=free)

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        RECORD.allocs.append(["memhostalloc", size, mapped])
        RECORD.in_plugin += 1
        try:
            return super().memhostalloc(size, mapped, portable, wc)
        finally:
            RECORD.in_plugin -= 1

    def mempin(self, owner, pointer, size, mapped=False):
        RECORD.allocs.append(["mempin", size, mapped])
        RECORD.in_plugin += 1
        try:
            return super().mempin(owner, pointer, size, mapped)
        finally:
            RECORD.in_plugin -= 1

    def memallocmanaged(self, size, attach_global):
        RECORD.allocs.append(["memallocmanaged", size])
        RECORD.in_plugin += 1
        try:
            return super().memallocmanaged(size, attach_global)
        finally:
            RECORD.in_plugin -= 1

    def get_ipc_handle(self, memory):
        return None

    def get_memory_info(self):
        return cuda.MemoryInfo(*drv.memory_info())

    @property
    def interface_version(self):
        return 1


@cuda.jit
def add_one(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + 1


@cuda.jit
def iota(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i * 3


def _check(got, want):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


def s_device_array():
    d = cuda.device_array(1000, np.float32)
    iota[4, 256](d)
    _check(d.copy_to_host(), np.arange(1000) * 3)


def s_device_array_like():
    d = cuda.device_array_like(np.zeros((10, 20), order="F"))
    assert d.strides == (8, 80)


def s_to_device():
    x = np.linspace(0, 1, 100)
    _check(cuda.to_device(x).copy_to_host(), x)


def s_auto_device():
    from cudalite.cuda.devicearray import auto_device

    x = np.arange(50, dtype=np.int64)
    d, copied = auto_device(x)
    assert copied
    _check(d.copy_to_host(), x)


def s_kernel_numpy_args():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros_like(x)
    add_one[1, 64](out, x)  # both copied to the device (and out back) by the launch
    _check(out, x + 1)


def s_pinned_array():
    a = cuda.pinned_array(64, np.float64)
    a[:] = np.arange(64)
    d = cuda.device_array(64)
    d.copy_to_device(a)
    _check(d.copy_to_host(), np.arange(64))


def s_mapped_array():
    a = cuda.mapped_array(256, np.int64)
    iota[1, 256](a)
    cuda.synchronize()
    _check(a, np.arange(256) * 3)


def s_managed_array():
    a = cuda.managed_array(256, np.int64)
    iota[1, 256](a)
    cuda.synchronize()
    _check(a, np.arange(256) * 3)


def s_pinned_block():
    h = np.arange(32, dtype=np.float64)
    for _ in range(2):  # registered again: the first block unregistered it
        with cuda.pinned(h):
            _check(cuda.to_device(h).copy_to_host(), h)


def s_mapped_block():
    h = np.zeros(128, dtype=np.int64)
    with cuda.mapped(h) as dh:
        iota[1, 128](dh)
        cuda.synchronize()
    _check(h, np.arange(128) * 3)


@cuda.vectorize(["float64(float64, float64)"])
def hypot2(a, b):
    return a * a + b * b


def s_vectorize_device_inputs():
    a, b = np.linspace(0, 1, 500), np.linspace(1, 2, 500)
    da, db = cuda.to_device(a), cuda.to_device(b)
    mark = len(RECORD.allocs)
    out = hypot2(da, db)  # device inputs: the output is the only allocation
    assert RECORD.allocs[mark:] == [["memalloc", 4000]], RECORD.allocs[mark:]
    _check(out.copy_to_host(), a * a + b * b)


def s_vectorize_numpy_inputs():
    a, b = np.linspace(0, 1, 300), np.linspace(-1, 0, 300)
    _check(hypot2(a, b), a * a + b * b)


def s_reduce():
    x = np.arange(100_000, dtype=np.float64)
    got = cuda.reduce(lambda a, b: a + b)(x)
    assert got == x.sum(), (got, x.sum())


def _row_sum(a, out):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    out[0] = s


def s_guvectorize():
    # made here, not at import: the CPU simulator (which imports every GPU test module) has no guvectorize
    row_sum = cuda.guvectorize(["void(float64[:], float64[:])"], "(n)->()")(_row_sum)
    a = np.arange(8 * 16, dtype=np.float64).reshape(8, 16)
    _check(row_sum(a), a.sum(axis=1))


def s_random_states():
    from cudalite.cuda.random import create_xoroshiro128p_states, xoroshiro128p_states_host

    states = create_xoroshiro128p_states(256, seed=7)
    got = states.copy_to_host()
    want = xoroshiro128p_states_host(256, 7)
    assert got.tobytes() == want.tobytes()


def s_freed_through_the_plugin():
    gc.collect()
    mark = len(RECORD.freed)  # earlier scenarios' frees (an address is reused once freed)
    d = cuda.device_array(4096, np.uint8)
    ptr = d.gpu_data.ptr
    view = d[16:32]
    del d
    gc.collect()
    assert ptr not in RECORD.freed[mark:], "freed while a view of it lives"  # the view keeps the allocation
    del view
    gc.collect()
    n = RECORD.freed[mark:].count(ptr)
    assert n == 1, f"freed {n} times after the last view died"


SCENARIOS = {name[2:]: fn for name, fn in list(globals().items()) if name.startswith("s_")}


def child():
    """Run every scenario with the plugin installed; print one JSON line of results."""
    cuda.set_memory_manager(CountingEMM)
    RECORD.wrap_driver()
    for fn in (s_vectorize_device_inputs, s_vectorize_numpy_inputs, s_reduce, s_guvectorize):  # compile first
        fn()
    results = {}
    for name, fn in SCENARIOS.items():
        mark, direct = len(RECORD.allocs), len(RECORD.direct)
        try:
            fn()
            error = None
        except Exception as exc:  # reported to the parent, which fails that scenario's test
            error = f"{type(exc).__name__}: {exc}"
        results[name] = {"allocs": RECORD.allocs[mark:], "direct": RECORD.direct[direct:], "error": error,
                         "manager": type(cuda.current_context().memory_manager).__name__}
    print("RESULTS " + json.dumps(results))


# -- the tests (parent process) ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def results():
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([here] + [p for p in sys.path if p]))
    code = "import test_gpu_emm_counting as t; t.child()"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULTS ")][-1]
    return json.loads(line[len("RESULTS "):])


EXPECTED = {  # the allocations each scenario makes, in order (None: checked in the test below)
    "device_array": [["memalloc", 4000]],
    "device_array_like": [["memalloc", 1600]],
    "to_device": [["memalloc", 800]],
    "auto_device": [["memalloc", 400]],
    "kernel_numpy_args": [["memalloc", 256], ["memalloc", 256]],
    "pinned_array": [["memhostalloc", 512, False], ["memalloc", 512]],
    "mapped_array": [["memhostalloc", 2048, True]],
    "managed_array": [["memallocmanaged", 2048]],
    "pinned_block": [["mempin", 256, False], ["memalloc", 256]] * 2,
    "mapped_block": [["mempin", 1024, True]],
    "vectorize_device_inputs": [["memalloc", 4000], ["memalloc", 4000], ["memalloc", 4000]],
    "vectorize_numpy_inputs": [["memalloc", 2400]] * 3,  # the output and both inputs' copies
    "reduce": None,
    "guvectorize": None,
    "random_states": [["memalloc", 256 * 16]],
    "freed_through_the_plugin": [["memalloc", 4096]],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_allocation_goes_through_the_plugin(results, name):
    got = results[name]
    assert got["error"] is None, got["error"]
    assert got["manager"] == "CountingEMM"
    assert got["direct"] == [], f"driver allocation outside the plugin: {got['direct']}"
    want = EXPECTED[name]
    if want is not None:
        assert sorted(got["allocs"]) == sorted(want)


def test_reduce_buffers_go_through_the_plugin(results):
    got = results["reduce"]
    assert got["error"] is None and got["direct"] == []
    # the input's copy, the partial sums of the blocks and the 1-element result
    assert ["memalloc", 800_000] in got["allocs"] and ["memalloc", 8] in got["allocs"]
    assert all(a[0] == "memalloc" for a in got["allocs"]) and len(got["allocs"]) == 3


def test_gufunc_output_and_input_copy_go_through_the_plugin(results):
    got = results["guvectorize"]
    assert got["error"] is None and got["direct"] == []
    assert sorted(got["allocs"]) == [["memalloc", 64], ["memalloc", 1024]]


def test_every_scenario_ran(results):
    assert sorted(results) == sorted(EXPECTED)


def test_the_plugin_stayed_in_the_child():
    from cudalite.cuda._runtime.record import jit_runtime

    assert jit_runtime().memory_manager is not CountingEMM
    assert type(cuda.current_context().memory_manager).__name__ != "CountingEMM"
