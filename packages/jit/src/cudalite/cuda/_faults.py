"""The jit runtime record: argument handlers per class, and which kernel ran last.

One :class:`JitRuntime` per process, created by the locked accessor
:func:`jit_runtime` (no other module-level mutable state).  It keeps

* ``kinds``: ``type(arg) -> ArgKind`` (the argument-kind table's entry for each class
  seen, shared by all dispatchers; :mod:`._launch.kinds`);
* ``last``: ``device id -> CompiledKernel`` launched last there, so that a kernel
  fault reported by a later synchronizing call can name the kernel;
* ``refused_dirs``: the kernel cache directories refused as untrusted (each is
  warned about once per process, see ``_cache.directory_refusal``);
* ``kernels``: ``CUfunction`` handle -> CompiledKernel (weak), so that a captured
  graph's kernel nodes know their kernels;
* ``launch_state``: the dispatchers that keep launchers (weak), whose launchers and
  cached last arguments are dropped at exit (:meth:`JitRuntime.release_launch_state`);
* ``contexts``: ``device id -> Context`` (``cuda.current_context()``, made on first
  use) and ``memory_manager``: the EMM plugin class of ``set_memory_manager`` (None:
  cudalite's allocator).

:class:`KernelFaultError` (a :class:`~cudalite.driver.CudaDriverError`) wraps
such an error; :func:`kernel_fault` builds one from a driver error, and other
modules (synchronize, copies) may call it to name the culprit too.
"""

from __future__ import annotations

import atexit
import gc
import threading
import weakref

from cudalite.driver import CudaDriverError

__all__ = ["JitRuntime", "jit_runtime", "KernelFaultError", "kernel_fault"]


class KernelFaultError(CudaDriverError):
    """A kernel faulted (illegal address, trap, ...): the driver error, naming the
    kernel launched last on that device.  ``.kernel`` is the kernel's Python name.

    A :class:`~cudalite.driver.CudaDriverError` (so a ``CudaAPIError`` for numba code).

    Parameters
    ----------
    code : int
        The ``CUresult``.
    name : str
        Its symbolic name, ``CUDA_ERROR_...``.
    message : str
        The driver's description.
    call : str
        The driver function that reported it.
    kernel : str, optional
        The name of the kernel launched last on the device.
    """

    def __init__(self, code, name, message, call, kernel=None):
        super().__init__(code, name, message, call)
        self.kernel = kernel
        if kernel:
            self.args = (f"kernel {kernel!r} failed: {self.args[0]}",)

    def __reduce__(self):
        return (type(self), (self.code, self.name, self.message, self.call, self.kernel))


class JitRuntime:
    """Process-wide caches of the jit layer (see module docstring)."""

    def __init__(self):
        self.kinds = {}
        self.kind_table = None  # the argument-kind table, read on first use
        self.last = {}
        self.lock = threading.Lock()
        self.warmup = None  # the background warm-up thread (see _warmup.py)
        self.refused_dirs = set()  # kernel cache directories already warned about (untrusted, unusable)
        self.contexts = {}  # device id -> _context_api.Context
        self.memory_manager = None  # EMM plugin class (set_memory_manager), None: the built-in one
        self.kernels = weakref.WeakValueDictionary()  # CUfunction handle -> CompiledKernel (graph nodes)
        self.launch_state = weakref.WeakSet()  # dispatchers holding launchers (and their last arguments)
        atexit.register(self.release_launch_state)

    def release_launch_state(self):
        """At exit: the dispatchers drop their configured launchers and the arguments
        the launchers' identity caches hold (streams, arrays, DLPack owners), while
        every library is still alive, instead of in the interpreter's final garbage
        collection (where freeing a cuda.core stream or a CuPy array can crash)."""
        if not self.launch_state:
            return
        for disp in list(self.launch_state):
            try:
                disp._release_launch_state()
            except Exception:  # at exit: never mask the program's own exit status
                pass
        gc.collect()  # a launcher refers to itself (its slow-path hand-off): free the cycles now

    def kind(self, cls, sample):
        """The argument kind of objects of class ``cls`` (``sample`` is one)."""
        k = self.kinds.get(cls)
        if k is None:
            from ._launch.kinds import kind_for, kind_table

            if self.kind_table is None:
                self.kind_table = kind_table()
            k = self.kinds[cls] = kind_for(cls, sample, self.kind, self.kind_table)
        return k

    def last_kernel_name(self, device_id=None):
        if device_id is None and len(self.last) == 1:
            device_id = next(iter(self.last))
        k = self.last.get(device_id)
        return None if k is None else k.py_func.__qualname__


_RUNTIME = None
_RUNTIME_LOCK = threading.Lock()


def jit_runtime() -> JitRuntime:
    """The process's :class:`JitRuntime`, created on first use."""
    global _RUNTIME
    rt = _RUNTIME
    if rt is None:
        with _RUNTIME_LOCK:
            if _RUNTIME is None:
                _RUNTIME = JitRuntime()
            rt = _RUNTIME
    return rt


def kernel_fault(err: CudaDriverError, device_id=None) -> CudaDriverError:
    """``err`` as a :class:`KernelFaultError` naming the last launched kernel when it
    is a kernel fault (a sticky error); other errors are returned unchanged."""
    if isinstance(err, KernelFaultError) or not getattr(err, "sticky", False):
        return err
    name = jit_runtime().last_kernel_name(device_id)
    return KernelFaultError(err.code, err.name, err.message, err.call, name)
