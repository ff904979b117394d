"""The slow path of a kernel launch: first calls, host data, hints, debug checks.

Generated launchers (:mod:`cudalite.cuda._launch.fastpath`) come here when their guard
fails.  :func:`launch_slow` does, reading only the argument-kind table:

    route to the arguments' device (multi-GPU) -> the kernel's extensions (prepare_args)
    -> unwrap transfer hints -> each
    argument's kind -> stage host data in (copies registered as actions) -> the kernel
    the type keys select (compiled once) -> generate and keep a launcher factory for
    these kinds, and a configured launcher for this configuration -> flatten the
    values -> one driver launch -> after-launch work, copy-back actions, synchronize
    -> debug-mode exception check.
"""

from __future__ import annotations

import functools
import warnings

from cudalite.core.errors import NumbaPerformanceWarning
from cudalite.driver import CudaDriverError, Stream

from .._launch.devices import current_id, launch_target, multi_gpu, on_device
from .._launch.fastpath import make_factory
from .._launch.hints import ArgHint, prepare_hints
from .._runtime.faults import kernel_fault
from .configured import ConfiguredLaunch
from .extensions import apply_extensions
from ..config import load_config

_MAX_LAUNCHERS = 256  # configured launchers kept per dispatcher for switching back (SpecTable.launchers)

__all__ = ["launch_slow"]

_BIG_SHARED = 48 * 1024  # more dynamic shared memory than this: the slow path opts in each time


def _warn_copies(kinds, args):

    cfg = load_config()
    if cfg.warn_on_implicit_copy and not cfg.disable_performance_warnings and any(
            k.warns_copy(a) for k, a in zip(kinds, args)):
        warnings.warn(NumbaPerformanceWarning(
            "Host array used in CUDA kernel will incur copy overhead to/from device."), stacklevel=6)


def _stage_in(rt, kinds, args, stream):
    """Host data copied in: ``(args, kinds, after)`` with the copy-back actions."""
    _warn_copies(kinds, args)
    after, staged = [], list(args)
    for i, (k, a) in enumerate(zip(kinds, args)):
        if k.needs_copy(a):
            staged[i] = k.stage_in(a, stream, after)
    return staged, [rt.kind(type(a), a) for a in staged], after


def _hand_off(disp, args, key, caller):
    """The launcher now kept for this configuration when it is not ``caller`` (a
    launcher the user held, made before a new argument type was seen), or None."""
    if caller is None or len(args) != len(disp._names):
        return None
    try:
        current = disp._configs.get(key)
    except TypeError:  # an unhashable configuration is never kept
        return None
    return current if current is not None and current is not caller else None


def launch_slow(disp, cfg, args, key=None, caller=None):
    """Launch kernel dispatcher ``disp`` with ``cfg`` (a LaunchConfig) and ``args``;
    ``key``: the configuration table's key for ``cfg``; ``caller``: the launcher whose
    guard failed (its configuration's current launcher takes over when it differs)."""
    current = _hand_off(disp, args, key, caller)
    if current is not None:  # it guards its own argument kinds and comes back here on a miss
        return current(*args)
    if len(args) != len(disp._names):
        raise TypeError(f"{disp.py_func.__name__}() takes {len(disp._names)} arguments ({len(args)} given)")
    rt, sh = disp._rt, cfg.stream
    multi = multi_gpu()
    if multi:  # run on the device of the array arguments (or the stream's): see _launch.devices
        target = launch_target(disp, [a.value if isinstance(a, ArgHint) else a for a in args], sh)
        if target != current_id():
            with on_device(target):
                return launch_slow(disp, cfg, args, key)
    extended = []
    if disp.extensions:  # numba-cuda's prepare_args hooks: always the slow path
        args, extended = apply_extensions(disp.extensions, args, Stream.external(sh) if sh else 0)
    args, after = prepare_hints(args, sh)  # cuda.In/Out/InOut
    after = extended + after
    kinds = [rt.kind(type(a), a) for a in args]
    staged = bool(after) or bool(disp.extensions)  # hinted or extended launches never become a fast path
    if any(k.needs_copy(a) for k, a in zip(kinds, args)):
        args, kinds, copies = _stage_in(rt, kinds, args, sh)
        after, staged = copies + after, True
    keys = _read_each(disp, args, lambda i: kinds[i].key(args[i]))
    kernel = disp._kernel_for(keys)
    if multi:
        kernel = kernel.on_device(current_id())  # loaded (compiled for its cc) there on first use
    if not staged and cfg.shared_mem <= _BIG_SHARED:
        _keep_fast_path(disp, kinds, keys, args, kernel, cfg, key, multi, caller)
    specs = kernel.abi.args
    values = [v for vals in _read_each(disp, args, lambda i: kinds[i].flat(args[i], specs[i], sh)) for v in vals]
    try:
        kernel.launch(cfg, *values)
    except CudaDriverError as e:  # a fault of an earlier kernel reported here
        raise kernel_fault(e, kernel.device_id) from None
    rt.last[kernel.device_id] = kernel
    for k in kinds:  # e.g. a DLPack export kept until the kernel has run
        k.after_launch is None or k.after_launch(sh)
    try:
        if after:
            for work in after:
                work()
            Stream.external(sh).synchronize()
        kernel.check_exceptions(sh)
    except CudaDriverError as e:
        raise kernel_fault(e, kernel.device_id) from None


