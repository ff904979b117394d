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

from ._ranges import RangeHint

__all__ = ["lower_for_range", "counted_loop", "trip_count"]


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
    if _is_int(const_step):
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


def counted_loop(lc, name, count, lty, on_iteration, on_step=None):
    """``for j in 0..count``: ``on_iteration(j)`` stores the loop variables at the top
    of each iteration, then the body runs; ``on_step()`` advances extra induction
    variables.  ``continue`` goes to the step, ``break`` past the loop."""
    b = lc.builder
    j_slot = lc.alloca(lty, name=f"{name}.trip")
    b.store(ir.Constant(lty, 0), j_slot)
    cond_bb = lc.fn.append_basic_block("for.cond")
    body_bb = lc.fn.append_basic_block("for.body")
    incr_bb = lc.fn.append_basic_block("for.incr")
    end_bb = lc.fn.append_basic_block("for.end")
    b.branch(cond_bb)
    b.position_at_end(cond_bb)
    b.cbranch(b.icmp_unsigned("<", b.load(j_slot), count), body_bb, end_bb)
    b.position_at_end(body_bb)
    return _Loop(lc, j_slot, lty, (cond_bb, incr_bb, end_bb), on_iteration, on_step)


class _Loop:
    """An open counted loop: the caller lowers its ``body`` to close it."""

    def __init__(self, lc, j_slot, lty, blocks, on_iteration, on_step):
        self.lc, self.j_slot, self.lty = lc, j_slot, lty
        self.cond_bb, self.incr_bb, self.end_bb = blocks
        self.on_step = on_step
        on_iteration(lc.builder.load(j_slot))

    def body(self, stmts):
        lc, b = self.lc, self.lc.builder
        lc.loops.append((self.incr_bb, self.end_bb))
        lc.block(stmts)
        lc.loops.pop()
        if not b.block.is_terminated:
            b.branch(self.incr_bb)
        b.position_at_end(self.incr_bb)
        # j < count, so j + 1 <= count cannot wrap unsigned; signed, it could only after
        # 2**63 iterations (centuries of GPU time): both flags hold.
        b.store(b.add(b.load(self.j_slot), ir.Constant(self.lty, 1), flags=("nuw", "nsw")), self.j_slot)
        if self.on_step is not None:
            self.on_step()
        b.branch(self.cond_bb)
        b.position_at_end(self.end_bb)


def lower_for_range(lc, s, ity, start, stop, step):
    b = lc.builder
    lty = start.type
    const_step = lc.tf.consts.get(s.step)
    if isinstance(const_step, int) and const_step == 0:
        raise lc.error("range() arg 3 must not be zero", s.step.loc)
    signed = getattr(ity, "signed", True)
    count = trip_count(b, start, stop, step, const_step, signed)
    i_slot = lc.alloca(lty, name=f"{s.target}.iter")
    b.store(start, i_slot)

    def step_i():
        # The incremented value is read only when another iteration follows, and then
        # it is a value of the range (between start and stop): it cannot wrap.  (The
        # increment after the last iteration may wrap; that value is never used.)
        b.store(b.add(b.load(i_slot), step, flags=("nsw",) if signed else ("nuw",)), i_slot)

    hint = RangeHint("range", (start, stop), const_step if _is_int(const_step) else None, signed)
    target = lc.tf.fir.ssa.defs[s]  # this loop's version of the user's variable

    def bind(j):
        i = b.load(i_slot)
        lc.range_hints[i] = hint  # inside the loop, i lies between start and stop
        lc.define(target, i, ity)

    loop = counted_loop(lc, s.target, count, lty, bind, step_i)
    loop.body(s.body)


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)
