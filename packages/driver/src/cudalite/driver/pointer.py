"""What the driver knows about an address: ``pointer_attributes(ptr)``.

One ``cuPointerGetAttributes`` call returns a :class:`PointerAttributes` value: the
memory type (``"device"``, ``"host"`` for page-locked host memory, ...), whether it is
managed (unified) memory, the ordinal of the device it belongs to, its device and host
addresses, and the allocation's range.  An address the driver does not know (pageable
host memory, garbage) is not an error: every field is ``None`` (``is_managed`` False,
``range_size`` 0) and ``.known`` is False.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._cu import call, cu
from ._state import get_driver
from .memory import device_pointer

__all__ = ["PointerAttributes", "pointer_attributes"]

# CUmemorytype values (cuda.h)
MEMORY_TYPES = {1: "host", 2: "device", 3: "array", 4: "unified"}
# the CU_POINTER_ATTRIBUTE_<name>s queried, in the order _decode reads them
QUERIED = ("MEMORY_TYPE", "IS_MANAGED", "DEVICE_ORDINAL", "DEVICE_POINTER", "HOST_POINTER",
           "RANGE_START_ADDR", "RANGE_SIZE")


@dataclass(frozen=True)
class PointerAttributes:
    """The driver's view of one address (see :func:`pointer_attributes`).

    ``memory_type``: ``"device"`` (cuMemAlloc and managed memory), ``"host"``
    (page-locked host memory), ``"array"``, ``"unified"``, or None when the driver does
    not know the address.  ``device_pointer``/``host_pointer``: the address to use on
    the device / on the host (None where there is none).  ``range_start``/``range_size``:
    the whole allocation that contains the address.

    Parameters
    ----------
    memory_type : str or None
        ``"device"``, ``"host"``, ``"array"``, ``"unified"``, or None for an unknown address.
    is_managed : bool, optional
        Whether the address is in managed (unified) memory.
    device_ordinal : int, optional
        The device the memory belongs to.
    device_pointer : int, optional
        The address to use on the device.
    host_pointer : int, optional
        The address to use on the host.
    range_start : int, optional
        Base address of the allocation that contains the address.
    range_size : int, optional
        Size of that allocation in bytes (0 when unknown).
    """

    memory_type: str | None
    is_managed: bool = False
    device_ordinal: int | None = None
    device_pointer: int | None = None
    host_pointer: int | None = None
    range_start: int | None = None
    range_size: int = 0

    @property
    def known(self) -> bool:
        """True when the address belongs to memory the driver allocated, registered or mapped."""
        return self.memory_type is not None


def _opt_address(value):
    v = int(value)
    return v or None


def _decode(values) -> PointerAttributes:
    """The :class:`PointerAttributes` of the raw values of :data:`QUERIED` (pure)."""
    mem, managed, ordinal, dptr, hptr, start, size = values
    kind = MEMORY_TYPES.get(int(mem))
    if kind is None:  # cuPointerGetAttributes fills in NULLs for unknown addresses
        return PointerAttributes(None)
    ordinal = int(ordinal)
    return PointerAttributes(
        memory_type=kind,
        is_managed=bool(managed),
        device_ordinal=ordinal if ordinal >= 0 else None,
        device_pointer=_opt_address(dptr),
        host_pointer=_opt_address(hptr),
        range_start=_opt_address(start),
        range_size=int(size),
    )


def _address(ptr) -> int:
    if isinstance(ptr, bool):
        raise TypeError("pointer_attributes: expected an address, not bool")
    if not isinstance(ptr, int):
        iface = getattr(ptr, "__array_interface__", None)
        if iface is not None and getattr(ptr, "ptr", None) is None:
            ptr = iface["data"][0]  # a host array
        else:
            ptr = device_pointer(ptr)
    if not 0 <= ptr < 1 << 64:
        raise ValueError(f"pointer_attributes: {ptr:#x} is not a 64-bit address")
    return ptr


def pointer_attributes(ptr: Any) -> PointerAttributes:
    """The driver's attributes of ``ptr``: an int address, a :class:`DeviceMemory`,
    :class:`HostMemory`, :class:`ManagedMemory`, an object with
    ``__cuda_array_interface__`` or a host array (``__array_interface__``).

    Parameters
    ----------
    ptr : int or object
        The address, or an object that holds one (see above).

    Returns
    -------
    PointerAttributes
        Every field None (``known`` False) when the driver does not know the address.

    Raises
    ------
    TypeError
        If ``ptr`` is a bool.
    ValueError
        If ``ptr`` is not a 64-bit address.
    """
    addr = _address(ptr)
    get_driver().current()
    enum = cu().CUpointer_attribute
    attrs = [getattr(enum, "CU_POINTER_ATTRIBUTE_" + name) for name in QUERIED]
    return _decode(call("cuPointerGetAttributes", len(attrs), attrs, addr))