# what reading a malformed foreign object (a broken __cuda_array_interface__, a cuda.core
# look-alike without its attributes) raises from inside a kind: reported as the argument's
_UNREADABLE = (AttributeError, KeyError, IndexError)


def _read_each(disp, args, read):
    """``(read(0), read(1), ...)`` over the arguments; an internal exception from reading
    argument ``i`` becomes a TypeError naming the kernel, the argument and its class."""
    out = []
    for i in range(len(args)):
        try:
            out.append(read(i))
        except _UNREADABLE as exc:
            a = args[i]
            name = disp._names[i] if i < len(disp._names) else str(i)
            raise TypeError(f"{disp.py_func.__name__}(): argument {name!r} (a {type(a).__module__}."
                            f"{type(a).__qualname__}) cannot be passed to a kernel: reading it failed with "
                            f"{type(exc).__name__}: {exc} (a malformed array interface?)") from exc
    return tuple(out)


def _keep_fast_path(disp, kinds, keys, args, kernel, cfg, key, multi, caller):
    """Generate (once) the launcher factory of these argument kinds and keys, and keep
    its launcher for this configuration: later launches take the fast path."""
    table = disp._table
    fkey = (tuple(map(type, args)), keys, kernel.device_id)
    factory = table.factories.get(fkey, False)
    if factory is False:
        factory = make_factory(disp, disp._names, kinds, keys, kernel, disp._rt.last, multi=multi)
        table.factories[fkey] = factory
        disp._rt.launch_state.add(disp)
    if factory is not None:
        table.last_factory = factory
        if key is not None:
            try:
                disp._store_config(key, _launcher_of(disp, table, factory, fkey, cfg, key, caller))
            except TypeError:  # an unhashable configuration
                pass


def _upgrade(caller):
    """``wrap(fn)`` for a launcher factory that makes ``caller`` -- a configured launch
    of the slow path's launcher -- call ``fn`` itself (ConfiguredLaunch is a partial: its
    function is replaced in place; the replaced one, which is running, stays referenced),
    or None when ``caller`` is not such an object or has pre-launch callbacks."""
    if (type(caller) is not ConfiguredLaunch or "_callbacks" in caller.__dict__
            or not getattr(caller.func, "cudalite_slow", False)):
        return None

    def wrap(fn):
        state = caller.__dict__
        state["_slow"] = caller.func
        functools.partial.__setstate__(caller, (fn, (), None, state))
        return caller

    return wrap


def _launcher_of(disp, table, factory, fkey, cfg, key, caller):
    """The configured launcher of ``factory`` for configuration ``key``: the one made
    before when the arguments switch back to these kinds (a ufunc called with device
    arrays, then CuPy arrays, then device arrays again), else a new one, kept (at most
    ``_MAX_LAUNCHERS``, then the table starts again).  The new one is ``caller`` itself
    when that is a configured launch of the slow path's launcher (``cfg = kernel[g, b]``
    made before the kernel was compiled): the object the user holds then launches
    through the fast path with no hand-off per call."""
    made = table.launchers
    launcher = made.get((fkey, key))
    if launcher is None:
        upgrade = _upgrade(caller)
        if upgrade is not None:
            launcher = factory(cfg, key, upgrade)
        else:
            launcher = disp._launcher(factory, cfg, key, getattr(caller, "stream", None))
        if len(made) >= _MAX_LAUNCHERS:
            made.clear()
        made[(fkey, key)] = launcher
    return launcher
