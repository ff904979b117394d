"""Lowering of the warp-specialisation and dependent-launch primitives (sm_90; a target
below is a located error), each one inline PTX instruction with side effects and a
memory clobber (no access moves across it): ``bar.sync``/``bar.arrive`` (named
barriers), ``elect.sync`` over the full warp, ``griddepcontrol.wait`` /
``.launch_dependents`` and ``fence.proxy.async.shared::cta``.  libNVVM has no usable
intrinsic for these (its ``llvm.nvvm`` spellings of them become calls ptxas refuses),
hence the inline PTX."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api

from ._intrinsics import inline_asm, require_cc
from ._irtypes import EMPTY, I32
from ._registry import lowerings

__all__ = []

_SIMPLE = {
    api.griddepcontrol.wait: ("griddepcontrol.wait;", "cuda.griddepcontrol.wait"),
    api.griddepcontrol.launch_dependents: ("griddepcontrol.launch_dependents;",
                                           "cuda.griddepcontrol.launch_dependents"),
    api.fence_proxy_async: ("fence.proxy.async.shared::cta;", "cuda.fence_proxy_async"),
}


@lowerings.call(*_SIMPLE)
def _simple(lc, node, args, info):
    ptx, what = _SIMPLE[info.key]
    require_cc(lc, node, what, (9, 0))
    inline_asm(lc, ir.VoidType(), ptx, "~{memory}")
    return ir.Constant(EMPTY, None)


def _barrier(op, what):
    def lower(lc, node, args, info):
        require_cc(lc, node, what, (9, 0))
        inline_asm(lc, ir.VoidType(), f"bar.{op} $0, $1;", "r,r,~{memory}", list(args))
        return ir.Constant(EMPTY, None)

    return lower


lowerings.call(api.named_barrier.sync)(_barrier("sync", "cuda.named_barrier.sync"))
lowerings.call(api.named_barrier.arrive)(_barrier("arrive", "cuda.named_barrier.arrive"))


@lowerings.call(api.elect_sync)
def _elect_sync(lc, node, args, info):
    require_cc(lc, node, "cuda.elect_sync", (9, 0))
    ptx = "{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 $0, 1, 0, p;\n\t}"
    elected = inline_asm(lc, I32, ptx, "=r,~{memory}")
    return lc.builder.icmp_unsigned("!=", elected, ir.Constant(I32, 0))
