"""The profiler switch and the driver version.

``profile_start()``/``profile_stop()`` (cuProfilerStart/Stop) delimit the region that
Nsight Systems / Nsight Compute capture with ``--capture-range=cudaProfilerApi``.
``driver_version()`` is the CUDA version the installed driver supports, as
``(major, minor)`` (cuDriverGetVersion).
"""

from __future__ import annotations

from ._cu import call
from ._state import get_driver

__all__ = ["profile_start", "profile_stop", "driver_version"]


def profile_start() -> None:
    """Enable profile collection in the current context (cuProfilerStart)."""
    get_driver().current()
    call("cuProfilerStart")


def profile_stop() -> None:
    """Disable profile collection in the current context (cuProfilerStop)."""
    get_driver().current()
    call("cuProfilerStop")


def driver_version() -> tuple:
    """``(major, minor)`` of the CUDA version the driver supports, e.g. ``(13, 0)``."""
    get_driver()
    v = int(call("cuDriverGetVersion"))
    return (v // 1000, (v % 1000) // 10)
