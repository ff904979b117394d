"""The jit's runtime: the process-wide record, faults, devices, streams and contexts.

* :mod:`.record` -- ``JitRuntime``, the one process-wide record of the jit package
  (argument kinds per class, last kernel per device, loaded kernels, launch state,
  contexts, the EMM plugin class, refused cache directories), behind ``jit_runtime()``;
* :mod:`.faults` -- ``KernelFaultError`` and ``kernel_fault``: driver errors naming the
  kernel that faulted;
* :mod:`.api` -- numba's runtime API: devices, streams, events, synchronization;
* :mod:`.context` -- ``cuda.current_context()`` and the context-level helpers;
* :mod:`.info` -- ``cudalite-info``; :mod:`.warmup` -- the background warm-up.

It may import cudalite.driver and cudalite.core; every other sub-package may import it.
"""
