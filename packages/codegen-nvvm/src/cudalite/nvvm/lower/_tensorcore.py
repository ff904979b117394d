"""Lowering of the asynchronous copies (``cuda.pipeline``: PTX ``cp.async``) and the
warp-level matrix multiply-accumulate (``cuda.mma``: ``ldmatrix``, ``mma.sync``, the
f16x2/bf16x2/tf32 conversions), each one inline PTX instruction (sm_80+; a target
below is a located error).

Shared-memory operands are 32-bit shared-window addresses: the array's generic data
pointer converted (``addrspacecast``, PTX ``cvta.to.shared``, which the optimizer can
hoist out of loops) plus the element's byte offset in 32-bit arithmetic
(:func:`_shared_address`), as hand-written CUDA passes them; the copies' global source
is a 64-bit global address.  The arrays must be in shared and global memory as PTX
requires (their data pointers are generic).  Every call that
touches memory is emitted with side effects and a memory clobber, so the optimizer
never moves ordinary loads and stores across it; the ``mma`` and conversion
instructions are pure.
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api
from cudalite.core.types import Tuple
from cudalite.core.typing.rules.mma import MMA_MIN_CC, MMA_SHAPES

from ._elements import element_pointer
from ._intrinsics import inline_asm, inline_asm_outputs, require_cc, tuple_value
from ._irtypes import ADDRSPACE_GLOBAL, ADDRSPACE_SHARED, EMPTY, I32, I64
from ._registry import lowerings

__all__ = []

_F32 = ir.FloatType()


def _need_sm80(lc, node, what):
    require_cc(lc, node, what, (8, 0))


def _element(lc, aty, ity, arr, idx):
    """``&arr[idx]`` (negative indices wrap, as ``arr[idx]``) as a generic pointer."""
    b = lc.builder
    items = ([(b.extract_value(idx, i), t) for i, t in enumerate(ity.types)] if isinstance(ity, Tuple)
             else [(idx, ity)])
    return element_pointer(b, aty, arr, items)


def _global_address(lc, aty, ity, arr, idx):
    """``&arr[idx]`` as an i64 global-space address (``cvta.to.global``)."""
    p = _element(lc, aty, ity, arr, idx)
    return lc.builder.ptrtoint(lc.builder.addrspacecast(p, p.type.pointee.as_pointer(ADDRSPACE_GLOBAL)), I64)


def _shared_address(lc, aty, ity, arr, idx):
    """``&arr[idx]`` as an i32 shared-window address: the shared address of the array's
    data pointer plus the element's byte offset from it, both truncated to 32 bits.

    Exact for every element of an array in shared memory: its address is below the
    shared window's size (kilobytes), so it and the element's byte offset (possibly
    negative, for a view with a negative stride) agree with their 64-bit values modulo
    2**32, and so does their sum.  The truncation lets the optimizer compute the offset
    in 32-bit arithmetic and hoist the data pointer's conversion out of loops."""
    b = lc.builder
    data = b.extract_value(arr, 0)
    p = _element(lc, aty, ity, arr, idx)
    offset = b.sub(b.ptrtoint(p, I64), b.ptrtoint(data, I64))
    base = b.ptrtoint(b.addrspacecast(data, data.type.pointee.as_pointer(ADDRSPACE_SHARED)), I64)
    return b.add(b.trunc(base, I32), b.trunc(offset, I32))


def _tuple_items(b, value, n):
    return [b.extract_value(value, i) for i in range(n)]


# -- cp.async ------------------------------------------------------------------------------------
@lowerings.call(api.pipeline.memcpy_async)
def _memcpy_async(lc, node, args, info):
    _need_sm80(lc, node, "cuda.pipeline.memcpy_async")
    sig = info.sig
    dst = _shared_address(lc, sig.args[0], sig.args[1], args[0], args[1])
    src = _global_address(lc, sig.args[2], sig.args[3], args[2], args[3])
    n = info.payload.nbytes
    cache = "cg" if n == 16 else "ca"  # .cg (L2 only) exists for 16-byte copies
    inline_asm(lc, ir.VoidType(), f"cp.async.{cache}.shared.global [$0], [$1], {n};", "r,l,~{memory}", [dst, src])
    return ir.Constant(EMPTY, None)


