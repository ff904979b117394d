"""Cooperative groups: ``cuda.cg.this_grid().sync()``, a grid-wide barrier.

A cooperative launch gives the kernel a driver-allocated workspace whose
address is in the special registers ``%envreg2`` (low) and ``%envreg1`` (high);
the barrier word is its second 32-bit field.  Each block's first thread adds 1
(block 0 adds ``0x80000000 - (blocks - 1)``), so the word's top bit flips
exactly when every block has arrived; the adder then waits for the flip.
Block barriers before and after make it a barrier for every thread.
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api
from cudalite.core.typing.rules.groups import GridGroup

from ._intrinsics import call_intrinsic, inline_asm, read_sreg
from ._irtypes import EMPTY, I1, I32, I64
from ._registry import lowerings

__all__ = []

_TOP_BIT = 0x80000000


@lowerings.call(api.cg.this_grid)
def _this_grid(lc, node, args, info):
    lc.module.uses_grid_sync = True  # as numba-cuda: a kernel taking the grid group launches cooperatively
    return ir.Constant(EMPTY, None)


def _all_zero(lc, prefix):
    b = lc.builder
    acc = ir.Constant(I1, 1)
    for axis in "xyz":
        acc = b.and_(acc, b.icmp_unsigned("==", read_sreg(lc, f"{prefix}.{axis}"), ir.Constant(I32, 0)))
    return acc


@lowerings.method(GridGroup, "sync")
def _grid_sync(lc, node, args, info):
    b = lc.builder
    lc.module.uses_grid_sync = True
    call_intrinsic(lc, "llvm.nvvm.barrier0", ir.VoidType(), [])
    with b.if_then(_all_zero(lc, "tid")):
        workspace = inline_asm(lc, I64, "mov.b64 $0, {%envreg2, %envreg1};", "=l")
        word = b.add(workspace, ir.Constant(I64, 4))
        nblocks = read_sreg(lc, "nctaid.x")
        nblocks = b.mul(nblocks, read_sreg(lc, "nctaid.y"))
        nblocks = b.mul(nblocks, read_sreg(lc, "nctaid.z"))
        first_add = b.sub(ir.Constant(I32, _TOP_BIT + 1), nblocks)
        add = b.select(_all_zero(lc, "ctaid"), first_add, ir.Constant(I32, 1))
        call_intrinsic(lc, "llvm.nvvm.membar.gl", ir.VoidType(), [])
        old = inline_asm(lc, I32, "atom.add.release.gpu.u32 $0, [$1], $2;", "=r,l,r", [word, add])
        spin = lc.fn.append_basic_block("grid.sync.wait")
        done = lc.fn.append_basic_block("grid.sync.done")
        b.branch(spin)
        b.position_at_end(spin)
        cur = inline_asm(lc, I32, "ld.acquire.gpu.u32 $0, [$1];", "=r,l", [word])
        flipped = b.and_(b.xor(old, cur), ir.Constant(I32, _TOP_BIT))
        b.cbranch(b.icmp_unsigned("!=", flipped, ir.Constant(I32, 0)), done, spin)
        b.position_at_end(done)
        call_intrinsic(lc, "llvm.nvvm.membar.gl", ir.VoidType(), [])
    call_intrinsic(lc, "llvm.nvvm.barrier0", ir.VoidType(), [])
    return ir.Constant(EMPTY, None)
