"""Typing of cooperative groups: ``cuda.cg.this_grid()`` and ``GridGroup.sync()``.

A kernel that calls ``sync()`` on the grid group must be launched cooperatively
(all blocks co-resident); the compiler reports it (``uses_grid_sync``) and the
runtime launches such kernels with ``cuLaunchCooperativeKernel``.
"""

from __future__ import annotations

from ... import device_api as api
from ...registry import registry
from ...types import Signature, Type, none

__all__ = ["GridGroup", "grid_group"]


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
