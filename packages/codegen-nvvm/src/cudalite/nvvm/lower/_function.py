"""Lowering of one typed function to an internal NVVM IR function.

Locals live in ``alloca`` slots of the entry block (libNVVM's optimizer turns
them into SSA registers), one per version of a variable (``x``, ``x.1``: typing
gives each its own type); an assignment also stores its value, converted, into
the slot of every merge (phi version) it reaches, so at a join the merge's slot
holds the value that arrived.  Structured control flow maps to basic blocks.  Calls
dispatch through the lowering tables; operators through ``_arith``.
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import ir as cir
from cudalite.core.errors import LoweringError
from cudalite.core.types import BoundMethod, NoneType, Void
from cudalite.core.typing import CallKind

from . import _arith
from . import _dbg_vars as dbg_vars
from ._casts import cast, truth
from ._constants import ConstantTooLarge, lower_constant
from ._irtypes import I1, value_type
from ._exceptions import check_status_after_call, records_exceptions
from ._inline import inline_call, should_inline
from ._iteration import lower_for_iter
from ._loops import lower_for_range
from ._ranges import prove_no_wrap
from ._slices import lower_slice

__all__ = ["FunctionLowerer"]


class FunctionLowerer:
    def __init__(self, module, tf):
        self.module = module  # the ModuleBuilder; its ``lowerings`` is the table to dispatch through
        self.tf = tf
        self.fn = None
        self.builder: ir.IRBuilder = None
        self.slots: dict = {}
        self.loops: list = []  # (continue_block, break_block)
        self.range_hints: dict = {}  # instruction -> RangeHint (``_ranges``: where nsw/nuw are proved)
        self.subprogram = None
        self.star_values: dict = {}  # Starred value node -> its tuple, evaluated at item 0
        self.declared: set = set()  # debug=True: versions whose slot is declared to the debugger

    # -- helpers used by lowering functions ------------------------------------------------
    def typeof(self, node):
        return self.tf.typemap[node]

    def call_libdevice(self, name, ret, args):
        fn = self.module.libdevice(name, ret, [a.type for a in args])
        return self.builder.call(fn, args)

    def alloca(self, lty, name=""):
        """An ``alloca`` in the entry block (so the optimizer can promote it)."""
        b = self.builder
        with b.goto_entry_block():  # before the entry block's terminator
            return b.alloca(lty, name=name)

    def cast(self, v, src, dst):
        return cast(self.builder, v, src, dst)

    def error(self, msg, loc):
        return LoweringError(msg, loc)

    # -- function shell --------------------------------------------------------------------
    @property
    def return_type(self):
        rt = self.tf.return_type
        return None if isinstance(rt, (Void, NoneType)) else rt

    def declare(self):
        from ._abi import mangle

        fir = self.tf.fir
        rt = self.return_type
        ret = ir.VoidType() if rt is None else value_type(rt)
        fnty = ir.FunctionType(ret, [value_type(t) for t in self.tf.argtypes])
        name = mangle(fir.module, fir.qualname, self.tf.argtypes) + "$impl"
        if self.tf.arg_consts:  # specialized on call-site constants: one function per set of values
            name += "$const"
        # two functions of one qualified name and signature (closures made by one factory,
        # e.g. an overload's implementations): each its own symbol
        name = self.module.ir_module.get_unique_name(name)
        fn = ir.Function(self.module.ir_module, fnty, name)
        fn.linkage = "internal"
        if self.module.options.forceinline:
            fn.attributes.add("alwaysinline")
        self.fn = fn
        return fn

    def lower(self, builder=None, args=None, subprogram=None):
        """Emit the body into ``self.fn``: its parameters are ``fn.args``, or ``args``
        when a ``builder`` already placed in the function's entry block (with its
        ``subprogram`` in debug builds) is given: how a kernel's body is lowered
        straight into the kernel's entry point."""
        fn = self.fn
        dbg = self.module.debug
        if builder is None:
            self.builder = b = ir.IRBuilder(fn.append_basic_block("entry"))
            args = fn.args
            if dbg is not None:
                subprogram = dbg.subprogram(fn, self.tf.fir, self.tf.argtypes, self.return_type)
        else:
            self.builder = b = builder
        if dbg is not None:
            self.subprogram = subprogram
            self.set_loc(self.tf.fir.loc)
        for name, t in self.tf.vartypes.items():
            self.slots[name] = b.alloca(value_type(t), name=_slot_name(name))
        body_start = fn.append_basic_block("body")
        ssa = self.tf.fir.ssa
        for i, (pname, pty, arg) in enumerate(zip(self.tf.fir.params, self.tf.argtypes, args)):
            version = ssa.versions[pname]
            if dbg is not None and dbg.full:  # the parameter's stable stack slot
                dbg_vars.declare_param(self, version, i + 1)
            self.define(version, arg, pty)
        b.branch(body_start)
        b.position_at_end(body_start)
        self.block(self.tf.fir.body)
        if not b.block.is_terminated:
            self.ret_default()
        prove_no_wrap(fn, self.range_hints)

    def ret_default(self):
        rt = self.return_type
        if rt is None:
            self.builder.ret_void()
        else:
            self.builder.ret(ir.Constant(value_type(rt), None))

    def set_loc(self, loc):
        if self.module.debug is not None and loc is not None:
            self.builder.debug_metadata = self.module.debug.location(loc, self.subprogram)

    def dead_block(self):
        """Continue emitting after a terminator into an unreachable block."""
        self.builder.position_at_end(self.fn.append_basic_block("dead"))

    # -- statements --------------------------------------------------------------------------
    def block(self, stmts):
        for s in stmts:
            self.set_loc(s.loc)
            getattr(self, "stmt_" + type(s).__name__)(s)

    def stmt_Assign(self, s):
        v = self.expr(s.value)
        self.store_target(s.target, v, self.typeof(s.value))

    def define(self, version, v, vty):
        """Store ``v`` (of type ``vty``) as ``version`` of its variable, and into each
        merge of versions it reaches (converted to the merge's type)."""
        b, types = self.builder, self.tf.vartypes
        own = types[version.name]
        v = self.cast(v, vty, own)
        b.store(v, self.slots[version.name])
        if self.module.debug is not None and self.module.debug.full:
            dbg_vars.assigned(self, version, v)
        for phi in version.stores:
            b.store(self.cast(v, own, types[phi.name]), self.slots[phi.name])

    def store_target(self, target, v, vty):
        b = self.builder
        if isinstance(target, cir.VarTarget):
            self.define(self.tf.fir.ssa.defs[target], v, vty)
        elif isinstance(target, cir.TupleTarget):
            for i, sub in enumerate(target.items):
                self.store_target(sub, b.extract_value(v, i), vty.types[i])
        else:  # index / attribute store: a registered __setitem__ / __setattr__
            info = self.tf.calls[target]
            recv = self.expr(target.value)
            if isinstance(target, cir.IndexTarget):
                idx = self.expr(target.index)
                idx_ty = self.typeof(target.index)
            else:
                idx, idx_ty = ir.Constant(value_type(info.sig.args[0]), None), info.sig.args[0]
            args = [self.cast(idx, idx_ty, info.sig.args[0]), self.cast(v, vty, info.sig.args[1])]
            fn = self.module.lowerings.method_at(info.key)
            if fn is None:
                raise self.error(f"no lowering for {info.name} on {info.recv}", target.loc)
            fn(self, target, [recv] + args, info)

    def stmt_ExprStmt(self, s):
        self.expr(s.value)

    def stmt_If(self, s):
        b = self.builder
        live = self.tf.pruned.get(s)
        if live is not None:  # typing kept one branch (a specialized constant condition)
            self.block(s.body if live else s.orelse)
            return
        then_bb = self.fn.append_basic_block("if.then")
        else_bb = self.fn.append_basic_block("if.else") if s.orelse else None
        end_bb = self.fn.append_basic_block("if.end")
        self.branch_on(s.test, then_bb, else_bb or end_bb)
        b.position_at_end(then_bb)
        self.block(s.body)
        if not b.block.is_terminated:
            b.branch(end_bb)
        if else_bb is not None:
            b.position_at_end(else_bb)
            self.block(s.orelse)
            if not b.block.is_terminated:
                b.branch(end_bb)
        b.position_at_end(end_bb)

    def stmt_While(self, s):
        b = self.builder
        cond_bb = self.fn.append_basic_block("while.cond")
        body_bb = self.fn.append_basic_block("while.body")
        end_bb = self.fn.append_basic_block("while.end")
        b.branch(cond_bb)
        b.position_at_end(cond_bb)
        self.branch_on(s.test, body_bb, end_bb)
        b.position_at_end(body_bb)
        self.loops.append((cond_bb, end_bb))
        self.block(s.body)
        self.loops.pop()
        if not b.block.is_terminated:
            b.branch(cond_bb)
        b.position_at_end(end_bb)

    def stmt_ForRange(self, s):
        ity = self.tf.vartypes[self.tf.fir.ssa.defs[s].name]
        start, stop, step = (
            self.cast(self.expr(e), self.typeof(e), ity) for e in (s.start, s.stop, s.step)
        )
        lower_for_range(self, s, ity, start, stop, step)

    def stmt_ForIter(self, s):
        lower_for_iter(self, s, self.tf.calls[s])

    def stmt_Break(self, s):
        self.builder.branch(self.loops[-1][1])
        self.dead_block()

    def stmt_Continue(self, s):
        self.builder.branch(self.loops[-1][0])
        self.dead_block()

    def stmt_Return(self, s):
        rt = self.return_type
        if rt is None:
            if s.value is not None:
                self.expr(s.value)
            self.builder.ret_void()
        else:
            v = self.expr(s.value)
            self.builder.ret(self.cast(v, self.typeof(s.value), rt))
        self.dead_block()

    def stmt_Raise(self, s):
        hook = self.module.lowerings.lookup_stmt(cir.Raise)
        if hook is not None:
            hook(self, s)
            return
        self.ret_default()
        self.dead_block()

    def stmt_Assert(self, s):
        hook = self.module.lowerings.lookup_stmt(cir.Assert)
        if hook is not None:
            hook(self, s)

    # -- expressions ---------------------------------------------------------------------------
    def expr(self, e):
        return getattr(self, "expr_" + type(e).__name__)(e)

    def cond(self, e):
        return truth(self.builder, self.expr(e), self.typeof(e))

    def branch_on(self, e, true_bb, false_bb):
        """Branch on the truth of ``e``, lowering ``and``/``or``/``not`` as control
        flow (not as a materialised bool), so each tested fact dominates the code
        it guards and the optimizer can use it (e.g. drop negative-index checks)."""
        b = self.builder
        if isinstance(e, cir.BoolOp):
            for v in e.values[:-1]:
                next_bb = self.fn.append_basic_block(f"{e.op}.next")
                if e.op == "and":
                    self.branch_on(v, next_bb, false_bb)
                else:
                    self.branch_on(v, true_bb, next_bb)
                b.position_at_end(next_bb)
            self.branch_on(e.values[-1], true_bb, false_bb)
        elif isinstance(e, cir.UnaryOp) and e.op == "not":
            self.branch_on(e.operand, false_bb, true_bb)
        else:
            b.cbranch(self.cond(e), true_bb, false_bb)

    def expr_Const(self, e):
        info = self.tf.calls.get(e)
        if info is not None and info.kind is CallKind.VALUE:  # a device value (cuda.threadIdx.x)
            return self.module.lowerings.lookup_value(info.key)(self, e, info)
        try:
            return lower_constant(self, e.value, self.typeof(e))
        except ConstantTooLarge as err:  # located at the global's use, named
            raise LoweringError(f"the global {e.name or 'value'} {err}", e.loc) from None

    def expr_Var(self, e):
        return self.builder.load(self.slots[self.tf.fir.ssa.uses[e].name])

    def expr_TupleExpr(self, e):
        t = self.typeof(e)
        items = [self.expr(item) for item in e.items]
        if all(isinstance(v, ir.Constant) for v in items):  # one constant, not a chain of insertvalues
            return ir.Constant(value_type(t), items)
        v = ir.Constant(value_type(t), ir.Undefined)
        for i, item in enumerate(items):
            v = self.builder.insert_value(v, item, i)
        return v

    def expr_SliceExpr(self, e):
        return lower_slice(self, e)

    def expr_BinOp(self, e):
        info = self.tf.calls[e]
        if info.kind is CallKind.FUNCTION:  # an extension's overload of the operator
            return self.call_function(e, info)
        a, bv = self.expr(e.left), self.expr(e.right)
        lt, rt = self.typeof(e.left), self.typeof(e.right)
        if info.kind is CallKind.TUPLE_CONCAT:
            out_t = info.sig.return_type
            out = ir.Constant(value_type(out_t), ir.Undefined)
            for i in range(len(lt)):
                out = self.builder.insert_value(out, self.builder.extract_value(a, i), i)
            for j in range(len(rt)):
                out = self.builder.insert_value(out, self.builder.extract_value(bv, j), len(lt) + j)
            return out
        ta, tb = info.sig.args
        a, bv = self.cast(a, lt, ta), self.cast(bv, rt, tb)
        return _arith.checked_binop(self, e.op, a, bv, ta, e.loc)

    def expr_UnaryOp(self, e):
        info = self.tf.calls.get(e)
        if info is not None and info.kind is CallKind.FUNCTION:  # an extension's overload of the operator
            return self.call_function(e, info)
        v = self.expr(e.operand)
        t = self.typeof(e.operand)
        if e.op == "not":
            return self.builder.xor(truth(self.builder, v, t), ir.Constant(I1, 1))
        info = self.tf.calls[e]
        target = info.sig.args[0]
        res = _arith.unaryop(self, e.op, self.cast(v, t, target), target)
        return self.cast(res, target, info.sig.return_type)  # integers: computed narrow, widened

    def expr_Compare(self, e):
        b = self.builder
        if self.tf.calls[e].kind is CallKind.FUNCTION:  # an extension's overload of the operator
            return self.call_function(e, self.tf.calls[e])
        links = self.tf.calls[e].payload  # one Comparison per link of the chain
        vals = [self.expr(o) for o in e.operands]
        tys = [self.typeof(o) for o in e.operands]
        result = None
        for i, link in enumerate(links):
            r = self.compare(link, vals[i], vals[i + 1], tys[i], tys[i + 1])
            result = r if result is None else b.and_(result, r)
        return result

    def compare(self, link, a, bv, ta, tb):
        """``a link.op bv`` as typing resolved it (a :class:`Comparison`)."""
        b = self.builder
        if link.constant is not None:
            return ir.Constant(I1, int(link.constant))
        if link.op in ("in", "not in"):  # == with each item of the tuple bv, ORed
            acc = ir.Constant(I1, 0)
            for i, item in enumerate(link.items):
                acc = b.or_(acc, self.compare(item, a, b.extract_value(bv, i), ta, tb.types[i]))
            return b.xor(acc, ir.Constant(I1, 1)) if link.op == "not in" else acc
        if link.is_tuple:  # == / != item by item
            acc = ir.Constant(I1, 1)
            for i, item in enumerate(link.items):
                x, y = ta.types[i], tb.types[i]
                r = self.compare(item, b.extract_value(a, i), b.extract_value(bv, i), x, y)
                acc = b.and_(acc, r)
            return b.xor(acc, ir.Constant(I1, 1)) if link.op == "!=" else acc
        ct = link.sig.args[0]
        return _arith.compare(self, link.op, self.cast(a, ta, ct), self.cast(bv, tb, ct), ct)

    def expr_BoolOp(self, e):
        b = self.builder
        rt = self.typeof(e)
        slot = self.alloca(value_type(rt))
        end_bb = self.fn.append_basic_block(f"{e.op}.end")
        for i, v in enumerate(e.values):
            val = self.expr(v)
            vt = self.typeof(v)
            b.store(self.cast(val, vt, rt), slot)
            if i == len(e.values) - 1:
                b.branch(end_bb)
                break
            t = truth(b, val, vt)
            next_bb = self.fn.append_basic_block(f"{e.op}.next")
            if e.op == "and":
                b.cbranch(t, next_bb, end_bb)
            else:
                b.cbranch(t, end_bb, next_bb)
            b.position_at_end(next_bb)
        b.position_at_end(end_bb)
        return b.load(slot)

    def expr_IfExp(self, e):
        live = self.tf.pruned.get(e)
        if live is not None:  # typing kept one branch (a constant test)
            return self.expr(e.body if live else e.orelse)
        b = self.builder
        rt = self.typeof(e)
        then_bb = self.fn.append_basic_block("ifexp.then")
        else_bb = self.fn.append_basic_block("ifexp.else")
        end_bb = self.fn.append_basic_block("ifexp.end")
        self.branch_on(e.test, then_bb, else_bb)
        b.position_at_end(then_bb)
        bv = self.cast(self.expr(e.body), self.typeof(e.body), rt)
        then_bb = b.block
        b.branch(end_bb)
        b.position_at_end(else_bb)
        ov = self.cast(self.expr(e.orelse), self.typeof(e.orelse), rt)
        else_bb = b.block
        b.branch(end_bb)
        b.position_at_end(end_bb)
        phi = b.phi(value_type(rt))
        phi.add_incoming(bv, then_bb)
        phi.add_incoming(ov, else_bb)
        return phi

    def expr_StarItem(self, e):
        """Item ``e.index`` of a tuple unpacked by ``*t`` into call arguments: the
        tuple is evaluated once, at item 0 (arguments are lowered left to right)."""
        if e.index == 0:
            self.star_values[e.value] = self.expr(e.value)
        tup = self.star_values.get(e.value)
        if tup is None:
            raise self.error("internal: *args item lowered before the tuple", e.loc)
        return self.builder.extract_value(tup, e.index)

    def expr_Attr(self, e):
        t = self.typeof(e)
        if isinstance(t, BoundMethod):
            return self.expr(e.value)  # the receiver; the Call lowers the method
        info = self.tf.calls.get(e)
        if info is not None and info.kind is CallKind.FUNCTION:  # overload_attribute: a getter's call
            return self.call_function(e, info)
        value = self.expr(e.value)
        fn = self.module.lowerings.attr_at(info.key) if info else None
        if fn is None:
            raise self.error(f"no lowering for attribute {e.attr!r} of {self.typeof(e.value)}", e.loc)
        return fn(self, value, info)

    def expr_Index(self, e):
        info = self.tf.calls[e]
        recv = self.expr(e.value)
        idx = self.cast(self.expr(e.index), self.typeof(e.index), info.sig.args[0])
        fn = self.module.lowerings.method_at(info.key)
        if fn is None:
            raise self.error(f"no lowering for indexing {self.typeof(e.value)}", e.loc)
        return fn(self, e, [recv, idx], info)

    def call_args(self, e, info):
        """Argument values in parameter order (the typer folded keywords), converted
        to the chosen signature's types."""
        nodes = info.arg_nodes or e.args
        return [self.cast(self.expr(n), self.typeof(n), t) for n, t in zip(nodes, info.sig.args)]

    def expr_Call(self, e):
        info = self.tf.calls[e]
        if info.kind is CallKind.FUNCTION:
            return self.call_function(e, info)
        if info.kind is CallKind.CAST:
            if not e.args:  # fp8_e4m3(): zero (CUDA's default constructor leaves it undefined)
                return ir.Constant(value_type(info.sig.return_type), 0)
            (a,) = e.args
            return self.cast(self.expr(a), self.typeof(a), info.sig.return_type)
        if info.kind is CallKind.METHOD:
            recv = self.expr(e.func)
            fn = self.module.lowerings.method_at(info.key)
            if fn is None:
                raise self.error(f"no lowering for method {info.name} of {info.recv}", e.loc)
            return fn(self, e, [recv] + self.call_args(e, info), info)
        fn = self.module.lowerings.lookup_call(info.key)
        if fn is None:
            raise self.error(f"no lowering for {info.name or info.key}()", e.loc)
        return fn(self, e, self.call_args(e, info), info)

    def call_function(self, e, info):
        """A call of a device function (``info.callee``): inlined or called."""
        self.module.add_links(info.links)
        if should_inline(self, e, info):
            res = inline_call(self, info.callee, self.call_args(e, info))
            if records_exceptions(self.module.options):
                check_status_after_call(self)
            return res if res is not None else ir.Constant(value_type(info.sig.return_type), None)
        fn = self.module.function_for(info.callee)
        if info.inline[1]:  # @cuda.jit(forceinline=True): LLVM inlines it
            fn.attributes.add("alwaysinline")
        res = self.builder.call(fn, self.call_args(e, info))
        if records_exceptions(self.module.options):
            check_status_after_call(self)
        return res if self.return_is_value(info.callee) else ir.Constant(value_type(info.sig.return_type), None)

    @staticmethod
    def return_is_value(tf):
        return not isinstance(tf.return_type, (Void, NoneType))


def _slot_name(name):
    return name.replace("$", "tmp.")

