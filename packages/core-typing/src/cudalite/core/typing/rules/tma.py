"""Typing of the Tensor Memory Accelerator copies and shared-memory barriers (sm_90):

* ``cuda.tma.load(dst, tensor_map, coords, bar, bar_index)``: one box of the tensor
  described by ``tensor_map`` (the descriptor array ``cuda.make_tensor_map`` returns),
  starting at ``coords`` (a tuple of 1 to 5 integers in array index order), copied
  into the shared array ``dst`` by the copy engine; completion is signalled on the
  ``mbarrier`` ``bar[bar_index]`` (a shared uint64 array) as transaction bytes;
* ``cuda.tma.load_multicast(dst, tensor_map, coords, bar, bar_index, cta_mask)``: the
  same box copied into ``dst`` of every block of the cluster whose rank has its bit set
  in ``cta_mask`` (16 bits), each block's copy signalled on its own ``bar[bar_index]``
  (the same shared-memory offsets in every block);
* ``cuda.tma.store(src, tensor_map, coords)``: the shared array ``src`` (one box)
  copied by the copy engine into the tensor at ``coords``, in the current bulk async
  group; ``cuda.tma.store_commit()`` closes the group, ``cuda.tma.store_wait(n=0)`` waits
  until at most ``n`` (a constant, 0 to 7) groups are still writing, and
  ``store_wait_read(n=0)`` only until they have read their shared-memory sources (which
  may then be overwritten);
* ``cuda.tma.prefetch(tensor_map, coords)``: the box at ``coords`` brought into L2;
* ``cuda.mbarrier.init(bar, i, count)`` (``count`` arrivals complete a phase),
  ``fence_init()`` (makes an init visible to the copy engine), ``arrive(bar, i)``,
  ``arrive_expect_tx(bar, i, nbytes)`` (arrive and expect ``nbytes`` of copies), and
  ``wait(bar, i, phase)`` (until the phase of parity ``phase`` has completed),
  ``try_wait(bar, i, phase)`` (whether it has, waiting a bounded time: a bool), and
  ``arrive_cluster(bar, i, cta_rank)`` (arrive on ``bar[i]`` of the cluster's block
  ``cta_rank``, with release semantics at cluster scope: a consumer freeing a stage of
  another block's pipeline).
"""

from __future__ import annotations

from dataclasses import replace

from ... import device_api as api
from ...registry import registry
from .async_copy import group_wait
from ...types import Array, Integer, Signature, Tuple, boolean, int32, none, uint16, uint32, uint64

__all__ = []


def _bar(site, k):
    bar, idx = site.args[k], site.args[k + 1]
    if not (isinstance(bar, Array) and bar.ndim == 1 and isinstance(bar.dtype, Integer) and bar.dtype.bitwidth == 64):
        raise site.error(f"the barrier must be a 1-d shared array of uint64 (cuda.shared.array(n, np.uint64)), "
                         f"not {bar}")
    if not isinstance(idx, Integer):
        raise site.error(f"the barrier index must be an integer, not {idx}")
    return bar


def _arity(site, n, what):
    if len(site.args) != n:
        raise site.error(f"takes {what}: {len(site.args)} argument(s) given")


@registry.call(api.tma.load, params=("dst", "tensor_map", "coords", "bar", "bar_index"), name="cuda.tma.load")
def _load(site):
    _arity(site, 5, "dst, tensor_map, coords, bar and bar_index")
    dst = site.args[0]
    if not isinstance(dst, Array) or dst.readonly:
        raise site.error(f"the destination must be a shared array, not {dst}")
    tmap = _tensor_map(site, 1)
    coords = _coords(site, 2)
    bar = _bar(site, 3)
    return Signature(none, (dst, tmap, coords, bar, int32))


def _tensor_map(site, k):
    tmap = site.args[k]
    if not (isinstance(tmap, Array) and tmap.ndim == 1 and isinstance(tmap.dtype, Integer)):
        raise site.error(f"the tensor map must be the descriptor array cuda.make_tensor_map returns, not {tmap}")
    return tmap


