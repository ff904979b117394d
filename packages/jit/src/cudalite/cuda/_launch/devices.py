"""Which device an array operation or a kernel launch runs on (multi-GPU routing).

The jit package is the one that asks "which device is current"; this module holds
those questions and the routing rule of launches:

* :func:`multi_gpu` -- more than one device in the process.  With one device no
  routing is needed, so the generated launch code and the array methods skip every
  device check (they cost nothing on a one-GPU machine).
* :func:`on_device` -- run a block with a device current in the calling thread (its
  primary context), restoring the thread's device afterwards; nothing happens when
  it is current already.
* :func:`launch_device` -- a pure function: the device a launch runs on, given the
  devices its array arguments live on, the device of its stream and the current
  device; arguments on different devices are an error naming them.

Device ids: an int ordinal, or :data:`ANY` for memory every device addresses
(managed memory), or None for "not an array" / "no device of its own".
"""

from __future__ import annotations

import contextlib

import cudalite.driver as _drv

__all__ = ["ANY", "multi_gpu", "current_cc", "current_id", "current_reader", "on_device", "launch_device",
           "launch_target", "MixedDevicesError", "dlpack_device_of"]

ANY = -1  # memory every device can address (managed): no constraint on the launch device


def multi_gpu() -> bool:
    """True when the process sees more than one CUDA device (False without a driver)."""
    try:
        return _drv.device_count() > 1
    except Exception:  # no driver, no device: nothing to route
        return False


def current_cc() -> tuple:
    """The compute capability of the current device, ``(major, minor)`` (initializes the driver)."""
    return tuple(_drv.current_device().compute_capability)


def current_id() -> int:
    """The calling thread's current device ordinal (cheap: a per-thread record)."""
    return _drv.current_device_id()


def current_reader():
    """A zero-argument callable giving the calling thread's current device ordinal,
    for the generated launch code (one bound-method call)."""
    return _drv.current_device_reader()


@contextlib.contextmanager
def on_device(device_id):
    """``with on_device(i):`` device ``i`` is current in the block (``None`` or
    :data:`ANY`: the current device stays)."""
    if device_id is None or device_id == ANY:
        yield
        return
    prev = _drv.current_device_id()
    if prev == device_id:
        yield
        return
    _drv.set_current_device(device_id)
    try:
        yield
    finally:
        _drv.set_current_device(prev)


class MixedDevicesError(ValueError):
    """A kernel's array arguments (or its stream) are on different devices."""


def launch_device(kernel_name, placed, stream_device, current):
    """The device a launch runs on.

    Parameters
    ----------
    kernel_name : str
        For messages.
    placed : list of (str, int)
        ``(argument name, device id)`` for each array argument with a device of its
        own (:data:`ANY` entries are ignored).
    stream_device : int or None
        The device of the launch stream (None: a default stream, which follows the
        launch's device).
    current : int
        The calling thread's current device.

    Returns
    -------
    int
        The devices of the arrays when they all agree, else the stream's device, else
        the current one.

    Raises
    ------
    MixedDevicesError
        Arrays on different devices, or arrays and the stream on different devices.
    """
    devices = {}
    for name, dev in placed:
        if dev is not None and dev != ANY:
            devices.setdefault(dev, []).append(name)
    if len(devices) > 1:
        where = "; ".join(f"{', '.join(repr(n) for n in names)} on device {dev}"
                          for dev, names in sorted(devices.items()))
        raise MixedDevicesError(
            f"kernel {kernel_name!r}: its array arguments are on different devices ({where}); a launch runs "
            "on one device: copy the arrays to one device first (dst.copy_to_device(src) copies between "
            "devices)")
    if devices:
        (target, names), = devices.items()
        if stream_device is not None and stream_device != target:
            raise MixedDevicesError(
                f"kernel {kernel_name!r}: the launch stream belongs to device {stream_device} but the array "
                f"arguments ({', '.join(repr(n) for n in names)}) are on device {target}: use a stream of "
                f"device {target} (create it inside `with cuda.gpus[{target}]:`)")
        return target
    return stream_device if stream_device is not None else current


def launch_target(disp, args, sh):
    """The device a launch of dispatcher ``disp`` with ``args`` (``cuda.In``/``Out``
    hints already unwrapped) on stream handle ``sh`` runs on: :func:`launch_device` of
    the devices its argument handlers report (``ArgHandler.devices``) and of the
    stream's device (MixedDevicesError for arrays on two devices)."""
    placed = []
    for name, a in zip(disp._names, args):
        for dev in disp._rt.kind(type(a), a).devices(a):
            placed.append((name, dev))
    stream_device = _drv.stream_device(sh) if sh > 2 else None
    return launch_device(disp.py_func.__name__, placed, stream_device, current_id())


def dlpack_device_of(owner):
    """The device ``owner`` says its memory is on through ``__dlpack_device__`` (CuPy,
    torch, cuda.core): the ordinal for CUDA memory, ANY for managed memory; None when
    it does not say (then the driver is asked on first use)."""
    ask = getattr(owner, "__dlpack_device__", None)
    if ask is None:
        return None
    try:
        kind, dev = ask()
    except Exception:  # a producer whose DLPack side fails: the driver is asked instead
        return None
    if int(kind) == 2:  # kDLCUDA
        return int(dev)
    return ANY if int(kind) == 13 else None  # kDLCUDAManaged
