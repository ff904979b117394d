"""Lowering of the TMA bulk tensor copy and the mbarrier operations (sm_90; a target
below is a located error): each is inline PTX on shared-memory addresses converted from
the arrays' generic data pointers (``cvta.to.shared``).  ``mbarrier.wait`` loops on
``mbarrier.try_wait.parity`` (which itself suspends the thread for a while).  Every one
is emitted with side effects and a memory clobber."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api

from ._intrinsics import inline_asm, require_cc
from ._irtypes import EMPTY, I32, I64
from ._registry import lowerings

__all__ = []

_TO_SHARED = ".reg .u64 %s;\n\tcvta.to.shared.u64 %s, %s;\n\t"


def _need_sm90(lc, node, what):
    require_cc(lc, node, what, (9, 0), "the Tensor Memory Accelerator")


def _bar_address(lc, bar, idx):
    b = lc.builder
    data = b.extract_value(bar, 0)
    return b.ptrtoint(b.gep(data, [b.sext(idx, I64) if idx.type.width < 64 else idx]), I64)


@lowerings.call(api.tma.load, api.tma.load_multicast)
def _load(lc, node, args, info):
    multicast = info.key is api.tma.load_multicast
    _need_sm90(lc, node, "cuda.tma.load_multicast" if multicast else "cuda.tma.load")
    b = lc.builder
    n = len(info.sig.args[2].types)
    dst = b.ptrtoint(b.extract_value(args[0], 0), I64)
    tmap = b.ptrtoint(b.extract_value(args[1], 0), I64)
    bar = _bar_address(lc, args[3], args[4])
    coords = _coords(lc, info, args, 2)
    slots = ", ".join(f"${3 + i}" for i in range(n))
    ops, constraint = [dst, tmap, bar] + coords, "l,l,l," + ",".join(["r"] * n)
    suffix, mask = "", ""
    if multicast:  # the mask: a 16-bit operand, after the coordinates
        suffix, mask = ".multicast::cluster", f", ${3 + n}"
        ops.append(args[5])
        constraint += ",h"
    ptx = ("{\n\t" + _TO_SHARED % ("d", "d", "$0") + _TO_SHARED % ("m", "m", "$2")
           + f"cp.async.bulk.tensor.{n}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes{suffix} "
           + f"[d], [$1, {{{slots}}}], [m]{mask};\n\t}}")
    inline_asm(lc, ir.VoidType(), ptx, constraint + ",~{memory}", ops)
    return ir.Constant(EMPTY, None)


def _coords(lc, info, args, k):
    """The coordinate values of argument ``k``, innermost first (PTX's order)."""
    b = lc.builder
    return [b.extract_value(args[k], i) for i in range(len(info.sig.args[k].types))][::-1]


@lowerings.call(api.tma.store)
def _store(lc, node, args, info):
    _need_sm90(lc, node, "cuda.tma.store")
    b = lc.builder
    src = b.ptrtoint(b.extract_value(args[0], 0), I64)
    tmap = b.ptrtoint(b.extract_value(args[1], 0), I64)
    coords = _coords(lc, info, args, 2)
    n = len(coords)
    slots = ", ".join(f"${2 + i}" for i in range(n))
    ptx = ("{\n\t" + _TO_SHARED % ("s", "s", "$0")
           + f"cp.async.bulk.tensor.{n}d.global.shared::cta.tile.bulk_group [$1, {{{slots}}}], [s];\n\t}}")
    inline_asm(lc, ir.VoidType(), ptx, "l,l," + ",".join(["r"] * n) + ",~{memory}", [src, tmap] + coords)
    return ir.Constant(EMPTY, None)


@lowerings.call(api.tma.prefetch)
def _prefetch(lc, node, args, info):
    _need_sm90(lc, node, "cuda.tma.prefetch")
    tmap = lc.builder.ptrtoint(lc.builder.extract_value(args[0], 0), I64)
    coords = _coords(lc, info, args, 1)
    n = len(coords)
    slots = ", ".join(f"${1 + i}" for i in range(n))
    inline_asm(lc, ir.VoidType(), f"cp.async.bulk.prefetch.tensor.{n}d.L2.global.tile [$0, {{{slots}}}];",
               "l," + ",".join(["r"] * n) + ",~{memory}", [tmap] + coords)
    return ir.Constant(EMPTY, None)


@lowerings.call(api.tma.store_commit)
def _store_commit(lc, node, args, info):
    _need_sm90(lc, node, "cuda.tma.store_commit")
    inline_asm(lc, ir.VoidType(), "cp.async.bulk.commit_group;", "~{memory}")
    return ir.Constant(EMPTY, None)


def _store_wait(read, what):
    def lower(lc, node, args, info):
        _need_sm90(lc, node, what)
        inline_asm(lc, ir.VoidType(), f"cp.async.bulk.wait_group{'.read' if read else ''} {int(info.payload)};",
                   "~{memory}")
        return ir.Constant(EMPTY, None)

    return lower


lowerings.call(api.tma.store_wait)(_store_wait(False, "cuda.tma.store_wait"))
lowerings.call(api.tma.store_wait_read)(_store_wait(True, "cuda.tma.store_wait_read"))


@lowerings.call(api.mbarrier.init)
def _init(lc, node, args, info):
    _need_sm90(lc, node, "cuda.mbarrier.init")
    ptx = "{\n\t" + _TO_SHARED % ("a", "a", "$0") + "mbarrier.init.shared::cta.b64 [a], $1;\n\t}"
    inline_asm(lc, ir.VoidType(), ptx, "l,r,~{memory}", [_bar_address(lc, args[0], args[1]), args[2]])
    return ir.Constant(EMPTY, None)


@lowerings.call(api.mbarrier.fence_init)
def _fence_init(lc, node, args, info):
    _need_sm90(lc, node, "cuda.mbarrier.fence_init")
    inline_asm(lc, ir.VoidType(), "fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;",
               "~{memory}")
    return ir.Constant(EMPTY, None)


@lowerings.call(api.mbarrier.arrive)
def _arrive(lc, node, args, info):
    _need_sm90(lc, node, "cuda.mbarrier.arrive")
    ptx = "{\n\t" + _TO_SHARED % ("a", "a", "$1") + "mbarrier.arrive.shared::cta.b64 $0, [a];\n\t}"
    return inline_asm(lc, I64, ptx, "=l,l,~{memory}", [_bar_address(lc, args[0], args[1])])


@lowerings.call(api.mbarrier.arrive_expect_tx)
def _arrive_expect_tx(lc, node, args, info):
    _need_sm90(lc, node, "cuda.mbarrier.arrive_expect_tx")
    ptx = "{\n\t" + _TO_SHARED % ("a", "a", "$1") + "mbarrier.arrive.expect_tx.shared::cta.b64 $0, [a], $2;\n\t}"
    return inline_asm(lc, I64, ptx, "=l,l,r,~{memory}", [_bar_address(lc, args[0], args[1]), args[2]])


@lowerings.call(api.mbarrier.try_wait)
def _try_wait(lc, node, args, info):
    _need_sm90(lc, node, "cuda.mbarrier.try_wait")
    ptx = ("{\n\t.reg .pred p;\n\t" + _TO_SHARED % ("a", "a", "$1")
           + "mbarrier.try_wait.parity.shared::cta.b64 p, [a], $2;\n\tselp.u32 $0, 1, 0, p;\n\t}")
    ready = inline_asm(lc, I32, ptx, "=r,l,r,~{memory}", [_bar_address(lc, args[0], args[1]), args[2]])
    return lc.builder.icmp_unsigned("!=", ready, ir.Constant(I32, 0))


@lowerings.call(api.mbarrier.arrive_cluster)
def _arrive_cluster(lc, node, args, info):
    _need_sm90(lc, node, "cuda.mbarrier.arrive_cluster")
    ptx = ("{\n\t.reg .u32 l, r;\n\t" + _TO_SHARED % ("a", "a", "$0") + "cvt.u32.u64 l, a;\n\t"
           + "mapa.shared::cluster.u32 r, l, $1;\n\t"
           + "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r];\n\t}")
    inline_asm(lc, ir.VoidType(), ptx, "l,r,~{memory}", [_bar_address(lc, args[0], args[1]), args[2]])
    return ir.Constant(EMPTY, None)


@lowerings.call(api.mbarrier.wait)
def _wait(lc, node, args, info):
    _need_sm90(lc, node, "cuda.mbarrier.wait")
    b = lc.builder
    addr = _bar_address(lc, args[0], args[1])
    ptx = ("{\n\t.reg .pred p;\n\t" + _TO_SHARED % ("a", "a", "$1")
           + "mbarrier.try_wait.parity.shared::cta.b64 p, [a], $2;\n\tselp.u32 $0, 1, 0, p;\n\t}")
    spin = lc.fn.append_basic_block("mbarrier.wait")
    done = lc.fn.append_basic_block("mbarrier.done")
    b.branch(spin)
    b.position_at_end(spin)
    ready = inline_asm(lc, I32, ptx, "=r,l,r,~{memory}", [addr, args[2]])
    b.cbranch(b.icmp_unsigned("!=", ready, ir.Constant(I32, 0)), done, spin)
    b.position_at_end(done)
    return ir.Constant(EMPTY, None)
