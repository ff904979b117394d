"""Exceptions in device code.

Without ``debug`` (numba's default), ``raise`` returns from the function and
``assert`` is not evaluated: they cost nothing.  With ``debug=True``, raising
records the exception in a per-module global that the host reads after the
launch::

    @<entry>__cudalite_exc = addrspace(1) global [7 x i32]
        ; [0] 1-based index into the module's ExceptionTable (first raise wins, by CAS)
        ; [1..3] threadIdx.xyz, [4..6] blockIdx.xyz of the raising thread

(the layout is defined once, in ``cudalite.nvvm.artifacts``, which also decodes it)

A module compiled with ``boundscheck`` records its failed index checks
(``lower/_boundscheck.py``) the same way, in a longer record whose extra words
hold runtime values (the index, the array's shape) that the host formats into
the message.

then returns; device-function callers test the status after each call and
return too, so the exception propagates to the kernel's exit.
"""

from __future__ import annotations

import builtins

from llvmlite import ir

from cudalite.core import ir as cir

from ..artifacts import EXC_RECORD_SREGS as _SREGS
from ..artifacts import EXC_RECORD_VALUES, EXC_RECORD_WORDS, EXC_VALUES_RECORD_WORDS
from ..artifacts import ExceptionInfo
from ._irtypes import ADDRSPACE_GLOBAL, I32, I64
from ._registry import lowerings

__all__ = ["ExceptionInfo", "check_status_after_call", "raise_if", "record_exception", "records_exceptions"]


def records_exceptions(options) -> bool:
    """Whether a module of these options records exceptions for the host (debug
    mode or bounds checking): callers then test the status after device calls."""
    return options.debug or options.boundscheck


def _status_global(mb):
    gv = mb.ir_module.globals.get(mb.exc_symbol)
    if gv is None:
        ty = ir.ArrayType(I32, EXC_VALUES_RECORD_WORDS if mb.options.boundscheck else EXC_RECORD_WORDS)
        gv = ir.GlobalVariable(mb.ir_module, ty, mb.exc_symbol, addrspace=ADDRSPACE_GLOBAL)
        gv.initializer = ir.Constant(ty, None)
        gv.align = 4
    return gv


def _slot(b, gv, i):
    return b.gep(gv, [ir.Constant(I32, 0), ir.Constant(I32, i)])


def _record(lc, exc_class, args, loc, template="", values=()):
    """Record the exception (first thread wins, by CAS), then return from the function."""
    b = lc.builder
    mb = lc.module
    mb.exceptions.append(ExceptionInfo.of(exc_class, args, loc, lc.tf.fir.name, template))
    index = len(mb.exceptions)
    gv = _status_global(mb)
    res = b.cmpxchg(_slot(b, gv, 0), ir.Constant(I32, 0), ir.Constant(I32, index), "monotonic", "monotonic")
    won = b.extract_value(res, 1)
    with b.if_then(won):
        for i, reg in enumerate(_SREGS, start=1):
            fn = mb.declare(f"llvm.nvvm.read.ptx.sreg.{reg}", ir.FunctionType(I32, []))
            b.store(b.call(fn, []), _slot(b, gv, i))
        for j, v in enumerate(values):  # i64 runtime values: low word, high word
            word = EXC_RECORD_WORDS + 2 * j
            b.store(b.trunc(v, I32), _slot(b, gv, word))
            b.store(b.trunc(b.lshr(v, ir.Constant(I64, 32)), I32), _slot(b, gv, word + 1))
    lc.ret_default()
    lc.dead_block()


def record_exception(lc, cond, exc_class, template, values, loc):
    """Bounds checking: where the i1 ``cond`` is true, record ``exc_class`` with the
    message ``template`` (``{n}``: runtime value n of ``values``, i64s, at most
    ``EXC_RECORD_VALUES``) and return; execution goes on where it is false."""
    if len(values) > EXC_RECORD_VALUES:
        raise ValueError(f"an exception record holds at most {EXC_RECORD_VALUES} values, not {len(values)}")
    b = lc.builder
    fail_bb = lc.fn.append_basic_block("bounds.fail")
    end_bb = lc.fn.append_basic_block("bounds.ok")
    b.cbranch(cond, fail_bb, end_bb).set_weights([1, 1 << 20])  # the failure is cold
    b.position_at_end(fail_bb)
    _record(lc, exc_class, (), loc, template, values)
    b.branch(end_bb)
    b.position_at_end(end_bb)


def _exception_of(lc, exc):
    """(class, constant args) of ``raise X``, ``raise X(...)`` or a raised instance."""
    if exc is None:
        return RuntimeError, ("re-raise in device code",)
    if isinstance(exc, cir.Call) and isinstance(exc.func, cir.Const):
        args = tuple(lc.tf.consts.get(a, "<runtime value>") for a in exc.args)
        return exc.func.value, args
    if isinstance(exc, cir.Const):
        value = exc.value
        if isinstance(value, type) and issubclass(value, BaseException):
            return value, ()
        if isinstance(value, BaseException):
            return type(value), value.args
    return RuntimeError, ("exception raised in device code",)


@lowerings.stmt(cir.Raise)
def _raise(lc, stmt):
    if not lc.module.options.debug:
        lc.ret_default()
        lc.dead_block()
        return
    cls, args = _exception_of(lc, stmt.exc)
    _record(lc, cls, args, stmt.loc)


@lowerings.stmt(cir.Assert)
def _assert(lc, stmt):
    if not lc.module.options.debug:
        return
    b = lc.builder
    ok = lc.cond(stmt.test)
    fail_bb = lc.fn.append_basic_block("assert.fail")
    end_bb = lc.fn.append_basic_block("assert.ok")
    b.cbranch(ok, end_bb, fail_bb)
    b.position_at_end(fail_bb)
    msg = () if stmt.msg is None else (lc.tf.consts.get(stmt.msg, "<runtime value>"),)
    _record(lc, builtins.AssertionError, msg, stmt.loc)
    b.branch(end_bb)
    b.position_at_end(end_bb)


def raise_if(lc, cond, exc_class, args, loc, *, boundscheck=False):
    """Debug mode: raise ``exc_class(*args)`` where the i1 ``cond`` is true (numba's
    checks under ``debug=True``: tuple index out of range, division by zero); without
    debug, nothing.  ``boundscheck``: an index check, made under ``boundscheck`` too."""
    opts = lc.module.options
    if not (opts.debug or (boundscheck and opts.boundscheck)):
        return
    b = lc.builder
    fail_bb = lc.fn.append_basic_block("check.fail")
    end_bb = lc.fn.append_basic_block("check.ok")
    b.cbranch(cond, fail_bb, end_bb)
    b.position_at_end(fail_bb)
    _record(lc, exc_class, args, loc)
    b.branch(end_bb)
    b.position_at_end(end_bb)


def check_status_after_call(lc):
    """Debug mode: return early when a called device function raised."""
    b = lc.builder
    gv = _status_global(lc.module)
    status = b.load(_slot(b, gv, 0))
    raised = b.icmp_unsigned("!=", status, ir.Constant(I32, 0))
    cont = lc.fn.append_basic_block("call.ok")
    fail = lc.fn.append_basic_block("call.raised")
    b.cbranch(raised, fail, cont)
    b.position_at_end(fail)
    lc.ret_default()
    b.position_at_end(cont)

