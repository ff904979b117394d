"""Typing of cooperative groups: ``cuda.cg.this_grid()`` and ``GridGroup.sync()``;
``cuda.cg.this_cluster()`` (thread-block clusters, cc >= 9.0) and its methods
``sync()``, ``block_rank()``, ``num_blocks()``, ``block_index()``, ``dim_blocks()`` and
``map_shared_rank(array, rank)`` (the same shared array in another block of the
cluster: distributed shared memory).

A kernel that calls ``sync()`` on the grid group must be launched cooperatively
(all blocks co-resident); the compiler reports it (``uses_grid_sync``) and the
runtime launches such kernels with ``cuLaunchCooperativeKernel``.
"""

from __future__ import annotations

from ... import device_api as api
from ...registry import registry
from ...types import Array, Integer, Signature, Type, UniTuple, int32, none

__all__ = ["GridGroup", "grid_group", "ClusterGroup", "cluster_group"]


class GridGroup(Type):
    """The group of every thread of a cooperative launch."""

    __slots__ = ()

    def __init__(self):
        super().__init__("grid", "GridGroup")


grid_group = GridGroup()


@registry.call(api.cg.this_grid, name="cuda.cg.this_grid")
def _this_grid(site):
    if site.args:
        raise site.error("takes no arguments")
    return Signature(grid_group, ())


@registry.method(GridGroup, "sync")
def _grid_sync(site):
    if site.args:
        raise site.error("takes no arguments")
    return Signature(none, ())


class ClusterGroup(Type):
    """The threads of the calling block's thread-block cluster."""

    __slots__ = ()

    def __init__(self):
        super().__init__("cluster", "ClusterGroup")


cluster_group = ClusterGroup()


def _no_args(site):
    if site.args:
        raise site.error("takes no arguments")


@registry.call(api.cg.this_cluster, name="cuda.cg.this_cluster")
def _this_cluster(site):
    _no_args(site)
    return Signature(cluster_group, ())


@registry.method(ClusterGroup, "sync")
def _cluster_sync(site):
    _no_args(site)
    return Signature(none, ())


def _cluster_int(site):
    _no_args(site)
    return Signature(int32, ())


def _cluster_dim3(site):
    _no_args(site)
    return Signature(UniTuple(int32, 3), ())


for _name in ("block_rank", "num_blocks"):
    registry.method(ClusterGroup, _name)(_cluster_int)
for _name in ("block_index", "dim_blocks"):
    registry.method(ClusterGroup, _name)(_cluster_dim3)


@registry.method(ClusterGroup, "map_shared_rank", params=("array", "rank"))
def _map_shared_rank(site):
    if len(site.args) != 2:
        raise site.error(f"takes a shared array and a block rank, {len(site.args)} argument(s) given")
    arr, rank = site.args
    if not isinstance(arr, Array):
        raise site.error(f"maps a shared array (cuda.shared.array) to another block of the cluster, not {arr}")
    if not isinstance(rank, Integer):
        raise site.error(f"the block rank must be an integer, not {rank}")
    return Signature(arr, (arr, int32))
