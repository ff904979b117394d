"""``for i in range(start, stop, step)`` as a counted loop.

The trip count is computed once before the loop, like CPython's range length
(``ceil((stop - start) / step)``, 0 when empty; a zero step runs no iteration
instead of raising).  The loop then counts ``j`` from 0 to that count while ``i``
advances by ``step``: a canonical loop whose trip count the optimizer knows, so
grid-stride loops unroll and keep several loads in flight.  ``i`` is stored into
the user's variable at the top of each iteration, so the body may reassign it
without changing the iteration (Python semantics).
"""

from __future__ import annotations

from llvmlite import ir

__all__ = ["lower_for_range"]


def _count_up(b, lo, hi, step, gt):
    """Iterations from lo while < hi with a positive ``step`` (0 when hi <= lo)."""
    one = ir.Constant(lo.type, 1)
    span = b.sub(hi, lo)
    n = b.add(b.udiv(b.sub(span, one), step), one)
    return b.select(gt(">", hi, lo), n, ir.Constant(lo.type, 0))


def trip_count(b, start, stop, step, const_step, signed):
    gt = b.icmp_signed if signed else b.icmp_unsigned
    lty = start.type
    zero, one = ir.Constant(lty, 0), ir.Constant(lty, 1)
    if isinstance(const_step, int) and not isinstance(const_step, bool):
        if const_step > 0:
            return _count_up(b, start, stop, ir.Constant(lty, const_step), gt)
        return _count_up(b, stop, start, ir.Constant(lty, -const_step), gt)
    is_zero = b.icmp_unsigned("==", step, zero)
    if not signed:
        return b.select(is_zero, zero, _count_up(b, start, stop, b.select(is_zero, one, step), gt))
    # one division whatever the sign: distance and stride both made positive first
    up = b.icmp_signed(">", step, zero)
    lo, hi = b.select(up, start, stop), b.select(up, stop, start)
    stride = b.select(up, step, b.select(is_zero, one, b.sub(zero, step)))
    return b.select(is_zero, zero, _count_up(b, lo, hi, stride, gt))


def lower_for_range(lc, s, ity, start, stop, step):
    b = lc.builder
    lty = start.type
    const_step = lc.tf.consts.get(s.step)
    if isinstance(const_step, int) and const_step == 0:
        raise lc.error("range() arg 3 must not be zero", s.step.loc)
    count = trip_count(b, start, stop, step, const_step, getattr(ity, "signed", True))
    j_slot = lc.alloca(lty, name=f"{s.target}.trip")
    i_slot = lc.alloca(lty, name=f"{s.target}.iter")
    b.store(ir.Constant(lty, 0), j_slot)
    b.store(start, i_slot)
    cond_bb = lc.fn.append_basic_block("for.cond")
    body_bb = lc.fn.append_basic_block("for.body")
    incr_bb = lc.fn.append_basic_block("for.incr")
    end_bb = lc.fn.append_basic_block("for.end")
    b.branch(cond_bb)
    b.position_at_end(cond_bb)
    b.cbranch(b.icmp_unsigned("<", b.load(j_slot), count), body_bb, end_bb)
    b.position_at_end(body_bb)
    b.store(b.load(i_slot), lc.slots[s.target])
    lc.loops.append((incr_bb, end_bb))
    lc.block(s.body)
    lc.loops.pop()
    if not b.block.is_terminated:
        b.branch(incr_bb)
    b.position_at_end(incr_bb)
    # a range's values never overflow (they stay between start and stop): say so
    b.store(b.add(b.load(j_slot), ir.Constant(lty, 1), flags=("nuw", "nsw")), j_slot)
    signed = getattr(ity, "signed", True)
    b.store(b.add(b.load(i_slot), step, flags=("nsw",) if signed else ("nuw",)), i_slot)
    b.branch(cond_bb)
    b.position_at_end(end_bb)
