"""Type inference: a fixpoint over the structured IR.

Each *version* of a local (every assignment, and every merge of different
assignments where control flow joins: :mod:`cudalite.core.ir._ssa`) has its own
type, as in numba: ``v = 1`` on one path and ``v = 1.5`` on another make ``v``
float64 only where both reach a use after the join; ``x = 0`` then ``x += a[i]``
in a loop over a float32 array makes the loop's ``x`` float64.  Passes repeat until
no version's type changes; a version not typed yet is "unknown" in early passes and
an error in the final, strict pass.  Results: side tables in :class:`TypedFunction`.

Recursion (numba's rule): a call to a function that is being typed with the same
argument types uses its declared return type, or else the unification of the
types its returns have had so far (the non-recursive paths type it first); a
chain of specializations that never closes is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import ir
from .._compat import is_number
from ..errors import CompilerError, TypingError
from ..ffi import ForeignFunction, resolve_extension
from ..registry import CallSite, Registry
from ..value_text import value_text
from ..types import (
    Array, BFloat16, Boolean, BoundMethod, Fp8, Integer, NoneType, NumberClass, Opaque, PyFunction,
    RangeType,
    BrokenDeviceArray, Signature, SliceType, StringLiteral, Tuple, Type, boolean, int64, typeof_constant,
    untyped_reason, void,
)
from ._eager_calls import eager_signature
from ._binding import bind_arguments, fold_kwargs
from ._cast_calls import cast_call, typed_answer as _typed
from ._implementations import implementation_call, method_implementation_call, operator_overload
from ._membership import identity_comparison, membership, tuple_equality
from ._unroll import PruneRequest, check_unroll, run_unrolling
from ._fold import ConstantRangeError, constant_comparison, fold_binop, fold_unary, literal_operands
from ._flow import falls_through
from ._recursion import CallStack, Unknown as _Unknown, recursion_error
from ._specialize import live_branch, type_call
from ._starargs import expand_starred, star_item_type
from ._records import (
    ArrayIter, CallInfo, CallKind, Comparison, EnumerateIter, Implementation, RangeIter, TupleIter, ZipIter,
)
from .rules.arithmetic import binop_signature, compare_signature, int_result, unary_signature
from .rules.instances import isinstance_value
from .rules.namedtuples import NAMEDTUPLE_NEW, is_namedtuple_class, namedtuple_parameters
from .rules.casts import can_convert, unify
from .rules.fp8conv import fp8_hint
from .rules.enums import enum_comparison

__all__ = ["TypingContext", "TypedFunction", "infer"]

_MAX_PASSES = 50


_NO_VALUE = object()  # const_memo's "not computed yet"


@dataclass(eq=False)
class TypedFunction:
    """A function's IR plus the results of inference for one signature."""

    fir: ir.FunctionIR
    argtypes: tuple
    return_type: Type = None
    vartypes: dict = field(default_factory=dict)  # version name (x, x.1: ir.SSAInfo) -> Type
    typemap: dict = field(default_factory=dict)  # Expr -> Type
    calls: dict = field(default_factory=dict)  # node -> CallInfo
    consts: dict = field(default_factory=dict)  # Expr -> compile-time value
    pruned: dict = field(default_factory=dict)  # ir.If -> branch kept (True: body); _specialize.py
    arg_consts: tuple = ()  # per parameter: the call-site constant it is specialized on, or NOTCONST

    @property
    def callees(self):
        seen = []
        for info in self.calls.values():
            if info.callee is not None and info.callee not in seen:
                seen.append(info.callee)
        return seen


