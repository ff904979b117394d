"""GPU-less tests of managed memory, host registration, mapped device pointers,
pointer attributes and context synchronization: the public names and their
documentation, argument checks that run before the driver is touched, and the
decoding of cuPointerGetAttributes' values."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite.driver import CudaDriverError
from cudalite.driver.pointer import QUERIED, _decode

DOC = Path(__file__).resolve().parents[3] / "docs" / "driver.md"
NEW_API = ("alloc_managed", "ManagedMemory", "register_host", "HostRegistration", "host_device_pointer",
           "pointer_attributes", "PointerAttributes", "synchronize")


@pytest.mark.parametrize("name", NEW_API)
def test_public_documented(name):
    assert name in drv.__all__
    obj = getattr(drv, name)
    assert obj.__doc__ and len(obj.__doc__.split()) >= 8, name
    assert re.search(rf"`{name}\b", DOC.read_text(encoding="utf-8")), f"{name} missing from docs/driver.md"


def test_device_and_handle_methods_exist():
    assert callable(drv.Device.synchronize) and drv.Device.synchronize.__doc__
    assert issubclass(drv.ManagedMemory, drv.DeviceMemory)  # freed with cuMemFree, accepted by copies
    assert drv.Stream.cu_stream.__doc__ and drv.Event.cu_event.__doc__


def test_cu_stream_is_the_binding_object():
    from cuda.bindings import driver as cu

    s = drv.Stream.external(0x1234)  # wraps a handle: no driver call
    assert isinstance(s.cu_stream, cu.CUstream) and int(s.cu_stream) == 0x1234 == s.handle


@pytest.mark.parametrize("call, exc, message", [
    (lambda: drv.alloc_managed(-1), ValueError, "alloc_managed: negative size -1"),
    (lambda: drv.alloc_managed(1.5), TypeError, "alloc_managed: nbytes must be an int, not float"),
    (lambda: drv.alloc_managed(True), TypeError, "alloc_managed: nbytes must be an int, not bool"),
    (lambda: drv.register_host(0x1000), ValueError, "nbytes is required when host memory is given as an int address"),
    (lambda: drv.register_host(np.zeros(0)), ValueError, "register_host: nbytes must be a positive int, not 0"),
    (lambda: drv.register_host(0x1000, 0), ValueError, "register_host: nbytes must be a positive int, not 0"),
    (lambda: drv.register_host(0, 64), ValueError, "register_host: null host address"),
    (lambda: drv.register_host(True), TypeError, "register_host: host must be an array"),
    (lambda: drv.register_host(np.zeros((4, 4))[:, ::2]), ValueError, "host array must be contiguous"),
    (lambda: drv.register_host(np.zeros(4), 64), ValueError, "copy of 64 bytes exceeds the host buffer (32 bytes)"),
    (lambda: drv.host_device_pointer(0), ValueError, "host_device_pointer: null host address"),
    (lambda: drv.host_device_pointer(False), TypeError, "host_device_pointer: host must be host memory"),
    (lambda: drv.pointer_attributes(-1), ValueError, "pointer_attributes: -0x1 is not a 64-bit address"),
    (lambda: drv.pointer_attributes(1 << 64), ValueError, "is not a 64-bit address"),
    (lambda: drv.pointer_attributes(True), TypeError, "pointer_attributes: expected an address, not bool"),
])
def test_arguments_checked_before_the_driver(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert message in str(info.value)


def test_unmapped_registration_has_no_device_pointer():
    reg = drv.HostRegistration(0x1000, 64, 0, mapped=False)
    try:
        assert reg.registered and reg.device_ptr is None
        assert repr(reg) == "<cudalite.driver.HostRegistration 0x1000 size=64 (pinned)>"
        with pytest.raises(ValueError, match="registered without mapped=True"):
            drv.host_device_pointer(reg)
    finally:
        reg._finalizer.detach()  # it never was registered with the driver
    assert not reg.registered
    with pytest.raises(ValueError, match="the registration was undone"):
        drv.host_device_pointer(reg)


def test_mapped_registration_answers_without_the_driver():
    reg = drv.HostRegistration(0x2000, 64, 0, mapped=True, device_ptr=0x7F0000002000)
    try:
        assert drv.host_device_pointer(reg) == 0x7F0000002000
    finally:
        reg._finalizer.detach()


def test_valid_calls_reach_the_driver():
    """Valid arguments go to the driver: without libcuda that is CudaDriverError from
    cuInit (never another error); on a GPU host the calls simply work."""
    host = np.zeros(1024, np.float32)
    calls = [
        lambda: drv.alloc_managed(64).free(),
        lambda: drv.register_host(host).unregister(),
        lambda: drv.pointer_attributes(host),
        drv.synchronize,
    ]
    for call in calls:
        try:
            call()
        except CudaDriverError as err:
            assert err.call == "cuInit"


def _ptr(v):
    from cuda.bindings import driver as cu

    return cu.CUdeviceptr(v)


def test_queried_attributes_exist_in_the_bindings():
    from cuda.bindings import driver as cu

    for name in QUERIED:
        assert hasattr(cu.CUpointer_attribute, "CU_POINTER_ATTRIBUTE_" + name), name


def test_decode_device_host_managed_and_unknown():
    # values in QUERIED order: MEMORY_TYPE, IS_MANAGED, DEVICE_ORDINAL, DEVICE_POINTER,
    # HOST_POINTER, RANGE_START_ADDR, RANGE_SIZE (as cuda.bindings returns them)
    dev = _decode([2, False, 1, _ptr(0x7000_0010), 0, _ptr(0x7000_0000), 4096])
    assert dev == drv.PointerAttributes("device", is_managed=False, device_ordinal=1, device_pointer=0x7000_0010,
                                        host_pointer=None, range_start=0x7000_0000, range_size=4096)
    assert dev.known
    host = _decode([1, False, 0, _ptr(0x5000), 0x5000, _ptr(0x5000), 64])
    assert (host.memory_type, host.device_pointer, host.host_pointer, host.device_ordinal) == ("host", 0x5000,
                                                                                               0x5000, 0)
    managed = _decode([2, True, 0, _ptr(0x9000), 0x9000, _ptr(0x9000), 8])
    assert managed.memory_type == "device" and managed.is_managed and managed.host_pointer == 0x9000
    unknown = _decode([0, False, -2, _ptr(0), 0, _ptr(0), 0])
    assert unknown == drv.PointerAttributes(None) and not unknown.known
    assert (unknown.device_ordinal, unknown.device_pointer, unknown.is_managed, unknown.range_size) == (
        None, None, False, 0)
    assert _decode([4, False, -2, _ptr(1), 0, _ptr(1), 1]).device_ordinal is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        dev.memory_type = "host"
