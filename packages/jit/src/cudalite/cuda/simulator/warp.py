"""Warp-level intrinsics over the 32-thread warps of a block.

Warp ``w`` of a block holds the threads of linear index ``32*w .. 32*w+31``
(``x`` fastest).  Each ``*_sync`` call is a barrier of the live lanes of the warp
named in ``mask``: every such lane deposits its value, and each reads the values of
the others.  Limits: the lanes named in a mask must call the same intrinsics in
the same order (as CUDA requires); a lane that has exited is left out, and
reading from a lane outside the mask or the warp gives the caller's own value
(undefined on the GPU).  ``activemask()`` is the mask of the warp's lanes that
have not exited (divergence inside a warp is not tracked).
"""

from __future__ import annotations

from ._state import current
from .context import WARP_SIZE

__all__ = [
    "syncwarp", "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync", "any_sync",
    "eq_sync", "ballot_sync", "match_any_sync", "match_all_sync", "activemask", "lanemask_lt",
]

FULL_MASK = 0xFFFFFFFF


def _exchange(mask, value):
    ctx = current()
    if not int(mask) >> ctx.lane & 1:
        raise RuntimeError(f"a warp intrinsic was called by lane {ctx.lane} with mask {int(mask):#x}, which does "
                           "not name the calling lane (undefined behaviour in CUDA)")
    values = ctx.block.warp_barrier(ctx.warp, int(mask)).wait(ctx.lane, value)
    return ctx.lane, values


def syncwarp(mask=FULL_MASK):
    _exchange(mask, None)


def _read(values, lane, src, value):
    return values.get(src, value) if 0 <= src < WARP_SIZE else value


def shfl_sync(mask, value, src_lane):
    lane, values = _exchange(mask, value)
    return _read(values, lane, int(src_lane) % WARP_SIZE, value)


def shfl_up_sync(mask, value, delta):
    lane, values = _exchange(mask, value)
    return _read(values, lane, lane - int(delta), value)


def shfl_down_sync(mask, value, delta):
    lane, values = _exchange(mask, value)
    return _read(values, lane, lane + int(delta), value)


def shfl_xor_sync(mask, value, lane_mask):
    lane, values = _exchange(mask, value)
    return _read(values, lane, lane ^ int(lane_mask), value)


def all_sync(mask, predicate):
    _, values = _exchange(mask, bool(predicate))
    return int(all(values.values()))


def any_sync(mask, predicate):
    _, values = _exchange(mask, bool(predicate))
    return int(any(values.values()))


def eq_sync(mask, predicate):
    _, values = _exchange(mask, bool(predicate))
    return int(len(set(values.values())) <= 1)


def ballot_sync(mask, predicate):
    _, values = _exchange(mask, bool(predicate))
    return sum(1 << lane for lane, v in values.items() if v)


def _key(value):
    try:
        return value.item()
    except AttributeError:
        return value


def match_any_sync(mask, value):
    lane, values = _exchange(mask, _key(value))
    mine = values[lane]
    return sum(1 << other for other, v in values.items() if v == mine)


def match_all_sync(mask, value):
    _, values = _exchange(mask, _key(value))
    if len(set(values.values())) <= 1:
        return sum(1 << lane for lane in values), True
    return 0, False


def activemask():
    ctx = current()
    with ctx.group.cond:
        lanes = set(ctx.block.warp_alive.get(ctx.warp, ()))
    return sum(1 << lane for lane in lanes)


def lanemask_lt():
    return (1 << current().lane) - 1
