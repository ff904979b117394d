"""The host-side numba.cuda names on ``cudalite.cuda`` (issue 11), GPU-less: every
name exists, absent names say what to use, constructors take numba's arguments, the
EMM protocol, IPC handle pickling, transfer hints and jit options behave as numba's."""

from __future__ import annotations

import ctypes
import gc
import inspect
import io
import pickle

import numpy as np
import pytest

from cudalite import cuda, types

# numba.cuda's host-side public names (numba-cuda 0.30.4: api.py, device_init.py, __init__.py)
HOST_NAMES = [
    "types", "LinkableCode", "PTXSource", "CUSource", "Cubin", "Fatbin", "Object", "Archive", "LTOIR",
    "current_context", "CudaSupportError", "KernelRuntimeError", "errors", "runtime", "cudadrv", "In", "Out",
    "InOut", "defer_cleanup", "mapped_array_like", "is_float16_supported", "is_bfloat16_supported",
    "is_fp8_supported", "is_supported_version", "cuda_error", "implementation", "profile_start", "profile_stop",
    "profiling", "set_memory_manager", "BaseCUDAMemoryManager", "HostOnlyCUDAMemoryManager",
    "GetIpcHandleMixin", "MemoryPointer", "MemoryInfo", "IpcHandle", "MappedMemory", "PinnedMemory",
    "open_ipc_array", "from_cuda_array_interface", "as_cuda_array", "is_cuda_array", "to_device",
    "device_array", "managed_array", "pinned_array", "mapped_array", "synchronize", "device_array_like",
    "pinned_array_like", "stream", "default_stream", "legacy_default_stream", "per_thread_default_stream",
    "external_stream", "pinned", "mapped", "event", "event_elapsed_time", "select_device",
    "get_current_device", "list_devices", "close", "detect", "gpus", "jit", "declare_device", "compile",
    "compile_ptx", "compile_for_current_device", "compile_ptx_for_current_device", "reduce", "Reduce",
    "is_available",
]
TYPE_NAMES = ["void", "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64", "complex64", "complex128", "intp", "uintp", "b1", "i4", "f4",
              "f8", "u8", "byte", "double", "CPointer", "UniTuple", "Tuple", "Array", "Record", "none"]


@pytest.mark.parametrize("name", HOST_NAMES)
def test_host_name_exists(name):
    assert hasattr(cuda, name), name


@pytest.mark.parametrize("name", TYPE_NAMES)
def test_type_name_is_the_types_object(name):
    assert getattr(cuda, name) is getattr(types, name)


def test_from_import_of_type_names_and_types_module():
    from cudalite.cuda import float32, int64, void

    assert (float32, int64, void) == (types.float32, types.int64, types.void)
    assert cuda.types is types
    assert str(cuda.float32[::1]) == str(types.float32[::1])


def test_type_names_do_not_shadow_the_api():
    # the star import of type names comes first: API objects of the same name win
    assert callable(cuda.jit) and cuda.grid is not None and inspect.ismodule(cuda.errors)


@pytest.mark.parametrize("name,advice", [
    ("simulator_init", "CUDALITE_ENABLE_CUDASIM=1"),
    ("require_context", "current_context()"), ("nvvm", "cudalite.nvvm"),
])
def test_absent_numba_name_says_what_to_use(name, advice):
    with pytest.raises(AttributeError) as ei:
        getattr(cuda, name)
    assert str(ei.value).startswith(f"module 'cudalite.cuda' has no attribute {name!r}: ")
    assert advice in str(ei.value)
    assert not hasattr(cuda, name)


def test_unknown_name_is_a_plain_attribute_error():
    with pytest.raises(AttributeError, match=r"^module 'cudalite.cuda' has no attribute 'no_such_thing'$"):
        cuda.no_such_thing


def test_linkable_code_is_lazy_and_the_linker_class():
    import cudalite.linker as lk

    for name in ("LinkableCode", "PTXSource", "CUSource", "Cubin", "Fatbin", "Object", "Archive", "LTOIR"):
        assert getattr(cuda, name) is getattr(lk, name)


