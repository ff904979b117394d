"""Lowering of NumPy's whole-array reductions (``np.sum(a)``, ``a.max()``,
``np.nanmean(a)`` ...; typed by :mod:`cudalite.core.typing.rules.reductions`).

As numba-cuda, the calling thread visits every element in C order and
accumulates sequentially in the result type.  NaN rules are NumPy's:
``min``/``max``/``argmin``/``argmax`` propagate the first NaN, the ``nan``
variants skip NaNs (``nanmin``/``nanmax`` of all NaNs is NaN; ``nanmean`` of no
numbers is NaN, 0/0); ``var`` is the mean of squared deviations from the mean
(ddof 0) and ``std`` its square root.  The ``min``/``max`` of an empty array is
the reduction's identity (+inf/-inf or the integer extreme): numba raises
ValueError there, which a kernel compiled without ``debug`` ignores as well.
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.types import Array, Boolean, Float, Integer
from cudalite.core.typing.rules.reductions import REDUCTION_METHODS, reduction_functions

from ._casts import truth
from ._elements import element_pointer, load_mem
from ._irtypes import I1, I64
from ._math import is_nan, libm
from ._registry import lowerings
from ._ufunc_loops import _INDEX, _nest

__all__ = ["lower_reduction", "register_reduction_lowerings"]


def _each(lc, aty: Array, arr, body):
    """Calls ``body(value, flat_index)`` for every element of ``arr`` in C order."""
    b = lc.builder
    ext = [b.extract_value(arr, [1, k]) for k in range(aty.ndim)]
    counter = lc.alloca(I64, name="reduce.n")
    b.store(ir.Constant(I64, 0), counter)

    def element(idx):
        v = load_mem(b, element_pointer(b, aty, arr, [(i, _INDEX) for i in idx]), aty.dtype)
        n = b.load(counter)
        body(v, n)
        b.store(b.add(n, ir.Constant(I64, 1)), counter)

    _nest(lc, ext, element)


def _size(lc, aty, arr):
    b = lc.builder
    n = ir.Constant(I64, 1)
    for k in range(aty.ndim):
        n = b.mul(n, b.extract_value(arr, [1, k]))
    return n


def _is_float(t):
    return isinstance(t, Float)


def _extreme(t, lty, high):
    """The identity of min (``high``) or max: +-inf, or the integer type's extreme."""
    if _is_float(t):
        return ir.Constant(lty, float("inf") if high else float("-inf"))
    if isinstance(t, Boolean):
        return ir.Constant(lty, 1 if high else 0)
    bits = t.bitwidth
    if t.signed:
        return ir.Constant(lty, (1 << (bits - 1)) - 1 if high else -(1 << (bits - 1)))
    return ir.Constant(lty, (1 << bits) - 1 if high else 0)


def _less(b, t, x, y, want_min):
    """x strictly better than y (smaller for min, larger for max); ordered for floats."""
    op = "<" if want_min else ">"
    if _is_float(t):
        return b.fcmp_ordered(op, x, y)
    if isinstance(t, Integer) and t.signed:
        return b.icmp_signed(op, x, y)
    return b.icmp_unsigned(op, x, y)


def _accumulate(lc, aty, arr, rt, op, skip_nan):
    """sum/prod of the elements (converted to ``rt``); NaNs skipped when ``skip_nan``.
    Returns (total, count of the elements taken)."""
    b = lc.builder
    lty = lc.cast(ir.Constant(I64, 0), Integer(64, True), rt).type
    acc = lc.alloca(lty, name="reduce.acc")
    cnt = lc.alloca(I64, name="reduce.cnt")
    init = 0 if op == "+" else 1
    b.store(ir.Constant(lty, float(init) if _is_float(rt) else init), acc)
    b.store(ir.Constant(I64, 0), cnt)

    def body(v, _n):
        x = lc.cast(v, aty.dtype, rt)

        def take():
            if _is_float(rt):
                r = (b.fadd if op == "+" else b.fmul)(b.load(acc), x)
            else:
                r = (b.add if op == "+" else b.mul)(b.load(acc), x)
            b.store(r, acc)
            b.store(b.add(b.load(cnt), ir.Constant(I64, 1)), cnt)

        if skip_nan and _is_float(aty.dtype):
            with b.if_then(b.not_(is_nan(b, v))):
                take()
        else:
            take()

    _each(lc, aty, arr, body)
    return b.load(acc), b.load(cnt)


def _to_float(b, n, lty):
    return b.sitofp(n, lty)


def _mean(lc, aty, arr, rt, skip_nan):
    b = lc.builder
    total, cnt = _accumulate(lc, aty, arr, rt, "+", skip_nan)
    return b.fdiv(total, _to_float(b, cnt, total.type)), cnt


