"""DeviceMemory answers numba's MemoryPointer names for its address (GPU-less)."""

import ctypes

from cudalite.driver.memory import DeviceMemory


def test_device_memory_has_numbas_pointer_names():
    m = DeviceMemory(0, 0, 0)  # a null allocation: nothing to free
    assert m.device_pointer == 0 and m.device_pointer_value is None
    assert isinstance(m.device_ctypes_pointer, ctypes.c_void_p) and m.device_ctypes_pointer.value is None
    n = DeviceMemory.__new__(DeviceMemory)
    n.ptr = 0x7F0000001000
    assert int(n.device_pointer) == 0x7F0000001000 == n.device_pointer_value
    assert n.device_ctypes_pointer.value == 0x7F0000001000
