"""Typing of the warp-specialisation and dependent-launch primitives (sm_90):

* ``cuda.named_barrier.sync(barrier_id, count)`` / ``.arrive(barrier_id, count)``: the
  hardware barrier ``barrier_id`` (0 to 15; 0 is the one ``syncthreads`` uses) for
  ``count`` threads (a multiple of 32): ``sync`` waits until ``count`` threads have
  arrived, ``arrive`` arrives without waiting (a producer signalling consumers);
* ``cuda.elect_sync()``: True in exactly one lane of the warp (all 32 lanes must call it
  together), False in the others;
* ``cuda.griddepcontrol.wait()``: waits until the grids this one depends on (launched
  before it on the stream, when it is launched with ``programmatic_dependent_launch``)
  have completed and their memory is visible; ``launch_dependents()``: lets the next
  dependent grid start before this one has finished;
* ``cuda.fence_proxy_async()``: orders this thread's shared-memory accesses before the
  asynchronous proxy's (the copy engine's and the tensor cores') that follow.

Constant operands are checked here; others are the hardware's to check.
"""

from __future__ import annotations

from ... import device_api as api
from ...registry import registry
from ...types import Integer, Signature, boolean, none, uint32

__all__ = []


def no_args(site):
    """The typer of a device function taking no arguments and returning nothing (also
    ``cuda.wgmma``'s fence and commit_group)."""
    if site.args:
        raise site.error("takes no arguments")
    return Signature(none, ())


for _fn, _name in ((api.griddepcontrol.wait, "cuda.griddepcontrol.wait"),
                   (api.griddepcontrol.launch_dependents, "cuda.griddepcontrol.launch_dependents"),
                   (api.fence_proxy_async, "cuda.fence_proxy_async")):
    registry.call(_fn, name=_name)(no_args)


@registry.call(api.elect_sync, name="cuda.elect_sync")
def _elect_sync(site):
    if site.args:
        raise site.error("takes no arguments (it elects one lane of the whole warp)")
    return Signature(boolean, ())


def _barrier(site):
    if len(site.args) != 2:
        raise site.error(f"takes barrier_id and count: {len(site.args)} argument(s) given")
    for k, what in ((0, "the barrier id"), (1, "the thread count")):
        if not isinstance(site.args[k], Integer):
            raise site.error(f"{what} must be an integer, not {site.args[k]}")
    ident, count = (site.consts[k] if site.is_const(k) else None for k in (0, 1))
    if ident is not None and not 0 <= ident <= 15:
        raise site.error(f"the barrier id must be from 0 to 15, not {ident}")
    if count is not None and (count <= 0 or count % 32):
        raise site.error(f"the thread count must be a positive multiple of 32 (whole warps), not {count}")
    return Signature(none, (uint32, uint32))


registry.call(api.named_barrier.sync, params=("barrier_id", "count"), name="cuda.named_barrier.sync")(_barrier)
registry.call(api.named_barrier.arrive, params=("barrier_id", "count"), name="cuda.named_barrier.arrive")(_barrier)
