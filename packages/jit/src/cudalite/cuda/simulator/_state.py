"""The simulator's one per-process object, :data:`SIM`, and the accessor of the
running simulated thread's context.

``SIM`` is the only mutable module-level state of :mod:`cudalite.cuda.simulator`:

* ``SIM.tls`` -- a :class:`threading.local`; in a Python thread that runs a
  simulated CUDA thread, ``SIM.tls.ctx`` is that thread's
  :class:`~cudalite.cuda.simulator.context.ThreadContext` (indices, block, warp);
* ``SIM.atomic_lock`` -- the lock that makes ``cuda.atomic.*`` atomic;
* ``SIM.device_id`` -- the selected (simulated) device;
* ``SIM.pool`` -- the :class:`~cudalite.cuda.simulator.pool.WorkerPool` whose
  threads run simulated threads (kept between launches).
"""

from __future__ import annotations

import threading

from .pool import WorkerPool

__all__ = ["SIM", "current", "in_kernel"]


class _SimulatorProcessState:
    """Per-process simulator state (see the module docstring)."""

    def __init__(self):
        self.tls = threading.local()
        self.atomic_lock = threading.RLock()
        self.device_id = 0
        self.pool = WorkerPool()


SIM = _SimulatorProcessState()


def current():
    """The running simulated thread's context; RuntimeError outside a simulated kernel."""
    ctx = getattr(SIM.tls, "ctx", None)
    if ctx is None:
        raise RuntimeError("this device-side function only works inside a kernel launched by the "
                           "cudalite CUDA simulator (kernel[grid, block](...)), not from host code")
    return ctx


def in_kernel() -> bool:
    """True in a Python thread that runs a simulated CUDA thread."""
    return getattr(SIM.tls, "ctx", None) is not None
