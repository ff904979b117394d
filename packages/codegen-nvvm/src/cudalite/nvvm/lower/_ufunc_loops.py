"""NumPy ufuncs on arrays in device code: ``np.sin(x, out)``, ``np.add(a, b, out)``.

As numba-cuda, the calling thread loops over every element of the output array
(no parallelisation across threads).  Inputs are arrays or scalars broadcast onto
the output by NumPy's rules: aligned on trailing dimensions, an extent of 1
repeats.  Extents that do not broadcast (neither 1 nor the output's) are checked
before the loop: then nothing is written (numba-cuda raises ValueError, which a
kernel compiled without ``debug`` ignores the same way).  Each element is computed
by the ufunc's scalar lowering and converted to the output's dtype.
"""

from __future__ import annotations

from dataclasses import replace

from llvmlite import ir

from cudalite.core.types import Array, Integer

from ._elements import element_pointer, load_mem, store_mem
from ._irtypes import I1, I64

__all__ = ["lower_ufunc_loop"]

_INDEX = Integer(64, False)  # loop indices are never negative: no wraparound needed


def _nest(lc, extents, body, idx=()):
    """Loops over ``extents`` (i64 values), calling ``body(indices)`` innermost."""
    if len(idx) == len(extents):
        body(idx)
        return
    b = lc.builder
    slot = lc.alloca(I64, name=f"ufunc.i{len(idx)}")
    b.store(ir.Constant(I64, 0), slot)
    cond = lc.fn.append_basic_block("ufunc.cond")
    loop = lc.fn.append_basic_block("ufunc.body")
    end = lc.fn.append_basic_block("ufunc.end")
    b.branch(cond)
    b.position_at_end(cond)
    i = b.load(slot)
    b.cbranch(b.icmp_unsigned("<", i, extents[len(idx)]), loop, end)
    b.position_at_end(loop)
    _nest(lc, extents, body, idx + (i,))
    b.store(b.add(i, ir.Constant(I64, 1), flags=("nuw", "nsw")), slot)
    b.branch(cond)
    b.position_at_end(end)


def lower_ufunc_loop(lc, node, args, info, scalar):
    """``ufunc(inputs..., out)`` elementwise; ``scalar`` lowers one element (with the
    payload's inner signature).  Returns ``out``."""
    b = lc.builder
    loop = info.payload
    in_types, oty, out = info.sig.args[:loop.nin], info.sig.args[-1], args[-1]
    one = ir.Constant(I64, 1)
    oext = [b.extract_value(out, [1, k]) for k in range(oty.ndim)]
    ok = ir.Constant(I1, 1)
    exts = []
    for v, t in zip(args, in_types):
        if not isinstance(t, Array):
            exts.append(None)
            continue
        e = [b.extract_value(v, [1, k]) for k in range(t.ndim)]
        for k, n in enumerate(e):
            o = oext[oty.ndim - t.ndim + k]
            ok = b.and_(ok, b.or_(b.icmp_signed("==", n, one), b.icmp_signed("==", n, o)))
        exts.append(e)
    inner = replace(info, sig=loop.inner, payload=loop.inner_payload)

    def element(idx):
        vals = []
        for v, t, e, want in zip(args, in_types, exts, loop.inner.args):
            if isinstance(t, Array):
                off = oty.ndim - t.ndim
                items = [(b.select(b.icmp_signed("==", n, one), ir.Constant(I64, 0), idx[off + k]), _INDEX)
                         for k, n in enumerate(e)]
                v = load_mem(b, element_pointer(b, t, v, items), t.dtype)
                t = t.dtype
            vals.append(lc.cast(v, t, want))
        r = lc.cast(scalar(lc, node, vals, inner), loop.inner.return_type, oty.dtype)
        store_mem(b, element_pointer(b, oty, out, [(i, _INDEX) for i in idx]), r, oty.dtype)

    with b.if_then(ok):
        _nest(lc, oext, element)
    return out
