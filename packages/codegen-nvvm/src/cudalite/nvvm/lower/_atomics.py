"""Lowering of ``cuda.atomic.*`` (every operation returns the old value).

Integer operations map to LLVM 7 ``atomicrmw`` (``add sub and or xor xchg max
min umax umin``); float add uses ``llvm.nvvm.atomic.load.add.f32/f64`` (LLVM 7
has no ``atomicrmw fadd``); 32-bit ``inc``/``dec`` use
``llvm.nvvm.atomic.load.inc/dec.32``; float max/min, 64-bit inc/dec and float
CAS go through an integer ``cmpxchg`` (loop) on the value's bits.
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api
from cudalite.core.types import Float, Tuple

from ._boundscheck import check_indices
from ._floats import fneg
from ._elements import element_pointer
from ._irtypes import I1, ptr
from ._registry import lowerings

__all__ = ["cas_loop", "atomic_pointer"]

_ORDER = "monotonic"
_INT_RMW = {"add": "add", "sub": "sub", "and_": "and", "or_": "or", "xor": "xor", "exch": "xchg"}


def atomic_pointer(lc, aty, arr, idx, ity, loc=None):
    """The element's pointer (its indices checked under ``boundscheck``, at ``loc``)."""
    b = lc.builder
    if isinstance(ity, Tuple):
        items = [(b.extract_value(idx, i), t) for i, t in enumerate(ity.types)]
    else:
        items = [(idx, ity)]
    check_indices(lc, aty, arr, items, loc)
    return element_pointer(b, aty, arr, items)


def _int_view(lc, p, lty):
    """``p`` as a pointer to the same-width integer (floats are CAS'ed as bits)."""
    if isinstance(lty, ir.IntType):
        return p, lty
    ity = ir.IntType(64 if isinstance(lty, ir.DoubleType) else 32)
    return lc.builder.bitcast(p, ptr(ity)), ity


def cas_loop(lc, p, lty, update):
    """Atomically replace ``*p`` by ``update(old)``'s new value while it asks to.

    ``update(old) -> (store: i1, new)`` works on values of ``lty``; the loop
    retries until ``cmpxchg`` succeeds or ``update`` declines.  Returns the old value.
    """
    b = lc.builder
    ip, ity = _int_view(lc, p, lty)
    entry = b.block
    loop = lc.fn.append_basic_block("atomic.loop")
    attempt = lc.fn.append_basic_block("atomic.attempt")
    done = lc.fn.append_basic_block("atomic.done")
    first = b.load(ip)
    b.branch(loop)
    b.position_at_end(loop)
    old_bits = b.phi(ity)
    old_bits.add_incoming(first, entry)
    old = old_bits if ity is lty else b.bitcast(old_bits, lty)
    store, new = update(old)
    b.cbranch(store, attempt, done)
    b.position_at_end(attempt)
    new_bits = new if ity is lty else b.bitcast(new, ity)
    pair = b.cmpxchg(ip, old_bits, new_bits, _ORDER, _ORDER)
    seen = b.extract_value(pair, 0)
    ok = b.extract_value(pair, 1)
    old_bits.add_incoming(seen, attempt)
    b.cbranch(ok, done, loop)
    b.position_at_end(done)
    return old


def _is_nan(b, v):
    return b.fcmp_unordered("uno", v, v)


def _float_minmax(op):
    """``max``/``min`` keep a NaN already in memory and ignore a NaN value;
    ``nanmax``/``nanmin`` treat NaN as missing on both sides."""
    cmp = ">" if op.endswith("max") else "<"

    def update(b, val):
        def f(old):
            better = b.fcmp_ordered(cmp, val, old)
            if op.startswith("nan"):
                better = b.or_(better, b.and_(_is_nan(b, old), b.not_(_is_nan(b, val))))
            return better, val

        return f

    return update


def _rmw(lc, op, p, val, dtype):
    b = lc.builder
    if isinstance(dtype, Float):
        width = dtype.bitwidth
        if op in ("add", "sub"):
            v = fneg(b, val) if op == "sub" else val
            name = f"llvm.nvvm.atomic.load.add.f{width}.p0f{width}"
            fn = lc.module.declare(name, ir.FunctionType(val.type, [p.type, val.type]))
            return b.call(fn, [p, v])
        if op == "exch":  # an integer exchange of the bits
            ip, ity = _int_view(lc, p, val.type)
            return b.bitcast(b.atomic_rmw("xchg", ip, b.bitcast(val, ity), _ORDER), val.type)
        return cas_loop(lc, p, val.type, _float_minmax(op)(b, val))
    if op in _INT_RMW:
        return b.atomic_rmw(_INT_RMW[op], p, val, _ORDER)
    if op in ("max", "min", "nanmax", "nanmin"):
        kind = op[-3:] if dtype.signed else "u" + op[-3:]
        return b.atomic_rmw(kind, p, val, _ORDER)
    if op in ("inc", "dec"):
        return _inc_dec(lc, op, p, val)
    raise AssertionError(op)


def _inc_dec(lc, op, p, val):
    b = lc.builder
    lty = val.type
    if lty.width == 32:
        fn = lc.module.declare(f"llvm.nvvm.atomic.load.{op}.32.p0i32", ir.FunctionType(lty, [p.type, lty]))
        return b.call(fn, [p, val])
    one, zero = ir.Constant(lty, 1), ir.Constant(lty, 0)

    def update(old):
        if op == "inc":  # old >= val ? 0 : old + 1
            new = b.select(b.icmp_unsigned(">=", old, val), zero, b.add(old, one))
        else:  # old == 0 or old > val ? val : old - 1
            wrap = b.or_(b.icmp_unsigned("==", old, zero), b.icmp_unsigned(">", old, val))
            new = b.select(wrap, val, b.sub(old, one))
        return ir.Constant(I1, 1), new

    return cas_loop(lc, p, lty, update)


def _rmw_lowering(lc, node, args, info):
    arr, idx, val = args
    aty, ity, _ = info.sig.args
    p = atomic_pointer(lc, aty, arr, idx, ity, node.loc)
    return _rmw(lc, info.payload.op, p, val, aty.dtype)


lowerings.call(*(getattr(api.atomic, op) for op in (
    "add", "sub", "and_", "or_", "xor", "max", "min", "nanmax", "nanmin", "exch", "inc", "dec",
)))(_rmw_lowering)


def _compare_swap(lc, p, old, val):
    b = lc.builder
    lty = old.type
    ip, ity = _int_view(lc, p, lty)
    if ity is not lty:
        old, val = b.bitcast(old, ity), b.bitcast(val, ity)
    seen = b.extract_value(b.cmpxchg(ip, old, val, _ORDER, _ORDER), 0)
    return seen if ity is lty else b.bitcast(seen, lty)


@lowerings.call(api.atomic.cas)
def _cas(lc, node, args, info):
    arr, idx, old, val = args
    aty, ity = info.sig.args[:2]
    return _compare_swap(lc, atomic_pointer(lc, aty, arr, idx, ity, node.loc), old, val)


@lowerings.call(api.atomic.compare_and_swap)
def _compare_and_swap(lc, node, args, info):
    arr, old, val = args
    p = lc.builder.extract_value(arr, 0)
    return _compare_swap(lc, p, old, val)
