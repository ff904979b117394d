"""One kernel specialization on one device: built by the stage loop, loaded, launched.

:class:`CompiledKernel` runs the build stages (``stages.BUILD_STAGES``: cache key,
cache, compile, link, store, load) for a specialization -- or only the load stage, for
an artifact in hand (carried in a pickle) -- and keeps the loaded function and its
driver launcher; ``bind(config)`` / ``launch(config, *values)`` launch it, the same way
whether the artifact was compiled or read from the cache.  :func:`build_kernel` is the
GPU-less build (through ``store``); the timing line (``CUDALITE_TIMINGS``) is reported
from the stage loop's record (:mod:`.timings`).
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field, replace
from time import perf_counter
from types import MappingProxyType

import numpy as np
from cudalite.core import ir
from cudalite.core.types import DeviceArrayRef, Signature, void
from cudalite.driver import Device, Stream, copy_device_to_host, get_device, memset

from .._launch.devices import on_device
from .._runtime.record import jit_runtime
from .compile_code import compile_code
from .linking import code_input, linker_items, source_dirs
from .options import JitOptions, compile_options_of
from .stages import BuildState, load_job, make_job, run_build
from .timings import report_if_asked

__all__ = ["CompiledKernel", "KernelBuild", "build_kernel", "captured_arrays"]


@dataclass(frozen=True)
class KernelBuild:
    """A specialization built GPU-less: its artifact, per-stage seconds, and the
    cache status ('off', 'off (reason)', 'hit', 'miss')."""

    artifact: object  # KernelArtifact
    timings: dict = field(default_factory=dict)
    status: str = "off"
    keepalive: tuple = ()  # device arrays whose pointers the code holds (captured globals)


def captured_arrays(result) -> tuple:
    """The device arrays a compiled kernel (or any callee) captured by reference."""

    if result is None:  # loaded from the cache: the key covered them (no device array is cacheable)
        return ()
    out, seen, todo = [], set(), [result.typed]
    while todo:
        tf = todo.pop()
        if tf is None or id(tf) in seen:
            continue
        seen.add(id(tf))
        for stmt in ir.walk_stmts(tf.fir.body):
            out.extend(e.value.owner for e in ir.walk_exprs(stmt)
                       if isinstance(e, ir.Const) and isinstance(e.value, DeviceArrayRef))
        todo.extend(info.callee for info in tf.calls.values() if info.callee is not None)
    return tuple(out)


def build_kernel(pyfunc, argtypes, opts: JitOptions, cc) -> KernelBuild:
    """GPU-less: the :class:`KernelArtifact` of ``pyfunc`` for ``argtypes`` linked for
    ``sm_XY`` of ``cc``: from the on-disk cache when enabled and filled, else compiled,
    linked (and stored) -- the build stages through ``store``."""
    state = run_build(make_job(pyfunc, argtypes, opts, cc), until="store")
    return KernelBuild(state.artifact, dict(state.timings), state.status, captured_arrays(state.result))


class CompiledKernel:
    """One specialization on one device: its :class:`KernelArtifact`, driver
    function and launcher.  ``bind(config)`` (a :class:`cudalite.driver.LaunchConfig`)
    gives the driver launch of one configuration, ``launch(config, *flat_values)`` launches once.

    ``load=False`` builds the artifact only (GPU-less: inspection, tests);
    ``build`` (a :class:`KernelBuild`) is used instead of building one (compiled code
    carried in a pickle, ``_carry``)."""

    def __init__(self, pyfunc, argtypes, opts: JitOptions, cc, *, load=True, build=None, started=None, waited=0.0):
        # started: when the caller's build began (the timing line's total counts from there),
        # waited: the part of that spent waiting for the background warm-up
        t_start = perf_counter() if started is None else started
        self.py_func = pyfunc
        self.argtypes = tuple(argtypes)
        self.options = opts
        self.cc = tuple(cc)
        if build is None:  # every stage: key, cache, compile, link, (fatbin), store, load
            state = run_build(make_job(pyfunc, self.argtypes, opts, self.cc, load=load))
        else:  # an artifact in hand (carried in a pickle, built ahead of time): only the load stage runs
            state = run_build(load_job(pyfunc, self.argtypes, opts, self.cc) if load else
                              replace(load_job(pyfunc, self.argtypes, opts, self.cc), load=False),
                              BuildState(status=build.status, artifact=build.artifact,
                                         timings=MappingProxyType(dict(build.timings))), start="load")
        self.artifact = state.artifact
        self.status = state.status
        # captured device arrays live as long as the code
        self._keepalive = build.keepalive if build is not None else captured_arrays(state.result)
        self.exc_global = None
        timings = dict(state.timings)
        if waited > 0.0:
            timings["warmup"] = waited
        if load:
            t_take = perf_counter()
            self._take(*state.loaded)  # the driver's launcher: loads (or, once per install, builds) the shim
            timings["launcher"] = perf_counter() - t_take
            timings["total"] = perf_counter() - t_start
            rest = timings["total"] - sum(v for k, v in timings.items() if k != "total")
            if rest > 0:  # what ran outside the stages (this constructor, the loop): named, not hidden
                timings["other"] = timings.get("other", 0.0) + rest
            report_if_asked(pyfunc.__qualname__, self.argtypes, timings, state.status)
        self.timings = timings

    def _take(self, module, function, exc_global, device_id):
        """Become the loaded kernel of the load stage's output."""
        self.device_id = device_id
        self.module = module
        self.function = function
        self.launcher = self.function.launcher(self.artifact.param_format)
        self.exc_global = exc_global
        self._max_dynamic_shared = 48 * 1024
        jit_runtime().kernels[self.function.handle] = self

    def _load(self, art):
        """Load ``art`` (this kernel's artifact) on the current device."""
        job = load_job(self.py_func, self.argtypes, self.options, self.cc)
        self._take(*run_build(job, BuildState(artifact=art), start="load").loaded)

    def on_device(self, device_id):
        """This specialization loaded on device ``device_id`` (self when it is this
        one's device): the same artifact loaded there, or compiled afresh for that
        device's compute capability, once; the copies share one table of devices."""
        if device_id == self.device_id:
            return self
        siblings, lock = self.__dict__.setdefault("_siblings", ({self.device_id: self}, threading.Lock()))
        kernel = siblings.get(device_id)
        if kernel is None:

            with lock, on_device(device_id):
                kernel = siblings.get(device_id)
                if kernel is None:
                    cc = tuple(get_device(device_id).compute_capability)
                    if cc == self.cc or self.status == "ahead-of-time":  # the same image loads there
                        kernel = copy.copy(self)
                        kernel._load(self.artifact)
                    else:
                        kernel = CompiledKernel(self.py_func, self.argtypes, self.options, cc)
                    kernel._siblings = (siblings, lock)
                    siblings[device_id] = kernel
        return kernel

    # -- artifacts ------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.artifact.entry_name

    @property
    def abi(self):
        return self.artifact.abi

    @property
    def exceptions(self):
        return self.artifact.exceptions

    @property
    def cooperative(self) -> bool:
        return self.artifact.uses_grid_sync

    @property
    def signature(self):
        return Signature(void, self.argtypes)

    @property
    def param_format(self) -> str:
        return self.artifact.param_format

    def stage(self, name):
        """The text of stage ``name`` ('typed-ir', 'nvvm-ir', 'ptx', 'ltoir'), or None."""
        if name == "ptx":
            return self.ptx
        return self.artifact.stage(name)

    @property
    def ptx(self):
        ptx = self.artifact.stage("ptx")
        if ptx is None:  # an LTO build: PTX from the stored NVVM IR (libNVVM only)

            from cudalite.nvvm.pipeline import compile_nvvm_ir  # lazy: a loaded kernel may need no compiler

            ptx = compile_nvvm_ir(self.artifact.stage("nvvm-ir"), compile_options_of(self.options, self.cc), "ptx")
        return ptx

    @property
    def lto_ptx(self):
        """The kernel's PTX after link-time optimization with the code it links
        (numba's ``inspect_lto_ptx``): the kernel compiled again to LTO-IR (GPU-less)
        and linked with its link items (CUDA C++ compiled to LTO-IR, with each
        file's folder searched for headers) by nvJitLink with ``-lto -ptx``."""

        res = compile_code(self.py_func, self.argtypes, self.options, self.cc, until="ltoir")
        link = tuple(self.options.link) + tuple(res.link_items)
        job = make_job(self.py_func, self.argtypes, self.options, self.cc, cache=False)
        from cudalite.linker import Linker, PTXSource  # lazy: as above
        from cudalite.linker.config import load_config as linker_config  # lazy: with the linker

        linker = Linker(self.artifact.arch, options=job.link_options, name=self.py_func.__name__,
                        include_dirs=source_dirs(link), isolate=linker_config().isolate)
        linker.add(code_input(res, self.py_func.__name__), trusted=True)
        linker.add(*linker_items(link))
        return PTXSource(linker.link_ptx().data).text

    def inspect_asm(self, cc=None):
        """The kernel's PTX (numba's ``overloads[sig].inspect_asm(cc)``); for another
        compute capability ``cc`` the kernel is compiled for it (GPU-less)."""
        if cc is None or tuple(cc) == self.cc:
            return self.ptx
        return CompiledKernel(self.py_func, self.argtypes, self.options, tuple(cc), load=False).ptx

    def inspect_llvm(self, cc=None):
        """The kernel's NVVM IR (numba's ``overloads[sig].inspect_llvm(cc)``)."""
        if cc is None or tuple(cc) == self.cc:
            return self.artifact.stage("nvvm-ir")
        return CompiledKernel(self.py_func, self.argtypes, self.options, tuple(cc), load=False).inspect_llvm()

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        """The most blocks of ``blockdim`` threads (an int or a 1-3 tuple) with
        ``dynsmemsize`` bytes of dynamic shared memory that a cooperative launch of
        this kernel can have resident at once on its device: the occupancy per
        multiprocessor times the multiprocessors (numba's method of the same name)."""

        threads = 1
        for n in (blockdim if isinstance(blockdim, (tuple, list)) else (blockdim,)):
            threads *= int(n)
        per_sm = self.function.max_active_blocks_per_multiprocessor(threads, int(dynsmemsize))
        return int(per_sm) * int(get_device(self.device_id).attribute("MULTIPROCESSOR_COUNT"))

    # -- launching ----------------------------------------------------------------------
    def bind(self, config):
        """The driver launch of this kernel bound to ``config`` (a LaunchConfig): a
        callable taking the flattened argument values.  A kernel that synchronizes its
        grid launches cooperatively (the config's cooperative attribute is set)."""
        if self.cooperative and not config.cooperative:
            config = config.replace(cooperative=True)
        return self.launcher.bind(config)

    def bind_checked(self, config, checks=None):
        """The checked driver launch of this kernel bound to ``config``
        (``cudalite.driver.Launcher.bind_checked``: returns None when launched, False
        when a value is not of its check's class, else the CUresult for
        :meth:`settle`); cooperative as :meth:`bind`."""
        if self.cooperative and not config.cooperative:
            config = config.replace(cooperative=True)
        return self.launcher.bind_checked(config, checks)

    def bind_direct(self, config, groups, fallback, record=None, precondition=None):
        """The direct driver launch of this kernel bound to ``config``
        (``cudalite.driver.Launcher.bind_direct``: the whole launch in C, ``fallback``
        for anything it does not launch), or None without the compiled shim;
        cooperative as :meth:`bind`."""
        if self.cooperative and not config.cooperative:
            config = config.replace(cooperative=True)
        return self.launcher.bind_direct(config, groups, fallback, record, precondition)

    def settle(self, rc, launch, values, config):
        """A checked launch's CUresult ``rc``: retried once without a context current,
        else raised (``Launcher.settle``)."""
        if self.cooperative and not config.cooperative:
            config = config.replace(cooperative=True)
        self.launcher.settle(rc, launch, values, config)

    def launch(self, config, *values):
        """Launch once with ``config`` (opting in to its dynamic shared memory first)."""
        self.ensure_dynamic_shared(config.shared_mem)
        if self.cooperative and not config.cooperative:
            config = config.replace(cooperative=True)
        self.launcher.launch(config, *values)

    def ensure_dynamic_shared(self, nbytes):
        """Opt in to more than 48 KiB of dynamic shared memory when a launch asks for it
        (the function attribute, up to the device's opt-in limit per block less the
        kernel's static shared memory); above that limit, a ``ValueError`` naming both."""
        if nbytes > self._max_dynamic_shared:
            optin = Device(self.device_id).attribute("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")
            static = self.function.attribute("shared_size_bytes")
            if nbytes + static > optin:
                raise ValueError(
                    f"kernel {self.py_func.__name__!r} asks for {nbytes} bytes of dynamic shared memory; "
                    f"device {self.device_id} allows at most {optin - static} per block "
                    f"({optin} bytes of opt-in shared memory less the kernel's {static} bytes of static shared "
                    "memory)")
            self.function.set_max_dynamic_shared_memory(nbytes)
            self._max_dynamic_shared = nbytes

    def check_exceptions(self, stream_handle):
        """debug=True or boundscheck=True: synchronize, and raise what a thread
        recorded (then reset it, so the next launch starts clean)."""


        if self.exc_global is None:
            return
        Stream.external(stream_handle).synchronize()
        ptr, size = self.exc_global  # a bounds-checked module's record is longer (it holds values)
        words = np.zeros(int(size) // 4, np.int32)
        copy_device_to_host(words, ptr, words.nbytes)
        if int(words[0]) == 0:
            return
        memset(ptr, 0, words.nbytes)
        raise self.exceptions.decode(words, kernel=self.py_func.__name__)

    def __repr__(self):
        return f"<CompiledKernel {self.py_func.__name__}{self.signature} on device {getattr(self, 'device_id', '-')}>"