def _var(lc, aty, arr, rt, skip_nan):
    b = lc.builder
    mean, cnt = _mean(lc, aty, arr, rt, skip_nan)
    acc = lc.alloca(mean.type, name="reduce.ssd")
    b.store(ir.Constant(mean.type, 0.0), acc)

    def body(v, _n):
        def take():
            d = b.fsub(lc.cast(v, aty.dtype, rt), mean)
            b.store(b.fadd(b.load(acc), b.fmul(d, d)), acc)

        if skip_nan and _is_float(aty.dtype):
            with b.if_then(b.not_(is_nan(b, v))):
                take()
        else:
            take()

    _each(lc, aty, arr, body)
    return b.fdiv(b.load(acc), _to_float(b, cnt, mean.type))


def _extremum(lc, aty, arr, want_min, skip_nan, want_index):
    """min/max (or the flat index of the first one); NaN propagates unless ``skip_nan``."""
    b = lc.builder
    t = aty.dtype
    lty = I1 if isinstance(t, Boolean) else lc.cast(ir.Constant(I64, 0), Integer(64, True), t).type
    acc = lc.alloca(lty, name="reduce.best")
    idx = lc.alloca(I64, name="reduce.idx")
    seen = lc.alloca(I1, name="reduce.seen")
    b.store(_extreme(t, lty, want_min), acc)
    b.store(ir.Constant(I64, 0), idx)
    b.store(ir.Constant(I1, 0), seen)

    def body(v, n):
        cur = b.load(acc)
        better = _less(b, t, v, cur, want_min)
        if _is_float(t):
            nan_v = is_nan(b, v)
            if skip_nan:
                better = b.and_(b.not_(nan_v), b.or_(better, b.not_(b.load(seen))))
                b.store(b.or_(b.load(seen), b.not_(nan_v)), seen)
            else:  # the first NaN wins and stays (nothing compares better than it)
                better = b.and_(b.not_(is_nan(b, cur)), b.or_(nan_v, better))
        elif want_index:  # the first element is the answer until a better one comes
            better = b.or_(better, b.icmp_unsigned("==", n, ir.Constant(I64, 0)))
        b.store(b.select(better, v, cur), acc)
        b.store(b.select(better, n, b.load(idx)), idx)

    _each(lc, aty, arr, body)
    if want_index:
        return b.load(idx)
    if skip_nan and _is_float(t):
        return b.select(b.load(seen), b.load(acc), ir.Constant(lty, float("nan")))
    return b.load(acc)


def _truths(lc, aty, arr, kind):
    b = lc.builder
    t = aty.dtype
    if kind == "count_nonzero":
        cnt = lc.alloca(I64, name="reduce.cnt")
        b.store(ir.Constant(I64, 0), cnt)
        _each(lc, aty, arr, lambda v, n: b.store(b.add(b.load(cnt), b.zext(truth(b, v, t), I64)), cnt))
        return b.load(cnt)
    flag = lc.alloca(I1, name="reduce.flag")
    b.store(ir.Constant(I1, 1 if kind == "all" else 0), flag)
    if kind == "all":
        _each(lc, aty, arr, lambda v, n: b.store(b.and_(b.load(flag), truth(b, v, t)), flag))
    else:
        _each(lc, aty, arr, lambda v, n: b.store(b.or_(b.load(flag), truth(b, v, t)), flag))
    return b.load(flag)


def lower_reduction(lc, kind, aty, arr, rt):
    """The value of reduction ``kind`` (result type ``rt``) over array ``arr``."""
    if kind in ("sum", "nansum", "prod", "nanprod"):
        return _accumulate(lc, aty, arr, rt, "+" if "sum" in kind else "*", kind.startswith("nan"))[0]
    if kind in ("mean", "nanmean"):
        return _mean(lc, aty, arr, rt, kind == "nanmean")[0]
    if kind in ("var", "nanvar", "std", "nanstd"):
        v = _var(lc, aty, arr, rt, kind.startswith("nan"))
        return libm(lc, "sqrt", rt, v) if kind.endswith("std") else v
    if kind in ("min", "max", "nanmin", "nanmax", "argmin", "argmax"):
        return _extremum(lc, aty, arr, kind.endswith("min"), kind.startswith("nan"), kind.startswith("arg"))
    return _truths(lc, aty, arr, kind)


def _lower_call(lc, node, args, info):
    return lower_reduction(lc, info.payload.kind, info.sig.args[0], args[0], info.sig.return_type)


def _lower_method(lc, node, args, info):
    return lower_reduction(lc, info.payload.kind, info.recv, args[0], info.sig.return_type)


def register_reduction_lowerings(np, table=lowerings):
    """Register the reductions' lowerings: NumPy's functions and the array methods."""
    for fn in reduction_functions(np):
        table.call(fn)(_lower_call)


for _name in REDUCTION_METHODS:
    lowerings.method(Array, _name)(_lower_method)
