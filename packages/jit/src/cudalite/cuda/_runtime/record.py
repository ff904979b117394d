"""The jit's process-wide record: ``JitRuntime``, behind one locked accessor.

One :class:`JitRuntime` per process, created by :func:`jit_runtime` (the jit package's
only module-level mutable state besides the cache settings of ``cuda.cache.enable``).
It keeps

* ``kinds``: ``type(arg) -> ArgKind`` (the argument-kind table's entry for each class
  seen, shared by all dispatchers; :mod:`cudalite.cuda._launch.kinds`);
* ``last``: ``device id -> CompiledKernel`` launched last there, so that a kernel
  fault reported by a later synchronizing call can name the kernel;
* ``refused_dirs``: the kernel cache directories refused as untrusted (each is
  warned about once per process, see ``_compiler.cache.directory_refusal``);
* ``kernels``: ``CUfunction`` handle -> CompiledKernel (weak), so that a captured
  graph's kernel nodes know their kernels;
* ``launch_state``: the dispatchers that keep launchers (weak), whose launchers and
  cached last arguments are dropped at exit (:meth:`JitRuntime.release_launch_state`);
* ``contexts``: ``device id -> Context`` (``cuda.current_context()``, made on first
  use) and ``memory_manager``: the EMM plugin class of ``set_memory_manager`` (None:
  cudalite's allocator).
"""

from __future__ import annotations

import atexit
import gc
import threading
import weakref

from .._launch.kinds import kind_for, kind_table

__all__ = ["JitRuntime", "jit_runtime"]


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
