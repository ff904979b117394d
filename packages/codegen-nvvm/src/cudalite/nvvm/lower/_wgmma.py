"""Lowering of the warpgroup MMA (``wgmma``) and register reallocation (``setmaxnreg``):
sm_90a only (:func:`require_arch_specific`: a located error elsewhere; a 9.0 target the
jit compiles becomes sm_90a).  All inline PTX: libNVVM turns its ``llvm.nvvm.wgmma``
spellings into calls ptxas refuses and drops ``llvm.nvvm.setmaxnreg`` silently.

The accumulator is a tuple of N/2 float32 registers.  ``mma_async`` ties each output to
the matching input (the tensor cores update the registers in place); ``wait_group``
passes the accumulators through an instruction of its own, tied the same way, so the
values code reads afterwards are defined *after* the wait -- without it LLVM could read
a register the tensor cores are still writing.  Every instruction has side effects and a
memory clobber: shared-memory stores are not moved across an ``mma_async`` that reads
the tile, nor across the fences.

``setmaxnreg`` marks the module ``needs_lto``: ptxas honours it only when it allocates
registers for the whole program (LTO-IR linked with ``-lto``; on PTX it is ignored,
ptxas C7504), and only in a kernel whose launch bounds fix the block size and one
block per SM (ptxas C7508 otherwise): a kernel calling it must declare
``launch_bounds=(threads, 1)`` (``ModuleBuilder.mark_kernel`` checks, at the call's line).
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api
from cudalite.core.types import Tuple, float32, uint64
from cudalite.core.typing.rules.wgmma import WGMMA_KINDS

from ._boundscheck import check_indices
from ._elements import element_pointer, store_mem
from ._intrinsics import inline_asm, inline_asm_outputs, read_sreg, require_arch_specific, tuple_value
from ._irtypes import EMPTY, I32, I64
from ._registry import lowerings
from ._tensorcore import _shared_address

__all__ = []

_F32 = ir.FloatType()


def _items(b, value, n):
    return [b.extract_value(value, i) for i in range(n)]


@lowerings.call(api.wgmma.make_desc)
def _make_desc(lc, node, args, info):
    """The matrix descriptor: start address >> 4 (bits 0-13), leading and stride byte
    offsets >> 4 (bits 16-29, 32-45), base offset 0, layout type (bits 62-63).  Plain
    arithmetic: any target (the mma_async reading it needs sm_90a)."""
    b = lc.builder
    sig = info.sig
    addr = _shared_address(lc, sig.args[0], sig.args[1], args[0], args[1])

    def field(v, shift):
        v = b.and_(b.lshr(v, ir.Constant(I32, 4)), ir.Constant(I32, 0x3FFF))
        return b.shl(b.zext(v, I64), ir.Constant(I64, shift))

    desc = b.or_(b.or_(field(addr, 0), field(args[3], 16)), field(args[4], 32))
    return b.or_(desc, ir.Constant(I64, info.payload << 62))


@lowerings.call(api.wgmma.zeros)
def _zeros(lc, node, args, info):
    ret = info.sig.return_type
    return tuple_value(lc, ret, [ir.Constant(_F32, 0.0)] * len(ret.types))


_SIMPLE = {
    api.wgmma.fence: ("wgmma.fence.sync.aligned;", "cuda.wgmma.fence"),
    api.wgmma.commit_group: ("wgmma.commit_group.sync.aligned;", "cuda.wgmma.commit_group"),
}


@lowerings.call(*_SIMPLE)
def _simple(lc, node, args, info):
    ptx, what = _SIMPLE[info.key]
    require_arch_specific(lc, node, what)
    inline_asm(lc, ir.VoidType(), ptx, "~{memory}")
    return ir.Constant(EMPTY, None)


def _tied(k):
    """Constraints of ``k`` float outputs and ``k`` inputs tied to them."""
    return ["=f"] * k + [str(i) for i in range(k)]


@lowerings.call(api.wgmma.mma_async)
def _mma_async(lc, node, args, info):
    require_arch_specific(lc, node, "cuda.wgmma.mma_async")
    b, call = lc.builder, info.payload
    k = call.n // 2
    kdim, ptype, transposable = WGMMA_KINDS[call.dtype]
    # scale_d the constant False: D = A @ B reads no accumulator, so its registers get no value
    # (zeros would be moves into them inside the MMA pipeline, which ptxas serialises: C7513)
    acc = [ir.Constant(_F32, ir.Undefined)] * k if call.overwrite else _items(b, args[0], k)
    ops, cons = list(acc), _tied(k)
    if call.rs:
        ops += _items(b, args[1], 4)
        cons += ["r"] * 4
        a_text = "{" + ", ".join(f"${2 * k + i}" for i in range(4)) + "}"
        nxt = 2 * k + 4
    else:
        ops.append(args[1])
        cons.append("l")
        a_text, nxt = f"${2 * k}", 2 * k + 1
    ops += [args[2], args[4] if len(args) > 4 else ir.Constant(I32, 1)]  # scale-d: by default D += A @ B
    cons += ["l", "r"]
    imms = ["1", "1"]  # scale-a, scale-b (+1: not negated)
    if transposable:  # f16/bf16: trans-a (A in shared memory only), trans-b
        imms += ([] if call.rs else [str(int(call.trans_a))]) + [str(int(call.trans_b))]
    d_text = "{" + ", ".join(f"${i}" for i in range(k)) + "}"
    ptx = ("{\n\t.reg .pred p;\n\t" + f"setp.ne.b32 p, ${nxt + 1}, 0;\n\t"
           + f"wgmma.mma_async.sync.aligned.m64n{call.n}k{kdim}.f32.{ptype}.{ptype} "
           + f"{d_text}, {a_text}, ${nxt}, p, {', '.join(imms)};\n\t}}")
    out = inline_asm_outputs(lc, [_F32] * k, ptx, ",".join(cons + ["~{memory}"]), ops)
    return tuple_value(lc, info.sig.return_type, out)


def _flatten(b, ty, value, out):
    """The registers of a fragment (a tuple of float32/uint32 or of such tuples), in order."""
    for i, t in enumerate(ty.types):
        item = b.extract_value(value, i)
        if isinstance(t, Tuple):
            _flatten(b, t, item, out)
        else:
            out.append(item)
    return out


def _rebuild(lc, ty, regs, at):
    """``ty``'s value from ``regs[at:]``; (value, next index)."""
    items = []
    for t in ty.types:
        if isinstance(t, Tuple):
            item, at = _rebuild(lc, t, regs, at)
        else:
            item, at = regs[at], at + 1
        items.append(item)
    return tuple_value(lc, ty, items), at


