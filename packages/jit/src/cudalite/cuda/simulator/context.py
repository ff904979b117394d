"""Per-thread and per-block state of a simulated launch.

:class:`BlockState` holds what the threads of one block share: the
``syncthreads`` barrier, the per-warp barriers (one per ``(warp, mask)``), the
static shared arrays (one per call site) and the dynamic shared memory buffer.
:class:`ThreadContext` is one simulated thread: its indices, lane and warp, and
its block; ``SIM.tls.ctx`` points at it while the thread runs.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

import numpy as np

from .sync import Rendezvous

__all__ = ["Dim3", "BlockState", "ThreadContext", "WARP_SIZE"]

WARP_SIZE = 32


class Dim3(NamedTuple):
    """``(x, y, z)`` of a thread or block index or dimension."""

    x: int = 1
    y: int = 1
    z: int = 1


class BlockState:
    """What the threads of one block share."""

    def __init__(self, group, bid: Dim3, blockdim: Dim3, sharedmem: int):
        self.group = group
        self.bid = bid
        self.nthreads = blockdim.x * blockdim.y * blockdim.z
        self.alive = set(range(self.nthreads))
        self.warp_alive = {}
        for t in range(self.nthreads):
            self.warp_alive.setdefault(t // WARP_SIZE, set()).add(t % WARP_SIZE)
        self.lock = threading.Lock()
        self.shared = {}
        self.dynamic = np.zeros(int(sharedmem), dtype=np.uint8)
        self.barrier = Rendezvous(group, lambda: self.alive, f"cuda.syncthreads() of block {tuple(bid)}")
        self._warp_barriers = {}

    def warp_barrier(self, warp: int, mask: int) -> Rendezvous:
        """The barrier of the lanes of ``warp`` named in ``mask`` (created on first use)."""
        key = (warp, mask & 0xFFFFFFFF)
        with self.lock:
            r = self._warp_barriers.get(key)
            if r is None:
                lanes = self.warp_alive.get(warp, set())
                r = Rendezvous(self.group, lambda: {lane for lane in lanes if key[1] >> lane & 1},
                               f"a warp intrinsic (mask {key[1]:#x}) of warp {warp} in block {tuple(self.bid)}")
                self._warp_barriers[key] = r
            return r

    def exited(self, linear: int):
        """Called with the group's condition held when thread ``linear`` returns."""
        self.alive.discard(linear)
        self.warp_alive[linear // WARP_SIZE].discard(linear % WARP_SIZE)


class ThreadContext:
    """One simulated CUDA thread."""

    __slots__ = ("tid", "bid", "bdim", "gdim", "linear", "lane", "warp", "block", "group", "launch")

    def __init__(self, tid: Dim3, block: BlockState, bdim: Dim3, gdim: Dim3, launch):
        self.tid = tid
        self.bid = block.bid
        self.bdim = bdim
        self.gdim = gdim
        self.linear = tid.x + bdim.x * (tid.y + bdim.y * tid.z)
        self.lane = self.linear % WARP_SIZE
        self.warp = self.linear // WARP_SIZE
        self.block = block
        self.group = block.group
        self.launch = launch

    def describe(self) -> str:
        return f"tid=[{self.tid.x}, {self.tid.y}, {self.tid.z}] ctaid=[{self.bid.x}, {self.bid.y}, {self.bid.z}]"