def _coords(site, k):
    coords = site.args[k]
    if isinstance(coords, Integer):
        coords = Tuple((coords,))
    if not (isinstance(coords, Tuple) and 1 <= len(coords.types) <= 5
            and all(isinstance(t, Integer) for t in coords.types)):
        raise site.error(f"the coordinates must be a tuple of 1 to 5 integers (array index order), not {coords}")
    return Tuple((int32,) * len(coords.types))


@registry.call(api.tma.load_multicast, params=("dst", "tensor_map", "coords", "bar", "bar_index", "cta_mask"),
               name="cuda.tma.load_multicast")
def _load_multicast(site):
    _arity(site, 6, "dst, tensor_map, coords, bar, bar_index and cta_mask")
    sig = _load(replace(site, args=site.args[:5], consts=site.consts[:5]))  # the load's checks, this name
    mask = site.args[5]
    if not isinstance(mask, Integer):
        raise site.error(f"the block mask must be an integer (one bit per block rank of the cluster), not {mask}")
    if site.is_const(5) and not 0 < site.consts[5] < 1 << 16:
        raise site.error(f"the block mask must have bits among the 16 block ranks of a cluster, not {site.consts[5]}")
    return Signature(none, (*sig.args, uint16))


@registry.call(api.tma.store, params=("src", "tensor_map", "coords"), name="cuda.tma.store")
def _store(site):
    _arity(site, 3, "src, tensor_map and coords")
    src = site.args[0]
    if not isinstance(src, Array):
        raise site.error(f"the source must be a shared array, not {src}")
    return Signature(none, (src, _tensor_map(site, 1), _coords(site, 2)))


@registry.call(api.tma.prefetch, params=("tensor_map", "coords"), name="cuda.tma.prefetch")
def _prefetch(site):
    _arity(site, 2, "tensor_map and coords")
    return Signature(none, (_tensor_map(site, 0), _coords(site, 1)))


@registry.call(api.tma.store_commit, name="cuda.tma.store_commit")
def _store_commit(site):
    _arity(site, 0, "no arguments")
    return Signature(none, ())


registry.call(api.tma.store_wait, params=("n",), name="cuda.tma.store_wait")(group_wait)
registry.call(api.tma.store_wait_read, params=("n",), name="cuda.tma.store_wait_read")(group_wait)


def _bar_and_integer(param, what, rtype):
    """The typer of ``(bar, i, <param>)``: a barrier element and an integer, the ``what``
    of the error message; returns ``rtype``."""

    def typer(site):
        _arity(site, 3, f"bar, i and {param}")
        bar = _bar(site, 0)
        if not isinstance(site.args[2], Integer):
            raise site.error(f"{what} must be an integer, not {site.args[2]}")
        return Signature(rtype, (bar, int32, uint32))

    return typer


registry.call(api.mbarrier.init, params=("bar", "i", "count"), name="cuda.mbarrier.init")(
    _bar_and_integer("count", "the arrival count", none))


@registry.call(api.mbarrier.fence_init, name="cuda.mbarrier.fence_init")
def _fence_init(site):
    _arity(site, 0, "no arguments")
    return Signature(none, ())


@registry.call(api.mbarrier.arrive, params=("bar", "i"), name="cuda.mbarrier.arrive")
def _arrive(site):
    _arity(site, 2, "bar and i")
    return Signature(uint64, (_bar(site, 0), int32))


registry.call(api.mbarrier.arrive_expect_tx, params=("bar", "i", "nbytes"), name="cuda.mbarrier.arrive_expect_tx")(
    _bar_and_integer("nbytes", "the byte count", uint64))
registry.call(api.mbarrier.wait, params=("bar", "i", "phase"), name="cuda.mbarrier.wait")(
    _bar_and_integer("phase", "the phase parity (0 or 1)", none))


registry.call(api.mbarrier.try_wait, params=("bar", "i", "phase"), name="cuda.mbarrier.try_wait")(
    _bar_and_integer("phase", "the phase parity (0 or 1)", boolean))
registry.call(api.mbarrier.arrive_cluster, params=("bar", "i", "cta_rank"), name="cuda.mbarrier.arrive_cluster")(
    _bar_and_integer("cta_rank", "the block rank", none))