@lowerings.call(api.wgmma.wait_group)
def _wait_group(lc, node, args, info):
    require_arch_specific(lc, node, "cuda.wgmma.wait_group")
    b = lc.builder
    ptx = f"wgmma.wait_group.sync.aligned {info.payload};"
    frags = info.sig.args[1:]
    if not frags:
        inline_asm(lc, ir.VoidType(), ptx, "~{memory}")
        return ir.Constant(EMPTY, None)
    regs = []
    for t, a in zip(frags, args[1:]):
        _flatten(b, t, a, regs)
    outs = ["=f" if r.type == _F32 else "=r" for r in regs]
    out = inline_asm_outputs(lc, [r.type for r in regs], ptx,
                             ",".join(outs + [str(i) for i in range(len(regs))] + ["~{memory}"]), regs)
    made, at = [], 0
    for t in frags:
        value, at = _rebuild(lc, t, out, at)
        made.append(value)
    return made[0] if len(made) == 1 else tuple_value(lc, info.sig.return_type, made)


@lowerings.call(api.wgmma.accumulator_coords)
def _coords(lc, node, args, info):
    """PTX's accumulator layout: warp w of the warpgroup holds rows 16w..16w+15; element
    i of lane l is at row ``16w + l/4 + 8*((i/2)%2)``, column ``8*(i/4) + 2*(l%4) + i%2``."""
    b = lc.builder
    tid = read_sreg(lc, "tid.x")
    i = args[0]

    def c(v):
        return ir.Constant(I32, v)

    lane, warp = b.and_(tid, c(31)), b.and_(b.lshr(tid, c(5)), c(3))
    row = b.add(b.add(b.shl(warp, c(4)), b.lshr(lane, c(2))), b.shl(b.and_(b.lshr(i, c(1)), c(1)), c(3)))
    col = b.add(b.add(b.shl(b.lshr(i, c(2)), c(3)), b.shl(b.and_(lane, c(3)), c(1))), b.and_(i, c(1)))
    return tuple_value(lc, info.sig.return_type, [row, col])