class TypingContext:
    """One compilation: the registry, options and the functions typed so far."""

    def __init__(self, registry: Registry, options=None):
        self.registry = registry
        self.options = options
        self._irs: dict = {}
        self._calls = CallStack()  # the functions being typed, and those typed (recursion: _recursion.py)
        self._extensions: dict = {}  # (id(obj), argtypes) -> (obj, ForeignFunction | None)

    def extension(self, obj, argtypes):
        """The extension protocol's foreign function for ``obj`` called with
        ``argtypes`` (None: no extension); its hooks run once per compilation."""
        key = (id(obj), tuple(argtypes))
        hit = self._extensions.get(key)
        if hit is None or hit[0] is not obj:
            hit = self._extensions[key] = (obj, resolve_extension(obj, tuple(argtypes)))
        return hit[1]

    def function_ir(self, pyfunc, vararg_len=None) -> ir.FunctionIR:
        """``pyfunc``'s IR (one per function; a function taking ``*args`` has one per
        length of that tuple, ``vararg_len``: its ``f(*args)`` calls expand differently)."""
        key = pyfunc if vararg_len is None else (pyfunc, "*args", vararg_len)
        fir = self._irs.get(key)
        if fir is None:
            from ..frontend import build_ir

            fir = self._irs[key] = build_ir(pyfunc)
        return fir

    def type_function(self, pyfunc, argtypes, return_type=None, loc=None, arg_consts=()) -> TypedFunction:
        argtypes = tuple(argtypes)
        arg_consts = tuple(arg_consts) if any(c is not ir.NOTCONST for c in arg_consts) else ()
        key = (pyfunc, argtypes, return_type, arg_consts)
        done = self._calls.lookup(key)
        if done is not None:
            return done
        frame = self._calls.recursive_frame(pyfunc, argtypes)
        if frame is not None:
            return self._calls.recursive_call(frame, loc)
        fir = self.function_ir(pyfunc)
        if fir.vararg is not None and len(fir.params) == len(argtypes) and isinstance(argtypes[-1], Tuple):
            fir = self.function_ir(pyfunc, len(argtypes[-1].types))
        elif fir.vararg is not None:
            raise TypingError(f"{fir.qualname}() takes *{fir.vararg}: it can only be called from device code, "
                              "not compiled on its own for a signature", loc)
        if len(fir.params) != len(argtypes):
            raise TypingError(
                f"{fir.qualname}() takes {len(fir.params)} argument(s) but {len(argtypes)} were given", loc
            )
        self._calls.check_depth(pyfunc, fir.qualname, argtypes, loc)
        frame = self._calls.push(key)
        tf = None
        try:
            def make(f):
                frame.inference = _Inference(self, f, argtypes, return_type, arg_consts)
                return frame.inference
            tf = run_unrolling(make, fir)  # literal_unroll loops over mixed tuples: _unroll.py
        except CompilerError as e:
            if loc is not None and self._calls.frames[:-1]:
                e.add_note_loc(f"while typing the call to {fir.qualname}({', '.join(map(str, argtypes))})", loc)
            raise
        finally:
            self._calls.pop(frame, tf)
        return tf


def infer(context: TypingContext, pyfunc, argtypes, return_type=None) -> TypedFunction:
    return context.type_function(pyfunc, argtypes, return_type)


def _is_exception_class(e) -> bool:
    return (isinstance(e, ir.Const) and isinstance(e.value, type)
            and issubclass(e.value, BaseException))


