"""GPU-less: configuration parsing, ``is_available`` without a driver, stream
conversion and the device-list facade (nothing here touches a GPU)."""

import pytest

from cudalite import cuda
from cudalite.cuda import _runtime
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
