"""Background warm-up started by the first ``@cuda.jit`` kernel definition.

A kernel's first launch needs libNVVM and nvJitLink loaded and the CUDA driver
initialised (cuInit plus the primary context: ~200 ms on some hosts).  Decorating
a kernel is the signal that a launch is coming, so the first kernel dispatcher
starts one daemon thread that loads the libraries and initialises the driver
while the program goes on (most of that time is spent in C calls that release
the GIL).  The first launch then finds them ready; locks inside cudalite.driver
and the libraries' loaders make a launch that comes sooner simply wait.  Nothing
happens at import time, and every failure (no GPU, no driver) is ignored here:
the launch reports it.
"""

from __future__ import annotations

import threading

from cudalite.driver import current_device

__all__ = ["start_warmup"]


def _warm():
    try:
        from cudalite.nvvm import libnvvm, pipeline  # noqa: F401  lazy: warm-up loads them

        libnvvm.ir_version()  # loads libNVVM
    except Exception:
        pass
    try:
        from cudalite.linker import nvjitlink_version  # lazy: loaded by the warm-up thread

        nvjitlink_version()  # loads nvJitLink
    except Exception:
        pass
    try:
        current_device().make_current()  # cuInit + primary context
    except Exception:
        pass


def start_warmup(runtime) -> None:
    """Start the warm-up thread once per process (``runtime`` records it)."""
    if runtime.warmup is not None:
        return
    with runtime.lock:
        if runtime.warmup is None:
            t = threading.Thread(target=_warm, name="cudalite-warmup", daemon=True)
            runtime.warmup = t
            t.start()
