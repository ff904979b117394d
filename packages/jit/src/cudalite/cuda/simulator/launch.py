"""Running a kernel's Python function over a grid.

Each simulated thread is a Python thread.  The threads of a block run
concurrently; blocks run one after another, in order of ``blockIdx`` (x fastest),
each only after the previous block finished.  A kernel that uses
``cuda.cg.this_grid().sync()`` runs every thread of the grid at once (at most
:data:`MAX_COOPERATIVE_THREADS`), so that the grid barrier can complete.

The first exception raised by a simulated thread aborts the launch (threads
blocked at barriers are released) and is raised again from the launch call, as
the same exception type when possible, with the kernel name, the file and line of
the kernel's code that raised and the thread's ``threadIdx``/``blockIdx`` in the
message.  Array indexing is NumPy's, so an out-of-bounds index always raises
``IndexError`` (``boundscheck`` or not; a negative index wraps around as in Python).

A kernel that names no barrier, warp intrinsic, grid sync or lock-like atomic
(``sequential=True``, decided by :mod:`~cudalite.cuda.simulator.analysis`) runs
its threads one after another in the calling thread instead: the same results for
race-free code, without the cost of a Python thread per CUDA thread.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from cudalite.cuda._launch.config import MAX_THREADS_PER_BLOCK

from ._state import SIM, in_kernel
from .context import BlockState, Dim3, ThreadContext
from .sync import ExecutionGroup, Rendezvous, SimulationAborted

__all__ = ["LaunchState", "run_grid", "MAX_COOPERATIVE_THREADS", "MAX_BLOCK_THREADS", "KernelSimulationError"]

MAX_BLOCK_THREADS = MAX_THREADS_PER_BLOCK  # the compiled runtime's limit (cudalite.cuda._launch.config)
MAX_COOPERATIVE_THREADS = 8192


class KernelSimulationError(RuntimeError):
    """A simulated thread raised an exception that cannot be re-created with a message."""


class LaunchState:
    """What one launch shares between all its threads."""

    def __init__(self, name, griddim: Dim3, blockdim: Dim3, sharedmem: int, cooperative: bool):
        self.name = name
        self.griddim = griddim
        self.blockdim = blockdim
        self.sharedmem = sharedmem
        self.cooperative = cooperative
        self.grid_barrier = None
        self.grid_alive = set()


def _run_thread(ctx: ThreadContext, func, args):
    SIM.tls.ctx = ctx
    try:
        with np.errstate(over="ignore"):  # integers wrap around silently, as on the GPU
            func(*args)
    except SimulationAborted:
        pass
    except BaseException as exc:  # noqa: BLE001  (re-raised on the host)
        ctx.group.abort(exc, ctx)
    finally:
        SIM.tls.ctx = None
        with ctx.group.cond:
            ctx.block.exited(ctx.linear)
            ctx.launch.grid_alive.discard((ctx.block, ctx.linear))
        ctx.group.thread_exited(ctx)


def _indices(dim: Dim3):
    """Every index of ``dim``, x fastest, generated one at a time: a grid may have 2**31 - 1
    blocks in x (``itertools.product`` would first copy each range into a tuple)."""
    for z in range(dim.z):
        for y in range(dim.y):
            for x in range(dim.x):
                yield Dim3(x, y, z)


_block_indices = _thread_indices = _indices


def _run_group(group, launch, blocks, func, args):
    calls = []
    for block in blocks:
        for tid in _thread_indices(launch.blockdim):
            ctx = ThreadContext(tid, block, launch.blockdim, launch.griddim, launch)
            launch.grid_alive.add((block, ctx.linear))
            calls.append(functools.partial(_run_thread, ctx, func, args))
    try:
        SIM.pool.run(calls)
    except BaseException as exc:  # KeyboardInterrupt while waiting: release threads blocked at barriers
        group.abort(exc, None)
        raise
    if group.error is not None:
        _reraise(launch.name, *group.error)


_NOT_USER_CODE = (os.path.dirname(os.path.abspath(__file__)) + os.sep,
                  os.path.dirname(os.path.abspath(np.__file__)) + os.sep)


def _user_location(exc) -> str:
    """``file F, line N, `` of the innermost frame of ``exc``'s traceback that is the
    user's code (not the simulator's, not NumPy's), or ''."""
    where = ""
    tb = exc.__traceback__
    while tb is not None:
        filename = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if not filename.startswith(_NOT_USER_CODE):
            where = f"file {filename}, line {tb.tb_lineno}, "
        tb = tb.tb_next
    return where


def _reraise(name, exc, ctx):
    msg = f"In kernel '{name}', {_user_location(exc)}{ctx.describe()}: {exc}"
    try:
        new = type(exc)(msg)
    except Exception:  # noqa: BLE001  (an exception type that takes other arguments)
        new = None
    if new is None or new.args != (msg,):
        new = KernelSimulationError(f"{msg} ({type(exc).__name__})")
    raise new from exc


def _run_sequential(launch, block, func, args):
    tls = SIM.tls
    with np.errstate(over="ignore"):
        for tid in _thread_indices(launch.blockdim):
            ctx = ThreadContext(tid, block, launch.blockdim, launch.griddim, launch)
            tls.ctx = ctx
            try:
                func(*args)
            except BaseException as exc:  # noqa: BLE001  (re-raised with the thread's indices)
                _reraise(launch.name, exc, ctx)
            finally:
                tls.ctx = None


def run_grid(name, func, args, griddim: Dim3, blockdim: Dim3, sharedmem: int, cooperative: bool,
             sequential: bool = False):
    """Run ``func(*args)`` once per thread of the grid (see the module docstring)."""
    if in_kernel():
        raise RuntimeError(f"kernel '{name}' launched from inside a simulated kernel: dynamic parallelism cannot "
                           "be simulated")
    nthreads = blockdim.x * blockdim.y * blockdim.z  # checked by _launch.config when the launch was configured
    launch = LaunchState(name, griddim, blockdim, sharedmem, cooperative)
    if cooperative:
        total = nthreads * griddim.x * griddim.y * griddim.z
        if total > MAX_COOPERATIVE_THREADS:
            raise ValueError(
                f"kernel '{name}' uses cuda.cg.this_grid().sync(): the simulator runs all its {total} threads at "
                f"once and allows at most {MAX_COOPERATIVE_THREADS}; launch a smaller grid")
        group = ExecutionGroup(total)
        launch.grid_barrier = Rendezvous(group, lambda: launch.grid_alive, "cuda.cg.this_grid().sync()")
        blocks = [BlockState(group, bid, blockdim, sharedmem) for bid in _block_indices(griddim)]
        _run_group(group, launch, blocks, func, args)
        return
    for bid in _block_indices(griddim):
        group = ExecutionGroup(nthreads)
        if sequential:
            group.sequential = True
            _run_sequential(launch, BlockState(group, bid, blockdim, sharedmem), func, args)
            continue
        _run_group(group, launch, [BlockState(group, bid, blockdim, sharedmem)], func, args)
