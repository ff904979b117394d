"""Lowering of the scheduling and loop hints: ``cuda.nanosleep(ns)`` is PTX
``nanosleep.u32`` (sm_70 and newer); ``cuda.literal_unroll(t)`` is ``t`` itself
(the ``for`` loop over it has a constant trip count and is unrolled by the
optimizer)."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api

from ._intrinsics import inline_asm
from ._registry import lowerings

__all__ = []


@lowerings.call(api.nanosleep)
def _nanosleep(lc, node, args, info):
    inline_asm(lc, ir.VoidType(), "nanosleep.u32 $0;", "r", [args[0]])


@lowerings.call(api.literal_unroll)
def _literal_unroll(lc, node, args, info):
    return args[0]
