"""Peer access between devices and copies from one device's memory to another's.

``can_access_peer(device, peer)`` (cuDeviceCanAccessPeer), ``enable_peer_access(device,
peer)`` (cuCtxEnablePeerAccess in ``device``'s primary context, idempotent) and
``copy_peer(dst, dst_device, src, src_device, nbytes)`` (cuMemcpyPeer/Async, which
needs no peer access).  Devices are ordinals given by the caller: nothing here asks
which device is current.
"""

from __future__ import annotations

from typing import Any

from ._cu import call
from ._state import get_driver
from .errors import CudaDriverError
from .memory import DeviceMemory, _dev_size, device_pointer
from .stream import as_custream

__all__ = ["can_access_peer", "enable_peer_access", "copy_peer"]

_PEER_ACCESS_ALREADY_ENABLED = 704


def can_access_peer(device: int, peer: int) -> bool:
    """Whether kernels on ``device`` can address memory of ``peer`` once peer access is
    enabled (cuDeviceCanAccessPeer); False for ``device == peer``.

    Parameters
    ----------
    device, peer : int
        Device ordinals.

    Returns
    -------
    bool

    Raises
    ------
    CudaDriverError
        If an ordinal names no device.
    """
    d = get_driver()
    if device == peer:
        d.device_handle(device)
        return False
    return bool(call("cuDeviceCanAccessPeer", d.device_handle(device), d.device_handle(peer)))


def enable_peer_access(device: int, peer: int) -> None:
    """Let kernels running on ``device`` address ``peer``'s memory (cuCtxEnablePeerAccess
    in ``device``'s primary context); enabling it twice is not an error.

    Parameters
    ----------
    device, peer : int
        Device ordinals (different).

    Raises
    ------
    CudaDriverError
        If the devices cannot access each other (``CUDA_ERROR_PEER_ACCESS_UNSUPPORTED``)
        or an ordinal names no device.
    """
    d = get_driver()
    ctx = d.context(peer)
    d.push(device)
    try:
        call("cuCtxEnablePeerAccess", ctx, 0)
    except CudaDriverError as exc:
        if exc.code != _PEER_ACCESS_ALREADY_ENABLED:
            raise
    finally:
        d.pop()


def copy_peer(dst: DeviceMemory | int, dst_device: int, src: DeviceMemory | int, src_device: int,
              nbytes: int | None = None, stream: Any = None) -> None:
    """Copy ``nbytes`` (default: the size of ``src``) from device ``src_device``'s memory
    to device ``dst_device``'s (cuMemcpyPeer, or cuMemcpyPeerAsync on ``stream``).  It
    needs no peer access; the driver stages the copy through the host when the
    devices cannot reach each other.

    Parameters
    ----------
    dst, src : DeviceMemory or int
        The destination and source device buffers.
    dst_device, src_device : int
        The ordinals of the devices they belong to.
    nbytes : int, optional
    stream : Stream or int, optional
        A stream of either device; ``None`` (default) copies synchronously.
    """
    d = get_driver()
    n = _dev_size(src, nbytes)
    if isinstance(dst, DeviceMemory) and n > dst.size:
        raise ValueError(f"copy of {n} bytes exceeds the device allocation ({dst.size} bytes)")
    dctx, sctx = d.context(dst_device), d.context(src_device)
    d.current()
    if stream is None:
        call("cuMemcpyPeer", device_pointer(dst), dctx, device_pointer(src), sctx, n)
    else:
        call("cuMemcpyPeerAsync", device_pointer(dst), dctx, device_pointer(src), sctx, n, as_custream(stream))
