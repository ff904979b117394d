"""Loading a launch backend's native code ahead of the first launcher.

A :class:`~.launch.Launcher` opens its backend's native code on first use: the
compiled launch shim plus the driver's entry points (``shim``), or libcuda through
cffi or ctypes.  :func:`load_launch_backend` does it earlier, once per process, so a
runtime can pay for it in the background (cudalite.cuda's warm-up) instead of in the
first launch.
"""

from __future__ import annotations

from ._state import get_driver

__all__ = ["load_launch_backend"]


def load_launch_backend(backend: str | None = None) -> str:
    """Load the native code launchers of ``backend`` use, now (once per process).

    Parameters
    ----------
    backend : str, optional
        ``"shim"``, ``"cffi"``, ``"ctypes"`` or ``"bindings"`` (which loads nothing);
        default: the configured launch backend.

    Returns
    -------
    str
        The backend launchers will use: ``backend``, or ``"bindings"`` when its
        native code cannot be had here (no compiler for the shim, no libcuda).

    Raises
    ------
    cudalite.driver.CudaDriverError
        The driver cannot be initialised (the shim's entry points come from it).
    """
    driver = get_driver()
    backend = backend or driver.config.launch_backend
    if backend in ("shim", "cffi", "ctypes") and driver.native(backend) is None:
        return "bindings"
    return backend
