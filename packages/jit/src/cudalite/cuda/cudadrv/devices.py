"""``cuda.devices`` / ``cuda.cudadrv.devices``: numba's device-module names.

* ``gpus`` -- the device list (``cuda.gpus``): ``len(gpus)``, ``gpus[i]``, and ``with
  gpus[i]:`` to make device ``i`` current in a block;
* ``get_context(devnum=None)`` -- the :class:`~cudalite.cuda.cudadrv.driver.Context`
  of the current device, or of device ``devnum`` (``cuda.current_context``);
* ``require_context(fn)`` -- a decorator that makes sure the current device's context
  exists before ``fn`` runs;
* ``reset()`` -- ``cuda.close()``: synchronizes every device (cudalite keeps the
  retained primary contexts, so device arrays stay valid).
"""

from __future__ import annotations

import functools

from .._runtime.api import close, gpus
from .._runtime.context import current_context

__all__ = ["gpus", "get_context", "require_context", "reset"]


def get_context(devnum=None):
    """The context of the current device, or of device ``devnum`` (numba's
    ``devices.get_context``; the same object as ``cuda.current_context(devnum)``)."""
    return current_context(devnum)


def require_context(fn):
    """Decorate ``fn`` so that the current device's context exists when it runs."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        current_context()
        return fn(*args, **kwargs)

    return wrapper


def reset():
    """numba's ``devices.reset()``: here ``cuda.close()`` (see the module doc)."""
    close()
