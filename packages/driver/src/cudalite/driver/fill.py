"""Filling device memory: ``memset`` (bytes, cuMemsetD8) and ``memset_d32`` (32-bit
words, cuMemsetD32), synchronous or on a stream."""

from __future__ import annotations

from typing import Any

from ._cu import call
from ._state import get_driver
from .memory import _dev_size, device_pointer
from .stream import as_custream

__all__ = ["memset", "memset_d32"]


def memset(dst: Any, value: Any, nbytes: Any = None, stream: Any = None) -> None:
    """Set ``nbytes`` bytes (default: the whole allocation) to the byte ``value`` (D8).

    Parameters
    ----------
    dst : DeviceMemory or int
    value : int
    nbytes : int, optional
    stream : Stream or int, optional
    """
    get_driver().current()
    n = _dev_size(dst, nbytes)
    if stream is None:
        call("cuMemsetD8", device_pointer(dst), value & 0xFF, n)
    else:
        call("cuMemsetD8Async", device_pointer(dst), value & 0xFF, n, as_custream(stream))


def memset_d32(dst: Any, value: Any, count: Any = None, stream: Any = None) -> None:
    """Set ``count`` 32-bit words (default: the whole allocation) to ``value`` (D32).

    Parameters
    ----------
    dst : DeviceMemory or int
    value : int
    count : int, optional
    stream : Stream or int, optional
    """
    get_driver().current()
    n = _dev_size(dst, None if count is None else count * 4) // 4
    if stream is None:
        call("cuMemsetD32", device_pointer(dst), value & 0xFFFFFFFF, n)
    else:
        call("cuMemsetD32Async", device_pointer(dst), value & 0xFFFFFFFF, n, as_custream(stream))
