"""Background warm-up started by the first ``@cuda.jit`` kernel definition.

A kernel's first launch needs the CUDA driver initialised (cuInit plus the primary
context: 250-400 ms on an H200 host), the compiler's modules imported (typing,
lowering, the build stages: ~100 ms of module code), libNVVM and nvJitLink loaded,
and each library's one-time set-up done on its first compile or link.  Decorating a
kernel is the signal that a launch is coming, so the first kernel dispatcher starts
two daemon threads while the program goes on:

* ``cudalite-warmup-driver`` initialises the driver and the current device's
  primary context -- C calls that release the GIL, the longest part -- and loads the
  launch backend (the compiled launch shim and the driver's entry points);
* ``cudalite-warmup`` imports the compile chain, loads libNVVM and nvJitLink, and
  builds a one-line probe kernel GPU-less (compile and link for sm_75, never loaded
  or cached) so that the libraries' first-use set-up is done too, then computes the
  compiler's fingerprint that every kernel cache key holds (once per process) and
  imports the argument kinds of the launch path.

They overlap: the import thread holds the GIL while the driver thread waits in C,
and a program's own first driver call (making arrays) waits for the context either
way.  The first build joins the import thread first (:func:`wait_for_warmup`, timed
as the ``warmup`` part of the ``CUDALITE_TIMINGS`` line), so a compile never runs
beside half-finished imports.  ``os.fork`` waits for both threads (a fork while a
thread holds an import lock would leave the child deadlocked on that module).
Nothing happens at import time, and every failure (no GPU, no driver, no library)
is ignored here: the launch reports it.
"""

from __future__ import annotations

import os
import threading
from time import perf_counter

from cudalite.driver import current_device, load_launch_backend

__all__ = ["start_warmup", "wait_for_warmup", "WARMUP_WAIT_LIMIT"]

WARMUP_WAIT_LIMIT = 60.0  # seconds a build or a fork waits for the warm-up before going on without it


def _warm_driver() -> None:
    try:
        current_device().make_current()  # cuInit + primary context
        load_launch_backend()  # the compiled launch shim and the driver's entry points
    except Exception:
        pass


def _warm_compiler() -> None:
    try:
        from .._compiler.prewarm import prewarm  # lazy: importing it imports the whole compile chain

        prewarm()  # libNVVM, nvJitLink, the probe build, the compiler fingerprint
    except Exception:
        pass
    try:
        from .._launch.kinds import kind_table  # lazy: the argument kinds' modules, read at the first launch

        kind_table()  # imports them (the runtime builds its own table from the loaded modules)
    except Exception:
        pass


def start_warmup(runtime) -> None:
    """Start the warm-up threads once per process (``runtime`` records them)."""
    if runtime.warmup is not None:
        return
    with runtime.lock:
        if runtime.warmup is None:
            driver = threading.Thread(target=_warm_driver, name="cudalite-warmup-driver", daemon=True)
            compiler = threading.Thread(target=_warm_compiler, name="cudalite-warmup", daemon=True)
            runtime.warmup = (compiler, driver)
            if hasattr(os, "register_at_fork"):
                os.register_at_fork(before=lambda: _join_all(runtime))
            driver.start()
            compiler.start()


def _join_all(runtime) -> None:
    for thread in runtime.warmup or ():
        if thread is not threading.current_thread() and thread.is_alive():
            thread.join(WARMUP_WAIT_LIMIT)


def wait_for_warmup(runtime) -> float:
    """Wait for the import thread of the warm-up (not the driver's: a build needs no
    context); the seconds waited (0.0 when there is none or it is done)."""
    threads = runtime.warmup
    if threads is None:
        return 0.0
    compiler = threads[0]
    if not compiler.is_alive() or compiler is threading.current_thread():
        return 0.0
    t0 = perf_counter()
    compiler.join(WARMUP_WAIT_LIMIT)
    return perf_counter() - t0