@lowerings.call(api.pipeline.commit)
def _commit(lc, node, args, info):
    _need_sm80(lc, node, "cuda.pipeline.commit")
    inline_asm(lc, ir.VoidType(), "cp.async.commit_group;", "~{memory}")
    return ir.Constant(EMPTY, None)


@lowerings.call(api.pipeline.wait)
def _wait(lc, node, args, info):
    _need_sm80(lc, node, "cuda.pipeline.wait")
    n = info.payload
    inline_asm(lc, ir.VoidType(), "cp.async.wait_all;" if n == 0 else f"cp.async.wait_group {n};", "~{memory}")
    return ir.Constant(EMPTY, None)


# -- ldmatrix / mma.sync -------------------------------------------------------------------------
@lowerings.call(api.mma.ldmatrix)
def _ldmatrix(lc, node, args, info):
    _need_sm80(lc, node, "cuda.mma.ldmatrix")
    count, trans = info.payload
    sig = info.sig
    addr = _shared_address(lc, sig.args[0], sig.args[1], args[0], args[1])
    outs = ", ".join(f"${i}" for i in range(count))
    t = ".trans" if trans else ""
    ptx = f"ldmatrix.sync.aligned.m8n8.x{count}{t}.shared.b16 {{{outs}}}, [${count}];"
    cons = ",".join(["=r"] * count) + ",r,~{memory}"
    return tuple_value(lc, sig.return_type, inline_asm_outputs(lc, [I32] * count, ptx, cons, [addr]))


def _mma_lowering(name):
    shape, _acc = MMA_SHAPES[name]

    def lower(lc, node, args, info):
        require_cc(lc, node, f"cuda.mma.{name}", MMA_MIN_CC.get(name, (8, 0)))
        b = lc.builder
        a, bb, c = _tuple_items(b, args[0], 4), _tuple_items(b, args[1], 2), _tuple_items(b, args[2], 4)
        acc = c[0].type
        letter = "f" if isinstance(acc, ir.FloatType) else "r"
        ptx = (f"mma.sync.aligned.{shape} {{$0, $1, $2, $3}}, {{$4, $5, $6, $7}}, {{$8, $9}}, "
               "{$10, $11, $12, $13};")
        cons = ",".join([f"={letter}"] * 4 + ["r"] * 6 + [letter] * 4)
        outs = inline_asm_outputs(lc, [acc] * 4, ptx, cons, a + bb + c, side_effect=False)
        return tuple_value(lc, info.sig.return_type, outs)

    return lower


for _name in MMA_SHAPES:
    lowerings.call(getattr(api.mma, _name))(_mma_lowering(_name))


def _pack(kind):
    def lower(lc, node, args, info):
        _need_sm80(lc, node, f"cuda.mma.pack_{kind}x2")
        # cvt.rn.f16x2.f32 d, a, b puts a in the upper half: hi first
        return inline_asm(lc, I32, f"cvt.rn.{kind}x2.f32 $0, $2, $1;", "=r,f,f", [args[0], args[1]],
                          side_effect=False)

    return lower


lowerings.call(api.mma.pack_f16x2)(_pack("f16"))
lowerings.call(api.mma.pack_bf16x2)(_pack("bf16"))


@lowerings.call(api.mma.to_tf32)
def _to_tf32(lc, node, args, info):
    _need_sm80(lc, node, "cuda.mma.to_tf32")
    return inline_asm(lc, I32, "cvt.rna.tf32.f32 $0, $1;", "=r,f", [args[0]], side_effect=False)
