"""``for x in iterable`` over arrays (elements, or rows of n-d arrays), tuples,
``enumerate(...)`` and ``zip(...)``: a counted loop over the shortest length,
each iteration building the element and assigning it to the loop target."""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.types import int64
from cudalite.core.typing import ArrayIter, EnumerateIter, RangeIter, TupleIter, ZipIter

from ._elements import element_pointer, load_mem
from ._constants import array_struct
from ._irtypes import I64, value_type
from ._loops import counted_loop, trip_count
from ._ranges import RangeHint

__all__ = ["lower_for_iter"]


class _Source:
    """One iterated value: its length and how to get element ``j``."""

    def __init__(self, lc, plan):
        self.lc = lc
        self.plan = plan
        b = lc.builder
        if isinstance(plan, ArrayIter):
            self.arr, self.aty = lc.expr(plan.node), plan.type
            self.length = b.extract_value(self.arr, [1, 0])
        elif isinstance(plan, TupleIter):
            tty, elem = plan.type, plan.elem
            tup = lc.expr(plan.node)
            self.slot = lc.alloca(ir.ArrayType(value_type(elem), len(tty.types)))
            if all(t == elem for t in tty.types) and tup.type == self.slot.type.pointee:
                b.store(tup, self.slot)  # already an [n x T] array: one store
            else:
                for i, t in enumerate(tty.types):
                    item = lc.cast(b.extract_value(tup, i), t, elem)
                    b.store(item, b.gep(self.slot, [ir.Constant(I64, 0), ir.Constant(I64, i)]))
            self.length = ir.Constant(I64, len(tty.types))
        elif isinstance(plan, EnumerateIter):
            start = plan.start
            self.inner = _Source(lc, plan.inner)
            self.length = self.inner.length
            self.start = (ir.Constant(I64, 0) if start is None
                          else lc.cast(lc.expr(start), lc.typeof(start), int64))
        elif isinstance(plan, RangeIter):
            args = [lc.cast(lc.expr(a), lc.typeof(a), int64) for a in plan.args]
            zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)
            start, stop, step = (zero, args[0], one) if len(args) == 1 else (
                (args[0], args[1], one) if len(args) == 2 else tuple(args))
            self.start, self.step = start, step
            const_step = lc.tf.consts.get(plan.args[2]) if len(plan.args) == 3 else 1
            self.const_step = const_step if isinstance(const_step, int) and not isinstance(const_step, bool) else None
            self.hint = RangeHint("range", (start, stop), self.const_step)
            self.length = trip_count(b, start, stop, step, const_step, True)
        elif isinstance(plan, ZipIter):
            self.parts = [_Source(lc, p) for p in plan.parts]
            length = self.parts[0].length
            for p in self.parts[1:]:
                length = b.select(b.icmp_unsigned("<", p.length, length), p.length, length)
            self.length = length
        else:
            raise TypeError(f"no lowering for the iteration plan {plan!r}")

    def element(self, j, ety):
        b = self.lc.builder
        plan = self.plan
        if isinstance(plan, ArrayIter):
            if self.aty.ndim == 1:
                p = element_pointer(b, self.aty, self.arr, [(j, int64)])
                return load_mem(b, p, self.aty.dtype)
            p = element_pointer(b, self.aty, self.arr, [(j, int64)])
            shape = [b.extract_value(self.arr, [1, k]) for k in range(1, self.aty.ndim)]
            strides = [b.extract_value(self.arr, [2, k]) for k in range(1, self.aty.ndim)]
            return array_struct(b, ety, p, shape, strides)
        if isinstance(plan, TupleIter):
            return b.load(b.gep(self.slot, [ir.Constant(I64, 0), j]))
        if isinstance(plan, RangeIter):
            # start + j * step lies between start and stop (the hint); the product alone
            # may wrap (a span over 2**63 with a large step), so it has no flags.  With
            # step 1, start + j cannot wrap unless j >= 2**63 (as many iterations).
            if self.const_step == 1:
                v = b.add(self.start, j, flags=("nsw",))
            else:
                v = b.add(self.start, b.mul(j, self.step))
            self.lc.range_hints[v] = self.hint
            return v
        out = ir.Constant(value_type(ety), ir.Undefined)
        if isinstance(plan, EnumerateIter):
            out = b.insert_value(out, b.add(j, self.start), 0)
            return b.insert_value(out, self.inner.element(j, ety.types[1]), 1)
        for i, (part, t) in enumerate(zip(self.parts, ety.types)):
            out = b.insert_value(out, part.element(j, t), i)
        return out


def lower_for_iter(lc, s, info):
    ety = info.sig.return_type
    src = _Source(lc, info.payload)

    def bind(j):
        lc.store_target(s.target, src.element(j, ety), ety)

    counted_loop(lc, "iter", src.length, I64, bind).body(s.body)

