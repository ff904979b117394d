"""The kernel launch path, built for speed: one launch value, one driver entry.

``Function.launcher(param_format)`` -> :class:`Launcher`.  ``launcher.bind(config)``
takes a frozen :class:`~cudalite.driver.LaunchConfig` (grid, block, dynamic shared
memory, stream handle, launch attributes) and returns a closure ``launch(*values)``
with the configuration baked in as closure constants.  Per call it does one
``threading.local`` lookup for the calling thread's pre-built argument buffer and
``void*`` array, one ``struct.pack_into`` of the values and ONE driver call:

* ``cuLaunchKernel`` when the configuration has no attribute (the fastest path);
* ``cuLaunchKernelEx`` when it has some (cooperative, cluster dimensions,
  programmatic dependent launch), with the ``CUlaunchConfig`` and its attribute
  array built once at bind time (:mod:`._launchex`): only the parameters change per
  call.

The per-call code is generated once per (parameter count, backend kind, with or
without attributes), so that the values are plain positional parameters (measured
~2x less Python overhead than ``*values``).  The buffers are per thread, so threads
may launch the same kernel, or the same bound closure, concurrently.  Pointer values
are ints.

Backends (``backend=`` or ``CUDALITE_LAUNCH_BACKEND``; default ``shim``,
i.e. ``config.DEFAULT_LAUNCH_BACKEND``, the fastest measured by benchmarks/launch.py):
``shim`` (a cffi API-mode extension compiled with the wheel or on first use, see
``_shim``: the ints are converted in C and libcuda's entry points are called through
their addresses; without a C compiler it silently becomes ``bindings``), ``bindings``
(``cuda.bindings``, Cython), ``cffi`` (ABI mode: libffi marshals 11 arguments, ~0.7
µs) and ``ctypes``.  A nonzero CUresult raises :class:`CudaDriverError` (invalid
configurations the driver rejects cost nothing on the happy path); a launch refused
for want of the right context (a thread with none current, or another device's) is
retried once: in the thread's own device's context when the function is there (a new
thread gets its device, see ``Driver.current``), else with the function's context
pushed for that launch only.

``Launcher.launch(config, *values)`` keeps a small cache of bound closures per
configuration; ``cudalite.driver.launch(fn, grid, block, args=[(value, code), ...])``
(:mod:`.generic`) is the generic, slower path over it.  ``Launcher.bind_checked``
(:mod:`.checked`) is the fastest launch: one C function per configuration.
"""

from __future__ import annotations

import ctypes
import functools
import threading
from typing import Any

from ._state import get_driver
from .errors import raise_for
from .launchconfig import LaunchConfig
from ._launchcode import KINDS, call_shape, generate_source
from .params import param_layout

__all__ = ["Launcher", "KINDS", "call_shape", "generate_source"]

_INVALID_CONTEXT = 201
_MAX_CACHED_CONFIGS = 64  # bound closures kept per Launcher for Launcher.launch


def _buffers_factory(tls, layout):
    """A function creating the calling thread's (memoryview, void** address, ...)."""
    size, offsets = max(layout.size, 1), layout.offsets

    def buffers():
        storage = (ctypes.c_char * size)()
        base = ctypes.addressof(storage)
        array = (ctypes.c_void_p * max(len(offsets), 1))(*[base + off for off in offsets])
        entry = (memoryview(storage).cast("B"), ctypes.addressof(array), storage, array)
        tls.b = entry
        return entry

    return buffers


def _retry_factory(device_id, bindings):
    def retry(rc, name, fn, args) -> None:
        rc = int(rc)
        if rc == _INVALID_CONTEXT:  # no (or another device's) context current here
            d = get_driver()
            if d.current() == device_id:  # the thread's own device (device 0 in a new thread)
                rc = int(fn(*args)[0]) if bindings else fn(*args)
            else:  # the function's device just for this launch: the thread keeps its device
                d.push(device_id)
                try:
                    rc = int(fn(*args)[0]) if bindings else fn(*args)
                finally:
                    d.pop()
            if not rc:
                return
        raise_for(rc, name)

    return retry


@functools.lru_cache(maxsize=256)
def _factory(count, kind, ex):
    """The compiled ``make`` of :func:`generate_source` (a pure function of its key)."""
    namespace = {}
    exec(compile(generate_source(count, kind, ex), f"<cudalite.driver launcher/{kind}/{count}{'/ex' * ex}>",
                 "exec"), namespace)
    return namespace["make"]