def test_linkable_code_constructors_take_numbas_arguments(tmp_path):
    params = list(inspect.signature(cuda.CUSource).parameters)
    assert params == ["data", "name", "setup_callback", "teardown_callback", "nrt"]
    src = cuda.CUSource(io.StringIO('extern "C" __device__ int f(int x) { return x; }'), name="f.cu")
    assert src.data.startswith(b'extern "C"') and src.name == "f.cu"
    assert cuda.PTXSource(io.BytesIO(b".version 8.0"), nrt=False).data == b".version 8.0"
    with pytest.raises(NotImplementedError, match="NRT"):
        cuda.PTXSource(b"x", nrt=True)
    path = tmp_path / "g.cu"
    path.write_text("__device__ int g() { return 1; }")
    code = cuda.LinkableCode.from_path(str(path))
    assert type(code) is cuda.CUSource and code.data == path.read_bytes()


def test_jit_link_accepts_linkable_code_objects():
    src = cuda.CUSource(b'extern "C" __device__ int f(int x) { return x; }', name="f.cu")

    def k(x):
        x[0] = 1

    disp = cuda.jit(link=[src])(k)
    assert disp.options.link == (src,)


# -- jit options numba accepts ---------------------------------------------------------------------
def _kern(x):
    x[0] = 1


@pytest.mark.parametrize("kws", [{"nopython": True}, {"target": "cuda"}, {"nogil": True},
                                 {"boundscheck": False}, {"no_cpython_wrapper": True},
                                 {"shared_memory_carveout": "MaxL1"}, {"error_model": "numpy"}])
def test_jit_accepts_and_ignores_numba_options(kws):
    disp = cuda.jit(**kws)(_kern)
    assert disp.options == cuda.jit(_kern).options


@pytest.mark.parametrize("kws,exc,msg", [
    ({"target": "cpu"}, ValueError, "target='cuda'"),
    ({"forceobj": True}, NotImplementedError, "object mode"),
    ({"nopython": False}, NotImplementedError, "object mode"),
    ({"boundscheck": "yes"}, TypeError, "boundscheck must be True, False or None"),
    ({"shared_memory_carveout": 101}, ValueError, "between -1 and 100"),
    ({"argtypes": (types.int32,)}, TypeError, "pass a signature"),
    ({"frobnicate": 1}, TypeError, "unexpected keyword"),
])
def test_jit_refuses_numba_options_it_cannot_honour(kws, exc, msg):
    with pytest.raises(exc, match=msg):
        cuda.jit(**kws)(_kern)


# -- dispatcher API ---------------------------------------------------------------------------------
def test_signatures_of_an_eager_kernel_without_a_device():
    disp = cuda.jit(["void(float32[::1])", "void(int64[:])"])(_kern)
    assert disp.signatures == [(types.float32[::1],), (types.int64[:],)]
    assert cuda.jit(_kern).signatures == []


def test_configure_is_getitem_and_lists_key_as_tuples():
    disp = cuda.jit(_kern)
    assert disp.configure(4, 32) is disp[4, 32]
    assert disp[[2, 2], [16, 16]] is disp[(2, 2), (16, 16)]
    assert disp.configure([2, 2], [16, 16], 0, 0) is disp[(2, 2), (16, 16)]
    assert disp.configure(1, 1, 0, 128) is disp[1, 1, 0, 128]


@pytest.mark.skipif("cuda.is_available()", reason="the GPU-less answer (the GPU one: test_gpu_numba_api.py)")
def test_get_compile_result_without_a_device_says_so():
    disp = cuda.jit(_kern)
    with pytest.raises(cuda.CudaSupportError, match="needs a CUDA device"):
        disp.get_compile_result(types.void(types.float32[::1]))
    assert disp.signatures == [(types.float32[::1],)]  # type-checked, pending


# -- errors, runtime, cudadrv -----------------------------------------------------------------------
def test_kernel_runtime_error_renders_as_numba():
    e = cuda.KernelRuntimeError("IndexError: oops", tid=(1, 0, 0), ctaid=(2, 0, 0))
    assert str(e) == "An exception was raised in thread=(1, 0, 0) block=(2, 0, 0)\n\tIndexError: oops"
    assert (e.tid, e.ctaid, e.msg) == ((1, 0, 0), (2, 0, 0), "IndexError: oops")
    assert isinstance(e, RuntimeError) and cuda.errors.KernelRuntimeError is cuda.KernelRuntimeError


