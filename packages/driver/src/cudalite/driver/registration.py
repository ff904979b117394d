"""Page-locking existing host memory, and the device address of mapped host memory.

``register_host(obj)`` page-locks the memory of a NumPy array, a contiguous buffer, or
an int address with ``nbytes`` (cuMemHostRegister) and returns a
:class:`HostRegistration`; ``mapped=True`` also maps it into the device address space
(``.device_ptr``).  The registration is undone by ``.unregister()``, at the end of a
``with`` block, or by a ``weakref.finalize`` when the object dies; it keeps the host
object alive until then.  ``host_device_pointer(h)`` is the device address of mapped
page-locked memory: ``alloc_host(n, mapped=True)``, a mapped registration, or an
address inside one (cuMemHostGetDevicePointer).
"""

from __future__ import annotations

import weakref
from typing import Any

from ._cu import call
from ._state import get_driver, peek_driver
from .memory import HostMemory, _host, _release

__all__ = ["HostRegistration", "register_host", "host_device_pointer"]

_CU_MEMHOSTREGISTER_PORTABLE = 1
_CU_MEMHOSTREGISTER_DEVICEMAP = 2


class HostRegistration:
    """Host memory page-locked by :func:`register_host`: ``.ptr``, ``.size``,
    ``.device_id``, ``.portable``, ``.mapped``, ``.device_ptr`` (the device address when
    mapped, else None), ``.registered``; ``.unregister()``; usable as a context manager.

    Parameters
    ----------
    ptr : int
        The registered host address.
    size : int
        The registered size in bytes.
    device_id : int
        The ordinal of the device whose context registered it.
    portable : bool, optional
        Whether it is page-locked for every context.
    mapped : bool, optional
        Whether it is mapped into the device address space.
    device_ptr : int, optional
        Its device address when mapped.
    keepalive : object, optional
        The host object kept alive until the memory is unregistered.
    """

    __slots__ = ("ptr", "size", "device_id", "portable", "mapped", "device_ptr", "_finalizer", "__weakref__")

    def __init__(self, ptr: Any, size: Any, device_id: Any, *, portable: bool = False, mapped: bool = False,
                 device_ptr: Any = None, keepalive: Any = None) -> None:
        self.ptr = int(ptr)
        self.size = size
        self.device_id = device_id
        self.portable = portable
        self.mapped = mapped
        self.device_ptr = device_ptr
        self._finalizer = weakref.finalize(self, _release, "cuMemHostUnregister", (self.ptr,), device_id,
                                           keepalive)

    @property
    def registered(self) -> bool:
        """True until the memory is unregistered."""
        return self._finalizer.alive

    def unregister(self) -> None:
        """Unregister now (idempotent).  Unlike the finalizer, which ignores errors,
        a refusal of the driver raises :class:`CudaDriverError`.

        Raises
        ------
        CudaDriverError
            If the driver refuses to unregister the memory.
        """
        info = self._finalizer.detach()  # (self, func, args, kwargs): holds the keepalive
        if info is None:
            return
        d = peek_driver()
        if d is None:  # interpreter exit: the contexts (and registrations) are gone
            return
        d.push(self.device_id)
        try:
            call("cuMemHostUnregister", self.ptr)
        finally:
            d.pop()

    def __enter__(self) -> HostRegistration:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.unregister()

    def __repr__(self) -> str:
        state = ("mapped" if self.mapped else "pinned") if self.registered else "unregistered"
        return f"<cudalite.driver.HostRegistration {self.ptr:#x} size={self.size} ({state})>"


def register_host(host: Any, nbytes: Any = None, *, portable: bool = False, mapped: bool = False) -> HostRegistration:
    """Page-lock existing host memory for the current device's context (cuMemHostRegister).

    ``host``: a contiguous NumPy array or buffer-protocol object (``nbytes`` defaults
    to all of it), or an int address (``nbytes`` required).  ``portable``: page-locked
    for every context; ``mapped``: also mapped into the device address space
    (``.device_ptr``).  Registering memory twice raises :class:`CudaDriverError`
    ``CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED``.

    Parameters
    ----------
    host : numpy.ndarray, buffer or int
        The host memory to page-lock.
    nbytes : int, optional
        Bytes to register (default: all of ``host``; required for an int address).
    portable : bool, optional
        Page-lock it for every context, not only the current one.
    mapped : bool, optional
        Also map it into the device address space.

    Returns
    -------
    HostRegistration

    Raises
    ------
    TypeError
        If ``host`` is a bool.
    ValueError
        If ``nbytes`` is not a positive int, the address is null, or ``host`` is not contiguous.
    CudaDriverError
        If the driver refuses (e.g. the memory is already registered).
    """
    if isinstance(host, bool):
        raise TypeError("register_host: host must be an array, a buffer or an int address, not bool")
    addr, n, keep = _host(host, False, nbytes)
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise ValueError(f"register_host: nbytes must be a positive int, not {n!r}")
    if not addr:
        raise ValueError("register_host: null host address")
    flags = (_CU_MEMHOSTREGISTER_PORTABLE if portable else 0) | (_CU_MEMHOSTREGISTER_DEVICEMAP if mapped else 0)
    dev = get_driver().current()
    call("cuMemHostRegister", addr, n, flags)
    devptr = None
    if mapped:
        try:
            devptr = int(call("cuMemHostGetDevicePointer", addr, 0))
        except BaseException:
            call("cuMemHostUnregister", addr)
            raise
    return HostRegistration(addr, n, dev, portable=bool(portable), mapped=bool(mapped), device_ptr=devptr,
                            keepalive=keep)


def host_device_pointer(host: Any) -> int:
    """The device address (int) of mapped page-locked host memory, as seen from the
    current device's context: a :class:`HostMemory` from ``alloc_host(n, mapped=True)``,
    a :class:`HostRegistration` made with ``mapped=True``, or an int address / NumPy
    array / buffer inside such memory (cuMemHostGetDevicePointer).  Memory that is
    not mapped raises :class:`CudaDriverError` ``CUDA_ERROR_INVALID_VALUE``.

    Parameters
    ----------
    host : HostMemory, HostRegistration, int, numpy.ndarray or buffer
        Mapped page-locked host memory, or an address inside it.

    Returns
    -------
    int
        The device address.

    Raises
    ------
    TypeError
        If ``host`` is a bool.
    ValueError
        If the address is null, or a registration was undone or made without ``mapped=True``.
    CudaDriverError
        If the memory is not mapped.
    """
    if isinstance(host, HostRegistration):
        if not host.registered:
            raise ValueError("host_device_pointer: the registration was undone")
        if host.device_ptr is None:
            raise ValueError("host_device_pointer: the memory was registered without mapped=True")
        return host.device_ptr
    if isinstance(host, HostMemory):
        addr = host.ptr
    elif isinstance(host, bool):
        raise TypeError("host_device_pointer: host must be host memory or an int address, not bool")
    elif isinstance(host, int):
        addr = host
    else:
        addr = _host(host, False, None)[0]
    if not addr:
        raise ValueError("host_device_pointer: null host address")
    get_driver().current()
    return int(call("cuMemHostGetDevicePointer", addr, 0))
