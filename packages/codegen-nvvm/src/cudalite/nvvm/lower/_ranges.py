"""Integer value ranges: where ``nsw``/``nuw`` are *proved*, and only there.

User integer arithmetic wraps (two's complement; numba-cuda's own ``nsw`` makes
its overflow poison instead: docs/compat.md, "Known differences found by the
differential fuzzer"), so ``+ - *`` are emitted without ``nsw``/``nuw`` flags.  Flags let the optimizer drop
negative-index checks and widen induction variables, so after a function is
lowered :func:`prove_no_wrap` computes an interval for every integer value it
can bound and adds ``nsw`` to each ``add``/``sub``/``mul`` whose exact result
fits the type's signed range (``nuw`` when both operands are non-negative and the
unsigned result fits too).  Nothing is guessed: a value the analysis cannot bound
is the type's full range.

Where bounds come from (the rule docs/language.md states):

* integer constants;
* special registers, from the ``!range`` metadata ``read_sreg`` attaches (CUDA's
  limits: ``threadIdx.x/y`` in [0, 1024), ``threadIdx.z`` in [0, 64),
  ``blockDim.x/y`` in [1, 1024], ``blockDim.z`` in [1, 64], ``blockIdx.x`` in
  [0, 2**31 - 1), ``blockIdx.y/z`` in [0, 65535), ``gridDim.x`` in [1, 2**31 - 1],
  ``gridDim.y/z`` in [1, 65535], ``laneid`` in [0, 32), ``warpsize`` 32), so
  ``cuda.grid``/``gridsize`` and ``threadIdx.x + blockIdx.x * blockDim.x`` (at most
  2**41 in 64 bits) are proved;
* the value of a ``range`` loop variable inside the loop (lies between start and
  stop), and of Python's ``//`` and ``%`` by a divisor of known sign (hints the
  loop and operator lowerings leave in ``lc.range_hints``);
* casts (``sext``, ``zext``, ``trunc`` when the value fits), ``and`` with a
  non-negative operand, shifts by a constant, ``select``/``phi`` (the union);
* local variables: the union of every value stored into the variable's slot, a
  fixed point over the whole function (a bound that keeps growing is widened to
  the next of 0, +-2**31, the type's limits, then given up after a few rounds).

The slots are the ``alloca``\\ s used only by plain loads and stores; a slot whose
address goes anywhere else (a call, a ``getelementptr``) is unbounded.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

__all__ = ["RangeHint", "prove_no_wrap"]

_ARITH = ("add", "sub", "mul")
_MAX_CHANGES = 6  # a slot's bound that changed this often is given up (full range)
_MAX_ROUNDS = 64  # no fixed point within this many rounds: prove nothing


@dataclass(frozen=True, eq=False)
class RangeHint:
    """What a lowering knows about the value it made.

    ``kind`` is ``"range"`` (a range loop's value: ``operands`` are start and
    stop, ``step`` the constant step or ``None``), ``"floordiv"`` or ``"mod"``
    (Python's ``//``/``%``: ``operands`` are the dividend and the divisor);
    ``signed`` is the Python type's signedness."""

    kind: str
    operands: tuple
    step: object = None
    signed: bool = True


def prove_no_wrap(fn: ir.Function, hints: dict) -> None:
    """Add ``nsw``/``nuw`` to the integer ``add``/``sub``/``mul`` of ``fn`` whose
    result provably does not wrap (flags already there are kept)."""
    arith, slots, stores = [], {}, {}
    escaped = set()
    for block in fn.blocks:
        for ins in block.instructions:
            if isinstance(ins, ir.AllocaInstr):
                if isinstance(ins.allocated_type, ir.IntType):
                    slots[ins] = None
                continue
            if ins.opname in _ARITH and isinstance(ins.type, ir.IntType):
                arith.append(ins)
            if isinstance(ins, ir.LoadInstr):
                continue
            ops = list(ins.operands)
            if isinstance(ins, ir.StoreInstr):
                value, ptr = ops
                if isinstance(ptr, ir.AllocaInstr):
                    stores.setdefault(ptr, []).append(value)
                ops = [value]
            for op in ops:
                if isinstance(op, ir.AllocaInstr):
                    escaped.add(op)
    if not arith:
        return
    state = {}
    for slot in slots:
        n = slot.allocated_type.width
        state[slot] = _full(n) if slot in escaped or slot not in stores else None
    stores = {s: v for s, v in stores.items() if s in state and state[s] is None}
    if not _fixed_point(state, stores, hints):
        return
    ev = _Evaluator(state, hints)
    for ins in arith:
        a, b = ev.range(ins.operands[0]), ev.range(ins.operands[1])
        if a is None or b is None:
            continue
        n = ins.type.width
        lo, hi = _exact(ins.opname, a, b)
        flags = []
        if _fits(lo, hi, n):
            if a[0] >= 0 and b[0] >= 0 and (ins.opname != "sub" or a[0] >= b[1]) and hi < 2 ** n:
                flags.append("nuw")
            flags.append("nsw")
        new = [f for f in flags if f not in ins.flags]
        if new:
            ins.flags[:] = [f for f in ("nuw", "nsw") if f in ins.flags or f in new] + \
                [f for f in ins.flags if f not in ("nuw", "nsw")]
            ins._clear_string_cache()


def _fixed_point(state, stores, hints):
    """Grow each slot's range to the union of what is stored into it (Jacobi
    rounds, widened); False if it does not settle."""
    changes = dict.fromkeys(stores, 0)
    for _ in range(_MAX_ROUNDS):
        ev = _Evaluator(state, hints)
        new = {}
        for slot, values in stores.items():
            acc = None
            for v in values:
                acc = _union(acc, ev.range(v))
            new[slot] = acc
        changed = False
        for slot, r in new.items():
            old = state[slot]
            u = _union(old, r)
            if u == old:
                continue
            n = slot.allocated_type.width
            if old is not None:
                changes[slot] += 1
                u = _widen(old, u, n) if changes[slot] < _MAX_CHANGES else _full(n)
            state[slot] = u
            changed = True
        if not changed:
            return True
    return False


class _Evaluator:
    """Ranges of values under fixed slot ranges (memoised; iterative, so deep
    expressions need no recursion; a cycle through ``phi`` is unbounded)."""

    def __init__(self, state, hints):
        self.state = state
        self.hints = hints
        self.memo = {}  # id(value) -> range (ids: a Constant hashes its text; the values outlive this)

    def range(self, v):
        memo = self.memo
        if id(v) in memo:
            return memo[id(v)]
        stack, visiting = [v], set()
        while stack:
            x = stack[-1]
            if id(x) in memo:
                stack.pop()
                continue
            pending = [d for d in self._deps(x) if id(d) not in memo and id(d) not in visiting]
            if pending and id(x) not in visiting:
                visiting.add(id(x))
                stack.extend(pending)
                continue
            memo[id(x)] = self._transfer(x)
            stack.pop()
        return memo[id(v)]

    def _deps(self, x):
        if not isinstance(x, ir.Instruction):
            return ()
        hint = self.hints.get(x)
        if hint is not None:
            return hint.operands
        if isinstance(x, ir.PhiInstr):
            return [v for v, _ in x.incomings]
        if isinstance(x, ir.SelectInstr):
            return x.operands[1:]
        if isinstance(x, ir.ExtractValue):
            src = _inserted(x)
            return (src,) if src is not None else ()
        if x.opname in _DEPS_OPS:
            return x.operands
        return ()

    def _get(self, v):
        """A dependency's range (one on a cycle being evaluated: unbounded)."""
        r = self.memo.get(id(v), self)
        if r is not self:
            return r
        return _full(v.type.width) if isinstance(v.type, ir.IntType) else None

    def _transfer(self, x):
        t = x.type
        if not isinstance(t, ir.IntType):
            return None
        n = t.width
        if isinstance(x, ir.Constant):
            c = x.constant
            if isinstance(c, bool) or isinstance(c, int):
                c = _signed(int(c), n)
                return (c, c)
            return _full(n)
        if not isinstance(x, ir.Instruction):
            return _full(n)
        hint = self.hints.get(x)
        if hint is not None:
            return _clip(_hinted(hint, [self._get(v) for v in hint.operands]), n)
        md = x.metadata.get("range") if isinstance(x.metadata, dict) else None
        if md is not None:
            return _from_md(md, n)
        if isinstance(x, ir.LoadInstr):
            ptr = x.operands[0]
            return self.state.get(ptr, _full(n)) if isinstance(ptr, ir.AllocaInstr) else _full(n)
        if isinstance(x, ir.PhiInstr):
            acc = None
            for v, _ in x.incomings:
                acc = _union(acc, self._get(v))
            return acc
        if isinstance(x, ir.SelectInstr):
            return _union(self._get(x.operands[1]), self._get(x.operands[2]))
        if isinstance(x, ir.ExtractValue):
            src = _inserted(x)
            return self._get(src) if src is not None else _full(n)
        op = x.opname
        if op not in _DEPS_OPS:
            return _full(n)
        args = [self._get(v) for v in x.operands]
        if any(a is None for a in args):
            return None  # depends on a value never defined (yet): nothing to bound
        if op in _ARITH:
            lo, hi = _exact(op, *args)
            return (lo, hi) if _fits(lo, hi, n) else _full(n)
        (a, *rest) = args
        if op == "sext":
            return a
        if op == "zext":
            return a if a[0] >= 0 else (0, 2 ** x.operands[0].type.width - 1)
        if op == "trunc":
            return a if _fits(a[0], a[1], n) else _full(n)
        b = rest[0]
        if op == "and":
            his = [r[1] for r in (a, b) if r[0] >= 0]
            return (0, min(his)) if his else _full(n)
        if b[0] == b[1] and 0 <= b[0] < n:  # shift by a constant
            k = b[0]
            if op == "ashr" or (op == "lshr" and a[0] >= 0):
                return (a[0] >> k, a[1] >> k)
        return _full(n)


def _inserted(x, limit=64):
    """The value an ``extractvalue`` reads, found down the chain of ``insertvalue``\\ s
    that built its aggregate (a tuple such as ``cuda.grid(2)``); None if unknown."""
    idx, agg = tuple(x.indices), x.aggregate
    for _ in range(limit):
        if isinstance(agg, ir.ExtractValue):
            idx, agg = tuple(agg.indices) + idx, agg.aggregate
        elif isinstance(agg, ir.InsertValue):
            at = tuple(agg.indices)
            if at == idx:
                return agg.value
            n = min(len(at), len(idx))
            if at[:n] == idx[:n]:
                if len(at) > len(idx):
                    return None  # reads a part of what was inserted only in pieces
                idx, agg = idx[n:], agg.value
            else:
                agg = agg.aggregate
        else:
            return None
    return None


_DEPS_OPS = frozenset(_ARITH + ("sext", "zext", "trunc", "and", "lshr", "ashr"))


def _hinted(hint, ranges):
    if any(r is None for r in ranges):
        return None
    if hint.kind == "range":
        (s, e) = ranges
        if not hint.signed and (s[0] < 0 or e[0] < 0):
            return "full"
        step = hint.step
        if isinstance(step, int) and step > 0:
            lo, hi = s[0], e[1] - 1
        elif isinstance(step, int) and step < 0:
            lo, hi = e[0] + 1, s[1]
        else:
            lo, hi = min(s[0], e[0]), max(s[1], e[1])
        return (lo, hi) if lo <= hi else None  # empty: the loop body never runs
    a, d = ranges
    if not hint.signed and (a[0] < 0 or d[0] < 0):
        return "full"
    if hint.kind == "floordiv":
        zero = d[0] <= 0 <= d[1]
        if d[0] >= 0 or d[1] <= 0:
            d = (max(d[0], 1), d[1]) if d[1] > 0 else (d[0], min(d[1], -1))
            if d[0] > d[1]:
                return (0, 0)  # the divisor is 0: Python's // here gives 0
            qs = [x // y for x in a for y in d]
            lo, hi = min(qs), max(qs)
            return (min(lo, 0), max(hi, 0)) if zero else (lo, hi)
        return "full"
    if hint.kind == "mod":
        if d[0] >= 0:
            hi = max(d[1] - 1, 0)
            return (0, min(hi, a[1])) if a[0] >= 0 else (0, hi)
        if d[1] <= 0:
            return (min(d[0] + 1, 0), 0)
    return "full"


def _clip(r, n):
    if r == "full":
        return _full(n)
    if r is None:
        return None
    return r if _fits(r[0], r[1], n) else _full(n)


def _from_md(md, n):
    try:
        lo, hi = (_signed(int(c.constant), n) for c in md.operands[:2])
    except (AttributeError, TypeError, ValueError):
        return _full(n)
    return (lo, hi - 1) if lo < hi else _full(n)


def _exact(op, a, b):
    if op == "add":
        return a[0] + b[0], a[1] + b[1]
    if op == "sub":
        return a[0] - b[1], a[1] - b[0]
    ps = [x * y for x in a for y in b]
    return min(ps), max(ps)


def _signed(c, n):
    half = 1 << (n - 1)
    return ((c + half) % (1 << n)) - half


def _full(n):
    return (-(1 << (n - 1)), (1 << (n - 1)) - 1)


def _fits(lo, hi, n):
    return -(1 << (n - 1)) <= lo and hi < (1 << (n - 1))


def _union(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return (min(a[0], b[0]), max(a[1], b[1]))


def _widen(old, new, n):
    """``new`` (which holds ``old``) with each bound that moved pushed out to the
    next threshold: 0, +-2**31, the type's limits."""
    lo_t = sorted({-(1 << (n - 1)), 0} | ({-(1 << 31)} if n > 32 else set()))
    hi_t = sorted({(1 << (n - 1)) - 1, 0} | ({(1 << 31) - 1} if n > 32 else set()))
    lo, hi = new
    if lo < old[0]:
        lo = max(t for t in lo_t if t <= lo)
    if hi > old[1]:
        hi = min(t for t in hi_t if t >= hi)
    return (lo, hi)