class _Inference:
    def __init__(self, ctx: TypingContext, fir: ir.FunctionIR, argtypes, return_type, arg_consts=()):
        self.ctx = ctx
        self.reg = ctx.registry
        self.fir = fir
        self.declared_return = return_type
        self.tf = TypedFunction(fir, argtypes, arg_consts=tuple(arg_consts))
        if fir.ssa is None:
            fir.ssa = ir.build_ssa(fir)
        self.ssa = fir.ssa
        self.param_consts = {self.ssa.versions[p]: c for p, c in zip(fir.params, arg_consts) if c is not ir.NOTCONST}
        self.vars = {self.ssa.versions[p]: t for p, t in zip(fir.params, argtypes)}  # Version -> Type
        self.origin: dict = {}  # phi Version -> the incoming Version that first typed it
        self.strict = False
        self.changed = False
        self.returns: list = []
        self.partial_return = None  # every returned type so far, unified (what recursive calls see)
        self.const_memo: dict = {}  # compound Expr -> its compile-time value (fixed by the IR)
        self.conflict = None  # the first merge of versions whose types do not unify (a TypingError)

    # -- driver ------------------------------------------------------------------------
    def run(self) -> TypedFunction:
        try:
            for v in self.vars.copy():  # parameters reaching merges
                self.merge_into(v)
            for _ in range(_MAX_PASSES):
                self.changed = False
                self.returns = []
                self.block(self.fir.body)
                if not self.changed:
                    break
            else:
                raise TypingError(f"type inference of {self.fir.qualname} did not converge", self.fir.loc)
            if self.conflict is not None:
                raise self.conflict
        except TypingError:
            if self.tf.pruned and self.tf.pruned != self.ssa.pruned:  # numba prunes before it types
                raise PruneRequest(dict(self.tf.pruned)) from None
            if self.conflict is not None:
                raise self.conflict from None  # the merge that failed first (what a later error follows from)
            raise
        self.strict = True
        self.returns = []
        self.tf.typemap.clear()
        self.tf.calls.clear()
        self.block(self.fir.body)
        if self.conflict is not None:
            raise self.conflict
        self.tf.vartypes = {v.name: t for v, t in self.vars.items()}
        rt = self.return_type()
        seen = self.tf.return_type  # what recursive calls were typed with (None: no recursive call)
        if seen is not None and seen != rt:
            raise recursion_error(f"Return type of recursive function does not converge: {self.fir.qualname} "
                              f"returns {rt}, but its recursive calls were typed as returning {seen}",
                              self.fir.loc)
        self.tf.return_type = rt
        return self.tf

    def return_type(self):
        values = [(r, t) for r, t in self.returns if t is not None]
        bare = [r for r, t in self.returns if t is None]
        if self.declared_return is not None:
            rt = self.declared_return
            for r, t in values:
                if isinstance(rt, NoneType) and not isinstance(t, NoneType):
                    raise TypingError(f"a function declared to return {rt} returns a {t} value", r.loc)
                if not isinstance(rt, NoneType) and not can_convert(t, rt):
                    raise TypingError(f"cannot convert the returned {t} to the declared return type {rt}",
                                      r.loc)
            if bare and not isinstance(rt, NoneType):
                raise TypingError(f"a function declared to return {rt} has a bare 'return'", bare[0].loc)
            if not isinstance(rt, NoneType) and falls_through(self.fir.body):
                raise TypingError(f"a function declared to return {rt} can reach its end without "
                                  "returning a value (add a final 'return')", self._end_loc())
            return rt
        if not values:
            return void
        if bare:
            raise TypingError("the function returns a value on some paths and nothing on others "
                              "(optional return types are not supported)", bare[0].loc)
        if falls_through(self.fir.body):
            raise TypingError(f"the function returns {values[0][1]} on some paths but can reach its end "
                              "without returning a value (optional return types are not supported; "
                              "add a final 'return')", self._end_loc())
        rt = values[0][1]
        for r, t in values[1:]:
            u = unify(rt, t)
            if u is None:
                raise TypingError(f"cannot unify return types {rt} and {t}", r.loc)
            rt = u
        return rt

    def _end_loc(self):
        return self.fir.body[-1].loc if self.fir.body else self.fir.loc

    # -- statements ----------------------------------------------------------------------
    def block(self, stmts):
        for s in stmts:
            try:
                getattr(self, "stmt_" + type(s).__name__)(s)
            except _Unknown:
                if self.strict:
                    raise

    def stmt_Assign(self, s):
        t = self.expr(s.value)
        self.assign(s.target, t, s.value)

    def assign(self, target, t, value_node=None):
        if isinstance(target, ir.VarTarget):
            self.set_var(self.ssa.defs[target], t, target.loc)
        elif isinstance(target, ir.TupleTarget):
            if not isinstance(t, Tuple) or len(t) != len(target.items):
                n = len(target.items)
                raise TypingError(f"cannot unpack {t} into {n} target(s)", target.loc)
            for sub, st in zip(target.items, t.types):
                self.assign(sub, st)
        elif isinstance(target, ir.IndexTarget):
            ct = self.expr(target.value)
            it = self.expr(target.index)
            sig = self.method_call(target, ct, "__setitem__", (it, t),
                                   (self.const_of(target.index), None), target.loc, op="store")
            self.record_call(target, sig)
        elif isinstance(target, ir.AttrTarget):
            ct = self.expr(target.value)
            site_consts = (target.attr, None)
            sig = self.method_call(target, ct, "__setattr__", (StringLiteral(target.attr), t),
                                   site_consts, target.loc, op="attribute store")
            self.record_call(target, sig)

    def set_var(self, version, t, loc):
        """Type a definition (a new version of a variable) and the merges it flows into."""
        if isinstance(t, (RangeType,)):
            raise TypingError("range objects can only be used directly in a 'for' loop", loc)
        old = self.vars.get(version)
        if old is None or old != t:
            new = t if old is None else unify(old, t)
            if new is None:  # one definition typed differently in two passes: the merges changed it
                raise TypingError(f"variable {version.var!r} is assigned both {old} and {t}; they do not unify",
                                  loc)
            if new != old:
                self.vars[version] = new
                self.changed = True
        self.merge_into(version)

    def merge_into(self, version):
        """Unify ``version``'s type into the phis (merges) it flows into, transitively."""
        work = [version]
        while work:
            v = work.pop()
            t = self.vars[v]
            for p in v.feeds:
                old = self.vars.get(p)
                if old == t:
                    continue
                new = t if old is None else unify(old, t)
                if new is None:  # raised after the passes, unless pruning removes the merge
                    self.conflict = self.conflict or self.merge_error(p, v, old, t)
                    continue
                if old is None:
                    self.origin[p] = v
                if new != old:
                    self.vars[p] = new
                    self.changed = True
                    work.append(p)

    def merge_error(self, phi, v, old, t):
        first = self.origin.get(phi)
        while first is not None and first.kind == "phi" and first in self.origin:
            first = self.origin[first]
        while v.kind == "phi" and v in self.origin:
            v = self.origin[v]
        err = TypingError(
            f"variable {phi.var!r} has type {old} on one path and {t} on another, and both reach this use; "
            "the types do not unify (numba: 'Cannot unify')", phi.use_loc or phi.loc)
        for d, ty in ((first, old), (v, t)):
            if d is not None:
                what = "the parameter" if d.kind == "param" else "the assignment"
                err.add_note_loc(f"{what} that makes {d.var!r} {ty}:", d.loc)
        return err

    def stmt_If(self, s):
        self.truth(s.test)
        live = live_branch(self, s)  # a specialized constant decides: numba prunes the other branch
        for body in (s.body, s.orelse) if live is None else (live,):
            self.block(body)

    def stmt_While(self, s):
        self.truth(s.test)
        self.block(s.body)

    def stmt_ForRange(self, s):
        ts = [self.expr(e) for e in (s.start, s.stop, s.step)]
        for e, t in zip((s.start, s.stop, s.step), ts):
            if not is_number(t) or t.name.startswith(("float", "complex")):
                raise TypingError(f"range() arguments must be integers, not {t}", e.loc)
        self.set_var(self.ssa.defs[s], self.range_type(s, ts), s.loc)
        self.block(s.body)

    def stmt_ForIter(self, s):
        check_unroll(self, s)
        plan, elem = self.iteration_plan(s.iter)
        self.record_call(s, CallInfo(CallKind.ITER, Signature(elem, ()), payload=plan))
        self.assign(s.target, elem)
        self.block(s.body)

    def iteration_plan(self, e):
        """How to iterate ``e``: (an :class:`IterPlan`, the element type)."""
        builtin = e.func.value if isinstance(e, ir.Call) and isinstance(e.func, ir.Const) else None
        if builtin is enumerate:
            start = e.args[1] if len(e.args) > 1 else e.kwargs.get("start")
            if not e.args or len(e.args) > 2:
                raise TypingError("enumerate() takes an iterable and an optional start", e.loc)
            if start is not None and not isinstance(self.expr(start), (Integer, Boolean)):
                raise TypingError("enumerate() start must be an integer", start.loc)
            inner, elem = self.iteration_plan(e.args[0])
            return EnumerateIter(start, inner), Tuple((int64, elem))
        if builtin is range:
            if e.kwargs or not 1 <= len(e.args) <= 3:
                raise TypingError("range() takes 1 to 3 positional arguments", e.loc)
            for a in e.args:
                if not isinstance(self.expr(a), (Integer, Boolean)):
                    raise TypingError(f"range() arguments must be integers, not {self.typeof_node(a)}", a.loc)
            return RangeIter(tuple(e.args)), int64
        if builtin is zip:
            if not e.args or e.kwargs:
                raise TypingError("zip() takes one or more iterables", e.loc)
            parts = [self.iteration_plan(a) for a in e.args]
            return ZipIter(tuple(p for p, _ in parts)), Tuple([t for _, t in parts])
        t = self.expr(e)
        if isinstance(t, Array):
            if t.ndim == 0:
                raise TypingError(f"iteration over a 0-d array ({t})", e.loc)
            elem = t.dtype if t.ndim == 1 else t.copy(ndim=t.ndim - 1, layout="C" if t.layout == "C" else "A")
            return ArrayIter(e, t), elem
        if isinstance(t, Tuple):
            if not t.types:
                raise TypingError("cannot iterate over an empty tuple", e.loc)
            elem = t.types[0]
            for other in t.types[1:]:
                u = unify(elem, other)
                if u is None:
                    raise TypingError(f"cannot iterate over the tuple {t}: its items ({elem} and {other}) "
                                      "do not unify to one type", e.loc)
                elem = u
            return TupleIter(e, t, elem), elem
        raise TypingError(f"cannot iterate over a value of type {t} in device code (iterate over range(), "
                          "an array, a tuple, enumerate() or zip())", e.loc)

    def typeof_node(self, e):
        return self.tf.typemap.get(e)

    def range_type(self, s, ts):
        """The loop variable's type: a 64-bit integer (so ``i + step`` cannot wrap
        before reaching ``stop``), unsigned when every non-constant argument is
        unsigned and every constant (the implicit ``0`` and ``1``, literals) is
        non-negative: ``range(n)`` over a uint64 ``n`` counts in uint64."""
        consts = [self.const_of(e) for e in (s.start, s.stop, s.step)]
        var_ts = [t for t, c in zip(ts, consts) if not isinstance(c, int)]
        unsigned = (bool(var_ts) and all(isinstance(t, Integer) and not t.signed for t in var_ts)
                    and all(c >= 0 for c in consts if isinstance(c, int)))
        return int_result(var_ts[0]) if unsigned else int64

    def stmt_Break(self, s):
        pass

    stmt_Continue = stmt_Break

    def stmt_Return(self, s):
        t = None if s.value is None else self.expr(s.value)
        if isinstance(t, NoneType):
            t = None
        self.returns.append((s, t))
        if t is not None and self.partial_return != t:
            new = t if self.partial_return is None else unify(self.partial_return, t)
            if new is not None and new != self.partial_return:
                self.partial_return = new
                self.changed = True

    def stmt_ExprStmt(self, s):
        self.expr(s.value)

    def stmt_Raise(self, s):
        exc = s.exc
        if isinstance(exc, ir.Call) and _is_exception_class(exc.func) and not exc.kwargs:
            for a in exc.args:  # raise ValueError("msg", x): the arguments are only checked
                self.expr(a)
        elif exc is not None and not _is_exception_class(exc):
            self.expr(exc)

    def stmt_Assert(self, s):
        self.truth(s.test)
        if s.msg is not None:
            self.expr(s.msg)

    def truth(self, e):
        return self.check_truth(self.expr(e), e)

    @staticmethod
    def check_truth(t, e):
        """``t``, the type of ``e``, if it can be a condition."""
        if not (is_number(t) or isinstance(t, (NoneType, BFloat16, Fp8))):
            raise TypingError(f"cannot use a value of type {t} as a condition", e.loc)
        return t

    # -- expressions -------------------------------------------------------------------------
    def expr(self, e) -> Type:
        t = getattr(self, "expr_" + type(e).__name__)(e)
        self.tf.typemap[e] = t
        c = self.const_of(e)
        if c is not ir.NOTCONST:
            self.tf.consts[e] = c
        return t

    def const_of(self, e):
        """The compile-time value of ``e``, or NOTCONST."""
        if isinstance(e, ir.Const):
            return e.value
        if isinstance(e, ir.Var):
            version = self.ssa.uses.get(e)
            if version is not None and version.const is not ir.NOTCONST:
                return version.const  # this use reads an assignment of a literal
            return self.param_consts.get(version, self.fir.constants.get(e.name, ir.NOTCONST))
        if not isinstance(e, (ir.TupleExpr, ir.Index, ir.UnaryOp, ir.BinOp, ir.Compare, ir.Call, ir.SliceExpr)):
            return ir.NOTCONST
        value = self.const_memo.get(e, _NO_VALUE)  # compound nodes: once each (chains stay linear)
        if value is _NO_VALUE:
            value = self.const_memo[e] = self._compound_const(e)
        return value

    def _compound_const(self, e):
        if isinstance(e, ir.SliceExpr):  # 1:, ::2 (a constant slice: what slicing a tuple needs)
            parts = [None if p is None else self.const_of(p) for p in (e.lower, e.upper, e.step)]
            if any(p is ir.NOTCONST or not (p is None or type(p) is int) for p in parts) or parts[2] == 0:
                return ir.NOTCONST
            return slice(*parts)
        if isinstance(e, ir.TupleExpr):
            items = [self.const_of(i) for i in e.items]
            return ir.NOTCONST if any(i is ir.NOTCONST for i in items) else tuple(items)
        if isinstance(e, ir.Index):  # SHAPE[0] of a constant tuple
            base, i = self.const_of(e.value), self.const_of(e.index)
            if isinstance(base, tuple) and isinstance(i, int) and -len(base) <= i < len(base):
                return base[i]
        if isinstance(e, ir.UnaryOp) and e.op in ("-", "+", "~"):
            v = self.const_of(e.operand)
            if isinstance(v, float) and e.op != "~":
                return -v if e.op == "-" else v
            return self.folded(e, fold_unary, e.op, v)
        if isinstance(e, ir.BinOp):  # TPB * 2, 2**10, -(-N // 4): integer arithmetic folds
            left = self.const_of(e.left)
            if left is ir.NOTCONST:
                return left
            return self.folded(e, fold_binop, e.op, left, self.const_of(e.right), literal_operands(e))
        if isinstance(e, ir.Compare):  # len(args) == 1: numba's semantic constants, for branch pruning
            return constant_comparison(e, [self.const_of(o) for o in e.operands])
        if isinstance(e, ir.Call) and len(e.args) == 1 and not e.kwargs and isinstance(e.func, ir.Const) \
                and e.func.value is len and isinstance(e.args[0], ir.Var):  # len() of a tuple variable: its type
            t = self.tf.typemap.get(e.args[0])
            return len(t.types) if isinstance(t, Tuple) else ir.NOTCONST
        if isinstance(e, ir.Call) and len(e.args) == 2 and not e.kwargs and isinstance(e.func, ir.Const) \
                and e.func.value is isinstance:  # isinstance(x, cls): decided by x's type (numba prunes on it)
            t, classes = self.tf.typemap.get(e.args[0]), self.const_of(e.args[1])
            if t is None or classes is ir.NOTCONST:
                return ir.NOTCONST
            try:
                return isinstance_value(t, classes)
            except ValueError:  # the call's typing reports it
                return ir.NOTCONST
        return ir.NOTCONST

    def folded(self, e, fold, *args):
        if ir.NOTCONST in args:
            return ir.NOTCONST
        try:
            return fold(*args)
        except ConstantRangeError as err:
            raise TypingError(str(err), e.loc) from None

    def expr_Const(self, e):
        typer = self.reg.lookup_value(e.value)
        if typer is not None:  # a device value such as cuda.threadIdx.x
            t = typer(CallSite(getattr(e, "name", None) or repr(e.value), (), (), e.loc, self.ctx))
            name = getattr(e.value, "__qualname__", None) or str(e.value)
            self.record_call(e, CallInfo(CallKind.VALUE, Signature(t, ()), e.value, name))
            return t
        t = typeof_constant(e.value)
        if t is None:
            what = f"{e.name!r} = " if e.name else ""
            value = e.value.owner if isinstance(e.value, BrokenDeviceArray) else e.value
            head = f"the value {what}{value_text(value)} ({type(value).__name__}) cannot be used in device code"
            why = untyped_reason(e.value)
            raise TypingError(f"{head}: {why}" if why else f"{head}; globals and closure variables must be "
                              "numbers, tuples, NumPy scalars or arrays", e.loc)
        return t

    def expr_Var(self, e):
        version = self.ssa.uses.get(e)
        t = None if version is None else self.vars.get(version)
        if t is None:
            if version is None:
                raise TypingError(f"local variable {e.name!r} is used before it is assigned", e.loc)
            if self.strict:
                raise TypingError(f"local variable {e.name!r} is used before it is assigned", e.loc)
            raise _Unknown()
        return t

    def expr_BinOp(self, e):
        a, b = self.expr(e.left), self.expr(e.right)
        if e.op == "+" and isinstance(a, Tuple) and isinstance(b, Tuple):
            t = Tuple(a.types + b.types)
            self.record_call(e, CallInfo(CallKind.TUPLE_CONCAT, Signature(t, (a, b))))
            return t
        sig = binop_signature(e.op, a, b)
        if sig is None:
            found = operator_overload(self, e, e.op, (a, b), (e.left, e.right))  # overload(operator.add)
            if found is not None:
                return found
            raise TypingError(f"unsupported operand types for {e.op}: {a} and {b}{fp8_hint(a, b)}", e.loc)
        self.record_call(e, CallInfo(CallKind.BINOP, sig, name=e.op))
        return sig.return_type

    def expr_UnaryOp(self, e):
        a = self.expr(e.operand)
        sig = unary_signature(e.op, a)
        if sig is None:
            found = operator_overload(self, e, e.op, (a,), (e.operand,))  # overload(operator.neg)
            if found is not None:
                return found
            raise TypingError(f"bad operand type for unary {e.op}: {a}{fp8_hint(a)}", e.loc)
        if e.op == "not":
            self.check_truth(a, e.operand)  # the operand is typed once (not-chains stay linear)
        self.record_call(e, CallInfo(CallKind.UNARY, sig, name=e.op))
        return sig.return_type

    def expr_Compare(self, e):
        ts = [self.expr(o) for o in e.operands]
        links = []
        for i, (op, a, b) in enumerate(zip(e.ops, ts, ts[1:])):
            enum_link = enum_comparison(op, a, b)
            if enum_link is not None:
                links.append(enum_link)
                continue
            if op in ("is", "is not"):
                links.append(identity_comparison(op, a, b, e.loc))
                continue
            if op in ("in", "not in"):
                links.append(membership(op, a, b, e.loc))
                continue
            sig = compare_signature(op, a, b)
            if sig is None and isinstance(a, Tuple) and isinstance(b, Tuple) and op in ("==", "!="):
                eq = tuple_equality(a, b)
                constant = None if eq.constant is None else eq.constant == (op == "==")
                links.append(Comparison(op, eq.sig, constant, eq.items))
                continue
            if sig is None and len(e.ops) == 1:  # overload(operator.eq) of an extension: a call
                found = operator_overload(self, e, op, (a, b), tuple(e.operands))
                if found is not None:
                    return found
            if sig is None:  # two constant strings (a specialized str argument == "1"): known now
                folded = constant_comparison(ir.Compare(e.loc, [op], e.operands[i:i + 2]),
                                             [self.const_of(e.operands[i]), self.const_of(e.operands[i + 1])])
                if isinstance(folded, bool):
                    links.append(Comparison(op, Signature(boolean, (a, b)), constant=folded))
                    continue
                raise TypingError(f"cannot compare {a} {op} {b}{fp8_hint(a, b)}", e.loc)
            links.append(Comparison(op, sig))
        self.record_call(e, CallInfo(CallKind.COMPARE, Signature(boolean, tuple(ts)), payload=tuple(links)))
        return boolean

    def expr_BoolOp(self, e):
        ts = [self.truth(v) for v in e.values]
        t = ts[0]
        for other, v in zip(ts[1:], e.values[1:]):
            u = unify(t, other)
            if u is None:
                raise TypingError(f"the operands of '{e.op}' have types {t} and {other} that do not unify",
                                  v.loc)
            t = u
        return t

    def expr_IfExp(self, e):
        self.truth(e.test)
        value = self.const_of(e.test)
        if value is None or isinstance(value, (bool, int, str)):  # a constant test: only the live branch
            self.tf.pruned[e] = bool(value)
            return self.expr(e.body if value else e.orelse)
        a, b = self.branch(e.body), self.branch(e.orelse)
        if a is None or b is None:  # early passes: one branch is typed (``n if n < 2 else f(n - 1)``)
            if a is None and b is None:
                raise _Unknown()
            return a or b
        t = unify(a, b)
        if t is None:
            raise TypingError(f"the branches of the conditional expression have types {a} and {b} "
                              "that do not unify", e.loc)
        return t

    def branch(self, e):
        """The type of one branch of a conditional expression; None while it is unknown
        in an early pass (numba types a merge from the incoming types known so far)."""
        if self.strict:
            return self.expr(e)
        try:
            return self.expr(e)
        except _Unknown:
            return None

    def expr_TupleExpr(self, e):
        return Tuple([self.expr(i) for i in e.items])

    def expr_SliceExpr(self, e):
        for part in (e.lower, e.upper, e.step):
            if part is not None:
                t = self.expr(part)
                if not isinstance(t, (Integer, Boolean)):
                    raise TypingError(f"slice indices must be integers, not {t}", part.loc)
        return SliceType((e.lower is not None, e.upper is not None, e.step is not None))

    def expr_StarItem(self, e):
        return star_item_type(self, e)

    def expr_Attr(self, e):
        t = self.expr(e.value)
        typer, cls = self.reg.lookup_attr(t, e.attr)
        if typer is not None:
            rt = typer(t)
            if isinstance(rt, Implementation):  # overload_attribute: a getter compiled for t
                return implementation_call(self, e, rt, [t], [ir.NOTCONST], (e.value,), e.loc)
            if rt is not None:
                self.record_call(e, CallInfo(CallKind.ATTR, Signature(rt, (t,)), (cls, e.attr), e.attr))
                return rt
        if self.reg.has_method(t, e.attr):
            return BoundMethod(t, e.attr)
        typer, cls = self.reg.lookup_attr(t, "*")
        if typer is not None:
            rt = typer(t, e.attr)
            if rt is not None:
                self.record_call(e, CallInfo(CallKind.ATTR, Signature(rt, (t,)), (cls, "*"), e.attr))
                return rt
        raise TypingError(f"{t} has no attribute {e.attr!r}", e.loc)

    def expr_Index(self, e):
        ct = self.expr(e.value)
        it = self.expr(e.index)
        sig = self.method_call(e, ct, "__getitem__", (it,), (self.const_of(e.index),), e.loc, op="index")
        self.record_call(e, sig)
        return sig.sig.return_type

    def expr_Call(self, e):
        ft = self.expr(e.func)
        expand_starred(self, e)
        args = [self.expr(a) for a in e.args]
        consts = [self.const_of(a) for a in e.args]
        kw = {k: (self.expr(v), self.const_of(v), v) for k, v in e.kwargs.items()}
        nodes = None
        if isinstance(ft, BoundMethod):
            info = self.method_call(e, ft.recv, ft.method, args, consts, e.loc, kwargs=kw)
            self.record_call(e, info)
            return info.sig.return_type
        if isinstance(ft, NumberClass):
            return cast_call(self, e, ft.instance_type, args, kw)
        if isinstance(ft, PyFunction) and self.reg.lookup_call(ft.obj) is None:  # else: overload/type_callable
            args, consts, nodes = bind_arguments(self, e, self.ctx.function_ir(ft.obj), args, consts, kw)
            args, rt = eager_signature(ft, args, e.loc)  # a device function's eager signatures
            callee = type_call(self.ctx, ft.obj, args, consts, loc=e.loc, return_type=rt)
            sig = Signature(callee.return_type, tuple(args))
            name = getattr(ft.obj, "__qualname__", None) or str(ft.obj)
            self.record_call(e, CallInfo(CallKind.FUNCTION, sig, ft.obj, name, callee=callee, arg_nodes=nodes,
                                         links=ft.links, inline=ft.inline))
            return callee.return_type
        if isinstance(ft, Opaque):
            obj = callee = ft.obj
            entry = self.reg.lookup_call(obj)
            if entry is None and is_namedtuple_class(obj):  # Point(x, y): one entry for every class
                args, consts, nodes = bind_arguments(self, e, namedtuple_parameters(obj), args, consts, kw)
                obj, entry, kw = NAMEDTUPLE_NEW, self.reg.lookup_call(NAMEDTUPLE_NEW), {}
            if entry is None:
                decl = self.ctx.extension(obj, args)  # library objects: the extension protocol
                if decl is not None:
                    obj, entry = decl, self.reg.lookup_call(decl)
            if entry is None:
                gname = e.func.name if isinstance(e.func, ir.Const) else None
                if gname:  # numba's wording for a global/closure value it has no type for
                    raise TypingError(f"Untyped global name {gname!r}: {ft} is not supported in device code",
                                      e.func.loc)
                raise TypingError(f"{ft} is not supported in device code", e.func.loc)
            if kw:
                args, consts, nodes = fold_kwargs(e, entry.params, args, consts, kw, entry.name, entry.defaults,
                                                  self)
            name = getattr(obj, "name", None) if isinstance(obj, ForeignFunction) else entry.name
            name, callee = (callee.__qualname__, callee) if obj is NAMEDTUPLE_NEW else (name, obj)
            site = CallSite(name or entry.name, tuple(args), tuple(consts), e.loc, self.ctx, callee=callee)
            sig, payload = _typed(entry.typer(site))
            if sig is None:
                raise TypingError(f"no implementation of {site.name}() for argument types "
                                  f"({', '.join(map(str, args))})", e.loc)
            if isinstance(sig, Implementation):  # overload(): Python code for these types
                return implementation_call(self, e, sig, args, consts, nodes or tuple(e.args), e.loc)
            self.record_call(e, CallInfo(CallKind.REGISTRY, sig, obj, site.name, payload=payload, arg_nodes=nodes))
            return sig.return_type
        raise TypingError(f"a value of type {ft} is not callable", e.func.loc)

    def method_call(self, node, recv, name, args, consts, loc, op=None, kwargs=None):
        entry, cls = self.reg.lookup_method(recv, name)
        what = op or f"method {name}()"
        if entry is None:
            raise TypingError(f"{recv} does not support {what}", loc)
        args, consts, nodes = list(args), list(consts), None
        if kwargs:
            args, consts, nodes = fold_kwargs(node, entry.params, args, consts, kwargs, name, entry.defaults, self)
        site = CallSite(name, tuple(args), tuple(consts), loc, self.ctx, recv=recv)
        sig, payload = _typed(entry.typer(site))
        if sig is None:
            raise TypingError(f"{recv} does not support {what} with ({', '.join(map(str, args))})", loc)
        if isinstance(sig, Implementation):  # overload_method(): the receiver is the first argument
            return method_implementation_call(self, node, sig, recv, name, args, consts, nodes, op, loc)
        return CallInfo(CallKind.METHOD, sig, (cls, name), name, recv, payload, arg_nodes=nodes)

    def record_call(self, node, info):
        self.tf.calls[node] = info

