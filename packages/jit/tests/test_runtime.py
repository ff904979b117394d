"""GPU-less: configuration parsing, ``is_available`` without a driver, stream
conversion and the device-list facade (nothing here touches a GPU)."""

import pytest

from cudalite import cuda
from cudalite.cuda._runtime import api as _runtime
from cudalite.cuda.config import Config, load_config, parse_bool


def test_config_defaults_and_parsing():
    assert load_config({}) == Config()
    cfg = load_config({"CUDALITE_DISABLE_CUDA": "1", "CUDALITE_CUDA_ARRAY_INTERFACE_SYNC": "0",
                       "CUDALITE_CUDA_WARN_ON_IMPLICIT_COPY": "false", "CUDALITE_DISABLE_PERFORMANCE_WARNINGS": "yes"})
    assert cfg == Config(disable_cuda=True, cuda_array_interface_sync=False, warn_on_implicit_copy=False,
                         disable_performance_warnings=True)
    assert parse_bool("X", " On ", False) is True and parse_bool("X", "", True) is True
    with pytest.raises(ValueError, match="CUDALITE_DISABLE_CUDA"):
        load_config({"CUDALITE_DISABLE_CUDA": "maybe"})


def test_is_available_never_raises(monkeypatch):
    monkeypatch.setenv("CUDALITE_DISABLE_CUDA", "1")
    assert cuda.is_available() is False
    monkeypatch.setenv("CUDALITE_DISABLE_CUDA", "bogus")
    assert cuda.is_available() is False


def test_is_available_without_driver(monkeypatch):
    def no_driver():
        raise cuda_driver_error()

    def cuda_driver_error():
        from cudalite.driver import CudaDriverError

        return CudaDriverError(3, "CUDA_ERROR_NOT_INITIALIZED", "no libcuda", "cuInit")

    monkeypatch.setattr(_runtime._drv, "device_count", no_driver)
    assert cuda.is_available() is False
    assert cuda.detect() is False


def test_driver_stream_conversion():
    assert _runtime.driver_stream(0) is None and _runtime.driver_stream(None) is None
    assert _runtime.driver_stream(0x55) == 0x55

    class CoreStream:
        def __cuda_stream__(self):
            return (0, 0x77)

    assert _runtime.driver_stream(CoreStream()) == 0x77


def test_public_names():
    for name in ("to_device", "device_array", "device_array_like", "pinned_array", "mapped_array", "managed_array",
                 "pinned", "mapped", "as_cuda_array", "is_cuda_array", "from_cuda_array_interface", "gpus",
                 "select_device", "get_current_device", "list_devices", "detect", "is_available", "close",
                 "synchronize", "stream", "default_stream", "legacy_default_stream", "per_thread_default_stream",
                 "external_stream", "event", "event_elapsed_time", "DeviceNDArray", "devicearray"):
        assert hasattr(cuda, name), name
    assert cuda.devicearray.is_device_array is not None
    with pytest.raises(TypeError):
        cuda.external_stream("0x10")


def test_default_streams_make_a_context_current_before_synchronizing(monkeypatch):
    """numba's default streams synchronize before anything else touched the GPU: the
    current device's primary context is made current first (it was
    CUDA_ERROR_NOT_INITIALIZED); an owned or external stream is used as it is."""
    import cudalite.cuda._runtime.api as rt

    calls = []
    monkeypatch.setattr(rt._drv, "current_device", lambda: calls.append("ctx"))

    class FakeStream:
        owned = False

        def __init__(self, handle):
            self.handle = handle

        def synchronize(self):
            calls.append("sync")

        def query(self):
            calls.append("query")
            return True

    for handle in (0, 1, 2):
        calls.clear()
        s = rt.Stream(FakeStream(handle))
        s.synchronize()
        assert s.query() is True
        assert calls == ["ctx", "sync", "ctx", "query"]
    calls.clear()
    rt.Stream(FakeStream(0x1234)).synchronize()
    assert calls == ["sync"]


def test_ipc_handle_of_a_device_arrays_gpu_data(monkeypatch):
    """``ctx.get_ipc_handle(devarr.gpu_data)`` (numba's spelling): the default allocator's
    memory has no ``device_pointer``; its address is used (it raised AttributeError)."""
    import cudalite.cuda._memory.emm as emm
    from cudalite.driver import DeviceMemory

    mem = DeviceMemory(0x7000_0010, 64, 0)
    mem._finalizer.detach()  # not a real allocation
    seen = {}
    monkeypatch.setattr(emm._drv, "address_range", lambda ptr: seen.setdefault("ptr", ptr) and (0x7000_0000, 256))
    monkeypatch.setattr(emm._drv, "ipc_get_handle", lambda base: seen.setdefault("base", base) and b"h" * 64)

    class Manager(emm.GetIpcHandleMixin):
        context = None

    h = Manager().get_ipc_handle(mem)
    assert seen == {"ptr": 0x7000_0010, "base": 0x7000_0000}
    assert h.offset == 0x10 and h.size == 64 and h.base is mem
