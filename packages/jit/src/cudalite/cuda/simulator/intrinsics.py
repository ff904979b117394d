"""The device-side API of the simulator: thread indexing, barriers, shared, local
and constant memory, and cooperative groups.  Each function reads the calling
simulated thread's context (``SIM.tls.ctx``)."""

from __future__ import annotations

import sys

import numpy as np

from ._state import current, in_kernel
from .context import WARP_SIZE
from .dtypes import normalize_shape, to_dtype
from .namespaces import Namespace
from .unsupported import unsupported_member

__all__ = [
    "threadIdx", "blockIdx", "blockDim", "gridDim", "grid", "gridsize", "laneid", "warpsize",
    "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or",
    "threadfence", "threadfence_block", "threadfence_system", "shared", "local", "const", "cg",
    "nanosleep", "literal_unroll",
]


class _IndexReader:
    """``cuda.threadIdx`` and friends: ``.x``/``.y``/``.z`` of the calling thread."""

    def __init__(self, field: str):
        self._field = field

    def __repr__(self):
        if in_kernel():  # print(cuda.threadIdx) in a kernel: "(x, y, z)", as compiled code prints it
            return str(tuple(getattr(current(), self._field)))
        return f"<cudalite simulator {self._field} reader>"

    @property
    def x(self):
        return getattr(current(), self._field).x

    @property
    def y(self):
        return getattr(current(), self._field).y

    @property
    def z(self):
        return getattr(current(), self._field).z


threadIdx = _IndexReader("tid")
blockIdx = _IndexReader("bid")
blockDim = _IndexReader("bdim")
gridDim = _IndexReader("gdim")
warpsize = WARP_SIZE


def laneid():
    """The calling thread's lane (``cuda.laneid`` is served by the namespace's ``__getattr__``)."""
    return current().lane


def grid(ndim):
    """The absolute thread position: an int (ndim 1) or a tuple of ndim ints."""
    ctx = current()
    pos = tuple(t + b * d for t, b, d in zip(ctx.tid, ctx.bid, ctx.bdim))
    return pos[0] if ndim == 1 else pos[:ndim]


def gridsize(ndim):
    """The number of threads of the grid in each dimension: an int (ndim 1) or a tuple."""
    ctx = current()
    size = tuple(b * g for b, g in zip(ctx.bdim, ctx.gdim))
    return size[0] if ndim == 1 else size[:ndim]


def _block_sync(value=None):
    ctx = current()
    return ctx.block.barrier.wait(ctx.linear, value)


def syncthreads():
    """Barrier of the block's (live) threads."""
    _block_sync()


def syncthreads_count(predicate):
    return sum(1 for v in _block_sync(bool(predicate)).values() if v)


def syncthreads_and(predicate):
    return int(all(_block_sync(bool(predicate)).values()))


def syncthreads_or(predicate):
    return int(any(_block_sync(bool(predicate)).values()))


def threadfence():
    """A no-op: simulated threads share memory sequentially consistently."""


threadfence_block = threadfence
threadfence_system = threadfence


def nanosleep(ns):
    """A no-op (the simulator does not model time)."""


def literal_unroll(container):
    return container


def _aligned_zeros(shape, dtype, alignment):
    """A zero-filled array whose data address is a multiple of ``alignment`` bytes."""
    if alignment is None:
        return np.zeros(shape, dtype=dtype)
    alignment = int(alignment)
    if alignment <= 0 or alignment & (alignment - 1):
        raise ValueError(f"alignment must be a positive power of two, not {alignment}")
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.zeros(nbytes + alignment, dtype=np.uint8)
    start = -raw.ctypes.data % alignment
    return raw[start:start + nbytes].view(dtype).reshape(shape)


def _shared_array(shape, dtype, alignment=None):
    """One array per block and call site, shared by the block's threads; ``shape=0``:
    a view of the launch's dynamic shared memory (every such array aliases it).
    ``alignment``: the data address is a multiple of that many bytes."""
    ctx = current()
    dt = to_dtype(dtype)
    shp = normalize_shape(shape)
    block = ctx.block
    if shp in ((0,), ()):
        return block.dynamic[: block.dynamic.size - block.dynamic.size % dt.itemsize].view(dt)
    caller = sys._getframe(1)
    key = (caller.f_code, caller.f_lasti)
    with block.lock:
        arr = block.shared.get(key)
        if arr is None:
            arr = block.shared[key] = _aligned_zeros(shp, dt, alignment)
    return arr


def _local_array(shape, dtype, alignment=None):
    """A new array private to the calling thread (uninitialised on the GPU; zeros here);
    ``alignment``: the data address is a multiple of that many bytes."""
    return _aligned_zeros(normalize_shape(shape), to_dtype(dtype), alignment)


def _const_array_like(ary):
    """The constant-memory copy of a host array (here: a read-only copy)."""
    out = np.array(ary, copy=True)
    out.setflags(write=False)
    return out


shared = Namespace("shared", array=_shared_array)
local = Namespace("local", array=_local_array)
const = Namespace("const", array_like=_const_array_like)


class _GridGroup:
    """``cuda.cg.this_grid()``: ``sync()`` is a barrier of every thread of the grid."""

    def sync(self):
        ctx = current()
        launch = ctx.launch
        if launch.grid_barrier is None:
            raise RuntimeError(
                f"kernel '{launch.name}' called cuda.cg.this_grid().sync() but was not launched cooperatively: the "
                "simulator looks for 'this_grid' in the kernel's code and its device functions to decide; reach "
                "this_grid from the kernel's own code")
        launch.grid_barrier.wait((ctx.block, ctx.linear))

    @property
    def size(self):
        ctx = current()
        return int(np.prod(ctx.bdim)) * int(np.prod(ctx.gdim))


def _this_grid():
    return _GridGroup()


cg = Namespace("cg", this_grid=_this_grid, this_cluster=unsupported_member("cg.this_cluster"))