def test_error_classes():
    from cudalite.core.errors import TypingError
    from cudalite.driver import CudaDriverError

    assert issubclass(cuda.CudaSupportError, CudaDriverError)
    assert cuda.cudadrv.driver.CudaAPIError is CudaDriverError is cuda.errors.CudaAPIError
    assert cuda.errors.TypingError is TypingError
    assert cuda.cudadrv.error.CudaSupportError is cuda.CudaSupportError
    assert cuda.errors.normalize_kernel_dimensions(2, [3, 4]) == ((2, 1, 1), (3, 4, 1))
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        cuda.errors.normalize_kernel_dimensions(None, 1)
    with pytest.raises(TypeError, match="griddim must be a sequence of integers"):
        cuda.errors.normalize_kernel_dimensions(1.5, 1)


@pytest.mark.skipif("cuda.is_available()", reason="the GPU-less answer")
def test_no_driver_is_a_cuda_support_error():
    with pytest.raises(cuda.CudaSupportError, match="cuInit"):
        cuda.current_context()
    assert "cuInit" in cuda.cuda_error()


def test_runtime_version_is_nvrtcs():
    from cudalite.linker import nvrtc_version

    assert cuda.runtime.get_version() == tuple(nvrtc_version())
    assert cuda.cudadrv.runtime.get_version() == cuda.runtime.get_version()
    assert cuda.is_supported_version() is (cuda.runtime.get_version()[0] in (12, 13))
    assert cuda.is_float16_supported() is True


def test_cudadrv_paths():
    from cudalite.cuda.cudadrv.devicearray import DeviceNDArray
    from cudalite.cuda.cudadrv.driver import AutoFreePointer, HostOnlyCUDAMemoryManager, MemoryPointer

    assert DeviceNDArray is cuda.DeviceNDArray
    assert HostOnlyCUDAMemoryManager is cuda.HostOnlyCUDAMemoryManager
    assert issubclass(AutoFreePointer, MemoryPointer) and MemoryPointer is cuda.MemoryPointer


# -- EMM protocol -----------------------------------------------------------------------------------
class CountingPlugin(cuda.HostOnlyCUDAMemoryManager):
    def memalloc(self, size):
        return cuda.MemoryPointer(self.context, ctypes.c_void_p(0x1000), size, finalizer=lambda: None)

    def initialize(self):
        pass

    def get_ipc_handle(self, memory):
        return "dummy"

    def get_memory_info(self):
        return cuda.MemoryInfo(free=32, total=64)

    @property
    def interface_version(self):
        return 1


class BadVersion(CountingPlugin):
    @property
    def interface_version(self):
        return 2


@pytest.fixture
def restore_manager():
    from cudalite.cuda._runtime.record import jit_runtime

    rt = jit_runtime()
    before = rt.memory_manager
    yield rt
    rt.memory_manager = before


def test_set_memory_manager_checks_the_interface_version(restore_manager):
    with pytest.raises(RuntimeError, match="EMM Plugin interface has version 2 - version 1 required"):
        cuda.set_memory_manager(BadVersion)
    assert restore_manager.memory_manager is None
    cuda.set_memory_manager(CountingPlugin)
    assert restore_manager.memory_manager is CountingPlugin


def test_plugin_base_classes_are_abstract_as_numbas():
    class NoAlloc(cuda.HostOnlyCUDAMemoryManager):
        pass

    with pytest.raises(TypeError, match="abstract"):
        NoAlloc(context=None)
    with pytest.raises(RuntimeError, match="requires a context"):
        CountingPlugin()
    assert CountingPlugin(context=None).get_memory_info() == (32, 64)


def test_memory_pointer_finalizer_view_and_free():
    freed = []
    mp = cuda.MemoryPointer(None, ctypes.c_uint64(0x2000), 256, finalizer=lambda: freed.append(1))
    assert (mp.ptr, mp.device_pointer_value, mp.size) == (0x2000, 0x2000, 256)
    v = mp.view(16, 48)
    assert (v.ptr, v.size, v.owner) == (0x2010, 32, mp)
    del mp
    gc.collect()
    assert freed == []  # the view keeps the allocation alive
    del v
    gc.collect()
    assert freed == [1]
    mp2 = cuda.MemoryPointer(None, 0x3000, 8, finalizer=lambda: freed.append(2))
    mp2.free()
    assert freed == [1, 2]
    with pytest.raises(RuntimeError, match="Freeing dead memory"):
        mp2.free()
    assert cuda.MemoryPointer(None, None, 0).device_pointer_value is None