class Launcher:
    """Prepared launches of one :class:`~cudalite.driver.Function` with one
    parameter format: :meth:`bind` a :class:`~cudalite.driver.LaunchConfig` once,
    call the result per launch.

    Parameters
    ----------
    function : Function
        The kernel.
    param_format : str
        Its parameter format (see :func:`param_layout`).
    backend : str, optional
        ``"shim"``, ``"bindings"``, ``"cffi"`` or ``"ctypes"``; ``None`` (default)
        takes ``CUDALITE_LAUNCH_BACKEND`` (``"shim"`` unless set).

    Raises
    ------
    ValueError
        If ``backend`` is unknown or ``param_format`` is invalid.
    """

    def __init__(self, function: Any, param_format: Any, backend: Any = None) -> None:
        driver = get_driver()
        self.function = function
        self.layout = layout = param_layout(param_format)
        self.backend = backend = backend or driver.config.launch_backend
        self._bound: dict = {}  # LaunchConfig -> bound closure (Launcher.launch), bounded
        self._maker = self._direct = None  # the shim's checked/direct-launch makers (backend shim)
        self._tls = tls = threading.local()
        buffers, pack_into = _buffers_factory(tls, layout), layout.struct.pack_into
        if backend == "shim":
            native = driver.native("shim")  # None: no compiler/headers -> bindings, silently
            if native is not None:
                shim, entry, entry_ex, _graph_launch = native
                self._kind, f, self._maker, self._direct = "shim", function.handle, shim.checked, shim.direct
                self._plain = (shim.lib.cl_launch, entry)
                self._ex = (shim.lib.cl_launch_ex, entry_ex)
            else:
                self.backend = backend = "bindings"
        if backend == "bindings":
            from ._cu import cu

            cudrv = cu()
            self._kind, f, self._cudrv = "bindings", function._cu, cudrv
            self._plain, self._ex = (cudrv.cuLaunchKernel, None), (cudrv.cuLaunchKernelEx, None)
        elif backend in ("cffi", "ctypes"):
            lib = driver.native(backend)
            self._kind, f = "native", function.handle
            self._plain, self._ex = (lib.cuLaunchKernel, None), (lib.cuLaunchKernelEx, None)
        elif backend != "shim":
            raise ValueError(f"unknown launch backend {backend!r}")
        self._retry = _retry_factory(function.device_id, False)
        self._common = (f, tls, buffers, pack_into, _retry_factory(function.device_id, self._kind == "bindings"))

    def bind(self, config: Any) -> Any:
        """The launch of this kernel with ``config``: a closure ``launch(*values)``
        (one value per parameter, pointers as ints) that makes one driver call --
        ``cuLaunchKernel`` when ``config.has_attributes`` is False, else
        ``cuLaunchKernelEx`` with the ``CUlaunchConfig`` and attribute array built
        here, once.  The closure carries ``.config``.  A nonzero CUresult raises
        :class:`CudaDriverError` naming the call.

        Parameters
        ----------
        config : LaunchConfig
            The launch configuration.

        Raises
        ------
        TypeError
            If ``config`` is not a :class:`LaunchConfig`.
        """
        if not isinstance(config, LaunchConfig):
            raise TypeError(f"Launcher.bind takes a cudalite.driver.LaunchConfig, got {type(config).__name__}")
        make = _factory(self.layout.count, self._kind, config.has_attributes)
        raw, entry, common, extra, keep = self._bind_parts(config)
        launch = make(raw, entry, *common, *extra)
        if keep is not None:
            launch.keep = keep  # the prepared structs live as long as the closure
        launch.config = config
        return launch

    def _bind_parts(self, config: Any) -> tuple:
        """``(raw, entry, common, consts, keep)``: what the generated launch code of
        ``config`` is made of -- the driver call, its entry address (shim), the
        per-launcher values, the configuration's closure constants (grid, block,
        shared memory and stream; or the prepared ``CUlaunchConfig``) and the object
        that must outlive the closure (the prepared structs, or None)."""
        if config.has_attributes:
            raw, entry = self._ex
            from . import _launchex

            if self._kind == "bindings":
                cfg, keep = _launchex.bindings_config(config, self._cudrv)
            else:
                keep = _launchex.native_config(config)
                cfg = ctypes.addressof(keep)
            return raw, entry, self._common, (cfg,), keep
        raw, entry = self._plain
        (gx, gy, gz), (bx, by, bz) = config.grid, config.block
        stream = self._cudrv.CUstream(config.stream) if self._kind == "bindings" else config.stream
        return raw, entry, self._common, (gx, gy, gz, bx, by, bz, config.shared_mem, stream), None

    def bind_checked(self, config: Any, checks: Any = None) -> Any:
        """The checked launch of this kernel with ``config`` (:mod:`.checked`): a
        callable taking one value per parameter that returns ``None`` (launched),
        ``False`` (a value is not of the class its check names: nothing launched) or
        the nonzero CUresult as an int (nothing launched: see :meth:`settle`).  With
        the compiled shim it is one C function; the fastest launch there is.

        Parameters
        ----------
        config : LaunchConfig
            The launch configuration.
        checks : sequence, optional
            One entry per parameter: None, or ``(cls, mode)`` -- the exact class the
            value must have (None: any) and its conversion, ``"struct"``, ``"wrap"``
            (an integer modulo 2**bits) or ``"truth"`` (1 or 0).

        Raises
        ------
        TypeError, ValueError
            If ``config`` is not a LaunchConfig or ``checks`` does not fit the format.
        """
        from .checked import bind_checked

        return bind_checked(self, config, checks)

    def bind_direct(self, config: Any, groups: Any, fallback: Any, record: Any = None,
                    precondition: Any = None) -> Any:
        """A whole launch in C in front of ``fallback`` (:mod:`.checked`): a callable
        taking the *arguments* (``groups`` says how each becomes parameters) that makes
        the launch and returns None, or -- for anything it cannot launch (a keyword, a
        count, a class or key that differs, a value it does not convert, a driver
        error) -- returns ``fallback(*args, **kwargs)``.  None when this launcher has no
        compiled shim (call ``fallback`` itself).

        Parameters
        ----------
        config : LaunchConfig
            The launch configuration.
        groups : sequence
            One entry per argument: ``("value", check)`` -- one parameter, ``check`` as
            in :meth:`bind_checked` -- or ``("attrs", key_attr, key, values_attr, n[,
            stable])``: the argument's attribute ``key_attr`` must be (or equal) ``key``
            and its attribute ``values_attr`` is a tuple of its ``n`` parameter values
            (objects of exactly the class ``stable`` promise that neither attribute ever
            changes: the values of the last two seen are kept) -- or
            ``("cached", holder, name, checks, n)``: ``holder[name]`` (a dict's item)
            must be ``(argument, fields..., n values)`` and, for each ``(attr, call,
            index)`` of ``checks``, ``getattr(argument, attr)`` (called when ``call``;
            when ``attr`` is a callable and ``call`` true: ``attr(argument)``, e.g. an
            unbound method) must equal ``holder[name][index]``.
        fallback : callable
            Called with the call's own arguments when the launch is not made here.
        record : tuple, optional
            ``(mapping, key, value)``: ``mapping[key] = value`` after each launch.
        precondition : tuple, optional
            ``(fn, value)``: launch here only when ``fn()`` is ``value``.

        Raises
        ------
        TypeError, ValueError
            If ``groups`` does not fit the parameter format.
        """
        from .checked import bind_direct

        return bind_direct(self, config, groups, fallback, record, precondition)

    def settle(self, rc: Any, launch: Any, values: Any, config: Any) -> None:
        """What a checked launch's nonzero CUresult ``rc`` means: a launch refused for
        want of the right context (a thread with none current, or another device's) is
        made again, once, as :meth:`bind`'s launches do; anything else raises.

        Parameters
        ----------
        rc : int
            The CUresult the checked launch returned.
        launch : callable
            That checked launch.
        values : tuple
            The values it was called with.
        config : LaunchConfig
            The configuration it was bound to.

        Raises
        ------
        CudaDriverError
            If the driver refused the launch (again).
        """
        name = "cuLaunchKernelEx" if config.has_attributes else "cuLaunchKernel"
        self._retry(int(rc), name, lambda *v: launch(*v) or 0, values)

    def launch(self, config: Any, *values: Any) -> None:
        """``bind(config)(*values)``, the bound closure kept in a small per-launcher
        cache (the generic path; hot loops should hold ``bind(config)``).

        Parameters
        ----------
        config : LaunchConfig
            The launch configuration.
        *values
            One value per kernel parameter (pointers as ints).

        Raises
        ------
        CudaDriverError
            If the driver rejects the launch.
        """
        bound = self._bound.get(config)
        if bound is None:
            if len(self._bound) >= _MAX_CACHED_CONFIGS:
                self._bound.clear()
            bound = self._bound[config] = self.bind(config)
        bound(*values)

    @property
    def param_format(self) -> str:
        """The normalized parameter format."""
        return self.layout.format

    def __repr__(self) -> str:
        return f"<cudalite.driver.Launcher {self.function.name!r} {self.layout.format!r} via {self.backend}>"