@lowerings.call(api.wgmma.store)
def _store(lc, node, args, info):
    """The accumulator tile stored element by element (constant register indices), each
    float32 converted to the array's dtype; rows/columns from :func:`_coords`' layout.
    Under ``boundscheck`` the thread's last row and column are checked (an
    ``IndexError`` on the host, nothing stored)."""
    b = lc.builder
    acc_t, aty = info.sig.args[0], info.sig.args[1]
    acc, arr, row0, col0 = args
    tid = read_sreg(lc, "tid.x")

    def c(v, t=I32):
        return ir.Constant(t, v)

    lane, warp = b.and_(tid, c(31)), b.and_(b.lshr(tid, c(5)), c(3))
    r = b.add(row0, b.zext(b.add(b.shl(warp, c(4)), b.lshr(lane, c(2))), I64))
    col = b.add(col0, b.zext(b.shl(b.and_(lane, c(3)), c(1)), I64))
    n = len(acc_t.types)
    # boundscheck: this thread's last row and column (a negative row or col is huge unsigned)
    check_indices(lc, aty, arr, [(b.add(r, c(8, I64)), uint64), (b.add(col, c(8 * (n // 4 - 1) + 1, I64)), uint64)],
                  node.loc)
    for i in range(n):
        ri = b.add(r, c(8 * ((i >> 1) & 1), I64))
        ci = b.add(col, c(8 * (i >> 2) + (i & 1), I64))
        p = element_pointer(b, aty, arr, [(ri, uint64), (ci, uint64)])
        store_mem(b, p, lc.cast(b.extract_value(acc, i), float32, aty.dtype), aty.dtype)
    return ir.Constant(EMPTY, None)


@lowerings.call(api.wgmma.scale_rows)
def _scale_rows(lc, node, args, info):
    """Element i belongs to the thread's first row when bit 1 of i is clear (the layout of
    :func:`_coords`), to its second row otherwise."""
    b = lc.builder
    acc, lo, hi = args
    out = [b.fmul(b.extract_value(acc, i), hi if (i >> 1) & 1 else lo) for i in range(len(info.sig.args[0].types))]
    return tuple_value(lc, info.sig.return_type, out)


def _setmaxnreg(op):
    def lower(lc, node, args, info):
        require_arch_specific(lc, node, f"cuda.setmaxnreg.{op}")
        mb = lc.module
        mb.needs_lto = True
        if mb.setmaxnreg_loc is None:
            mb.setmaxnreg_loc = node.loc
        inline_asm(lc, ir.VoidType(), f"setmaxnreg.{op}.sync.aligned.u32 {info.payload};", "~{memory}")
        return ir.Constant(EMPTY, None)

    return lower


lowerings.call(api.setmaxnreg.inc)(_setmaxnreg("inc"))
lowerings.call(api.setmaxnreg.dec)(_setmaxnreg("dec"))