def test_device_array_allocates_through_the_driver_without_a_plugin(monkeypatch, restore_manager):
    from cudalite.cuda._runtime import context as _context_api

    calls = []
    monkeypatch.setattr(_context_api._drv, "alloc", lambda n, pool=False: calls.append((n, pool)) or "mem")
    assert _context_api.device_alloc(80) == "mem" and calls == [(80, True)]  # from the device pool


# -- IPC --------------------------------------------------------------------------------------------
def test_ipc_handle_pickles_without_its_base():
    base = object()
    h = cuda.IpcHandle(base, bytes(range(64)), 4096, {"pci_bus_id": 3}, offset=256)
    with pytest.raises(ValueError, match="from original process"):
        h.open(None)
    h2 = pickle.loads(pickle.dumps(h))
    assert (h2.base, h2.handle, h2.size, h2.source_info, h2.offset) == (None, bytes(range(64)), 4096,
                                                                         {"pci_bus_id": 3}, 256)
    with pytest.raises(ValueError, match="not opened"):
        h2.close()


def test_ipc_handle_bytes_are_checked():
    import cudalite.driver as drv

    assert cuda.IpcHandle(None, tuple(range(64)), 8).handle == bytes(range(64))
    with pytest.raises(ValueError, match="64 bytes, not 3"):
        drv.ipc_open_handle(b"abc")  # checked before the driver is touched


# -- context helpers --------------------------------------------------------------------------------
def test_pending_deallocations_api():
    from cudalite.cuda._memory.emm import PendingDeallocs

    d = PendingDeallocs()
    assert len(d) == 0 and not d.is_disabled
    with d.disable():
        with d.disable():
            assert d.is_disabled
        assert d.is_disabled
    assert not d.is_disabled
    d.clear()


# -- In / Out / InOut -------------------------------------------------------------------------------
class _FakeDev:
    def __init__(self, host, copied):
        self.host, self.copied, self.back = host, copied, 0

    def copy_to_host(self, ary, stream=0):
        self.back += 1


@pytest.mark.parametrize("hint,copy_in,copy_back", [("In", True, False), ("Out", False, True),
                                                     ("InOut", True, True)])
def test_transfer_hints(monkeypatch, hint, copy_in, copy_back):
    from cudalite.cuda._memory import api as _memory_api
    from cudalite.cuda._launch import hints as _arghints

    made = []
    monkeypatch.setattr(_memory_api, "to_device",
                        lambda v, stream=0, copy=True: made.append(_FakeDev(v, copy)) or made[-1])
    a = np.arange(4.0)
    args, after = _arghints.prepare_hints((getattr(cuda, hint)(a), 3), 0)
    assert args[0] is made[0] and args[1] == 3 and made[0].copied is copy_in
    for work in after:
        work()
    assert made[0].back == (1 if copy_back else 0)


def test_transfer_hint_of_a_device_array_passes_it_through():
    from cudalite.cuda._launch import hints as _arghints

    class Dev:
        __cuda_ndarray__ = True

    d = Dev()
    args, after = _arghints.prepare_hints((cuda.Out(d),), 0)
    assert args == (d,) and after == []
    assert _arghints.prepare_hints((1, 2), 0) == ((1, 2), [])


def test_plugin_spellings_of_pointers_and_handles():
    # what RMM's plugin does: memory.handle.value / int(memory.handle), a CUipcMemHandle or a ctypes array
    from cuda.bindings import driver as cu

    mp = cuda.MemoryPointer(None, ctypes.c_uint64(0x5000), 8)
    assert (mp.handle.value, int(mp.handle), int(mp.device_pointer)) == (0x5000, 0x5000, 0x5000)
    assert cuda.cudadrv.driver.device_pointer(mp) == 0x5000
    h = cu.CUipcMemHandle()
    ctypes.memmove(h.getPtr(), bytes(range(64)), 64)
    assert cuda.IpcHandle(None, h, 8).handle == bytes(range(64))
    assert cuda.IpcHandle(None, (ctypes.c_byte * 64)(*range(64)), 8).handle == bytes(range(64))
