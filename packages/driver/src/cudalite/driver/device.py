"""Devices: enumeration, attributes, and the per-thread current device.

``device_count()``, ``get_device(i)``, ``set_current_device(i)``, ``current_device()``,
``synchronize()`` (wait for all work of the current device: cuCtxSynchronize).
A :class:`Device` is a light value (equal by ordinal); its attributes are queried from
the driver when read.  The first call initializes the driver (cuInit).
"""

from __future__ import annotations

from typing import Any

from ._cu import call, cu
from ._state import get_driver

__all__ = ["Device", "device_count", "get_device", "set_current_device", "current_device", "current_device_id",
           "current_device_reader", "memory_info", "synchronize"]



class Device:
    """A CUDA device, identified by its ordinal (``id``); obtain one with :func:`get_device`.

    Parameters
    ----------
    ordinal : int
        The device's ordinal, ``0 <= ordinal < device_count()``.

    Raises
    ------
    CudaDriverError
        If ``ordinal`` names no device (or the driver cannot be initialized).
    """

    __slots__ = ("id",)

    def __init__(self, ordinal: Any) -> None:
        get_driver().device_handle(ordinal)  # validates
        self.id = ordinal

    def __repr__(self) -> str:
        return f"<cudalite.driver.Device {self.id}: {self.name}>"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("cudalite.driver.Device", self.id))

    @property
    def handle(self) -> Any:
        """The cuda.bindings ``CUdevice``."""
        return get_driver().device_handle(self.id)

    @property
    def name(self) -> str:
        """The device's product name, e.g. ``"NVIDIA H100 80GB HBM3"``."""
        return call("cuDeviceGetName", 256, self.handle).split(b"\0", 1)[0].decode()

    def attribute(self, name: Any) -> Any:
        """Query a device attribute (cuDeviceGetAttribute).

        Parameters
        ----------
        name : str
            The ``CUdevice_attribute`` name, with or without its ``CU_DEVICE_ATTRIBUTE_``
            prefix, in any case, e.g. ``"MAX_THREADS_PER_BLOCK"``.

        Returns
        -------
        int
            The attribute's value.

        Raises
        ------
        ValueError
            If ``name`` is not a device attribute.
        """
        key = name.upper()
        if not key.startswith("CU_DEVICE_ATTRIBUTE_"):
            key = "CU_DEVICE_ATTRIBUTE_" + key
        try:
            attr = getattr(cu().CUdevice_attribute, key)
        except AttributeError:
            raise ValueError(f"unknown device attribute {name!r}") from None
        return call("cuDeviceGetAttribute", attr, self.handle)

    @property
    def compute_capability(self) -> tuple:
        """``(major, minor)`` compute capability, e.g. ``(9, 0)``."""
        return (self.attribute("COMPUTE_CAPABILITY_MAJOR"), self.attribute("COMPUTE_CAPABILITY_MINOR"))

    @property
    def arch(self) -> str:
        """``"sm_XY"`` for linking cubins for this device."""
        major, minor = self.compute_capability
        return f"sm_{major}{minor}"

    @property
    def multiprocessor_count(self) -> int:
        """Number of streaming multiprocessors (SMs)."""
        return self.attribute("MULTIPROCESSOR_COUNT")

    @property
    def total_memory(self) -> int:
        """Total global memory of the device, in bytes."""
        return call("cuDeviceTotalMem", self.handle)

    @property
    def pci_bus_id(self) -> str:
        """The PCI bus id string, e.g. ``"0000:1B:00.0"``."""
        return call("cuDeviceGetPCIBusId", 64, self.handle).split(b"\0", 1)[0].decode()

    @property
    def uuid(self) -> bytes:
        """The device's 16-byte UUID."""
        return bytes(call("cuDeviceGetUuid", self.handle).bytes)

    @property
    def context(self) -> Any:
        """The primary ``CUcontext`` (retained once per process)."""
        return get_driver().context(self.id)

    def make_current(self) -> Device:
        """Make this device current for the calling thread."""
        get_driver().set_current(self.id)
        return self

    def synchronize(self) -> None:
        """Wait until all work queued on this device (every stream of its primary
        context) has finished (cuCtxSynchronize); reports errors of earlier launches."""
        d = get_driver()
        d.push(self.id)
        try:
            call("cuCtxSynchronize")
        finally:
            d.pop()

    def memory_info(self) -> Any:
        """Free and total global memory of this device (cuMemGetInfo).

        Returns
        -------
        tuple of int
            ``(free, total)`` in bytes.
        """
        d = get_driver()
        d.push(self.id)
        try:
            return call("cuMemGetInfo")
        finally:
            d.pop()

    def set_mempool_release_threshold(self, nbytes: Any) -> None:
        """Keep up to ``nbytes`` of freed stream-ordered memory in the device's default
        pool instead of returning it to the OS at each synchronization.

        Parameters
        ----------
        nbytes : int
            The pool's release threshold, in bytes (``CU_MEMPOOL_ATTR_RELEASE_THRESHOLD``).
        """
        driver = cu()
        pool = call("cuDeviceGetDefaultMemPool", self.handle)
        attr = driver.CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD
        call("cuMemPoolSetAttribute", pool, attr, driver.cuuint64_t(nbytes))


def device_count() -> int:
    """Number of CUDA devices (initializes the driver).

    Returns
    -------
    int
        The number of devices the driver reports.

    Raises
    ------
    CudaSupportError
        If CUDA cannot be used in this process (no driver, no device).
    """
    return get_driver().device_count


def get_device(i: Any = None) -> Device:
    """Return a device by ordinal.

    Parameters
    ----------
    i : int, optional
        The device ordinal; ``None`` (default) means the calling thread's current device.

    Returns
    -------
    Device

    Raises
    ------
    CudaDriverError
        If ``i`` names no device.
    """
    return current_device() if i is None else Device(i)


def set_current_device(i: Any) -> Device:
    """Make device ``i`` current for the calling thread.

    Parameters
    ----------
    i : int
        The device ordinal.

    Returns
    -------
    Device
        The device now current.

    Raises
    ------
    CudaDriverError
        If ``i`` names no device.
    """
    get_driver().set_current(i)
    return Device(i)


def current_device() -> Device:
    """The calling thread's current device (device 0 if never set)."""
    return Device(get_driver().current())


def current_device_id() -> int:
    """The calling thread's current device ordinal, cheaply: one read of the
    per-thread record (the first call in a thread chooses its device, as
    :func:`current_device` does).

    Returns
    -------
    int
        The ordinal.
    """
    return get_driver().current_id()


def current_device_reader() -> Any:
    """A zero-argument callable returning the calling thread's current device ordinal
    (what :func:`current_device_id` returns), for hot paths: the bound method of the
    process's driver state, one call and one per-thread read.  Valid in this process
    only (not after a fork).

    Returns
    -------
    callable
    """
    return get_driver().current_id


def memory_info() -> Any:
    """Free and total global memory of the calling thread's current device.

    Returns
    -------
    tuple of int
        ``(free, total)`` in bytes (cuMemGetInfo).
    """
    get_driver().current()
    return call("cuMemGetInfo")


def synchronize() -> None:
    """Wait until all work queued on the calling thread's current device has finished
    (cuCtxSynchronize on its primary context); reports errors of earlier launches.

    Raises
    ------
    CudaDriverError
        If queued work failed (e.g. a kernel faulted).
    """
    get_driver().current()
    call("cuCtxSynchronize")
