"""AST -> IR: translate a Python function's AST into cudalite IR nodes.

Names that the function assigns are locals (Python's scoping rule); every other
name is resolved once, here, to a frozen constant (closure cell, global,
builtin).  Attribute chains on modules and registered objects
(``cuda.threadIdx.x``, ``math.pi``) are resolved here too.  Anything the
compiler does not support is rejected with its exact location.
"""

from __future__ import annotations

import ast

from .. import ir
from ..numpy_support import is_ndarray, is_numpy_scalar
from ..errors import TypingError, UnsupportedError
from ..types import BrokenDeviceArray, DeviceArrayRef
from ..types._extension import has_extension_type
from ._nested import assigned_names, escape_error, inner_function, literal_locals
from ..typing._fold import fold_literals
from ..value_text import exception_text, value_text
from ._source import SourceInfo, capture, free_values, lookup_free

__all__ = ["build_ir"]

_BINOPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&",
    ast.BitOr: "|", ast.BitXor: "^", ast.MatMult: "@",
}
_UNARY = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}
_CMPOPS = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}
_UNSUPPORTED_STMTS = {
    ast.Try: "try/except", ast.With: "'with' statements", ast.AsyncWith: "'async with'",
    ast.ClassDef: "class definitions", ast.Global: "'global' statements",
    ast.Nonlocal: "'nonlocal' statements", ast.Delete: "'del' statements",
    ast.Import: "import statements", ast.ImportFrom: "import statements",
    ast.AsyncFor: "'async for'",
}
_VALUE_TYPES = (int, float, complex, bool, str, tuple, type(None))


def build_ir(func) -> ir.FunctionIR:
    """Parse ``func``'s source and build its :class:`FunctionIR`."""
    src = capture(func)
    return _Builder(src.func, src).build()  # src.func: what a source-less wrapper wraps


class _Builder:
    def __init__(self, func, src: SourceInfo):
        self.func = func
        self.src = src
        self.cells, self.globs = free_values(func)
        self.tmp = 0
        self.break_flags: list = []  # per enclosing loop: the flag its 'else' tests, or None
        self.locals: set[str] = set()
        self.inner_functions: dict = {}  # nested def name -> its function object (_nested.py)
        self.literal_locals: dict = {}  # locals assigned once to a literal: what nested defs may read
        self.lifted: dict = {}  # nested def name -> the run-time variables each call passes it (_nested.py)

    # -- entry -----------------------------------------------------------------
    def build(self) -> ir.FunctionIR:
        node = self.src.node
        args = node.args
        loc = self.src.loc(node)
        if args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise UnsupportedError("**kwargs and keyword-only parameters are not supported", loc)
        params = list(getattr(self.func, "__cudalite_lifted__", ())) + [a.arg for a in args.args]
        values = getattr(self.func, "__defaults__", None) or ()
        defaults = dict(zip(params[len(params) - len(values):], values)) if values else {}
        vararg = args.vararg.arg if args.vararg else None
        if vararg is not None:  # *args: one more parameter, the tuple of the extra arguments
            params.append(vararg)
        self.locals = set(params) | assigned_names(node)
        if not isinstance(node, ast.Lambda):
            self.literal_locals = literal_locals(node, set(params))
        if isinstance(node, ast.Lambda):
            body = [ir.Return(self.src.loc(node.body), self.expr(node.body))]
        else:
            body = self.stmts(node.body)
        fir = ir.FunctionIR(
            name=self.func.__name__,
            qualname=self.func.__qualname__,
            module=getattr(self.func, "__module__", None) or "__main__",
            params=params,
            body=body,
            loc=loc,
            pyfunc=self.func,
            constants=_single_constants(body, set(params)),
            defaults=defaults,
            vararg=vararg,
        )
        fir.ssa = ir.build_ssa(fir)  # variable versions: each assignment typed on its own
        return fir

    def loc(self, node):
        return self.src.loc(node)

    # -- statements ----------------------------------------------------------------
    def stmts(self, nodes):
        out = []
        for n in nodes:
            out.extend(self.stmt(n))
        return out

    def stmt(self, n):
        loc = self.loc(n)
        for cls, what in _UNSUPPORTED_STMTS.items():
            if isinstance(n, cls):
                raise UnsupportedError(f"{what} are not supported in device code", loc)
        if isinstance(n, ast.Assign):
            value = self.expr(n.value)
            if len(n.targets) == 1:
                return [ir.Assign(loc, self.target(n.targets[0]), value)]
            tmp = self.new_tmp()
            out = [ir.Assign(loc, ir.VarTarget(loc, tmp), value)]
            out += [ir.Assign(loc, self.target(t), ir.Var(loc, tmp)) for t in n.targets]
            return out
        if isinstance(n, ast.AnnAssign):
            if n.value is None:
                return []
            return [ir.Assign(loc, self.target(n.target), self.expr(n.value))]
        if isinstance(n, ast.AugAssign):
            target = self.target(n.target)
            current = self.expr(n.target)
            op = _BINOPS[type(n.op)]
            return [ir.Assign(loc, target, ir.BinOp(loc, op, current, self.expr(n.value)))]
        if isinstance(n, ast.Expr):
            if isinstance(n.value, ast.Constant) and isinstance(n.value.value, str):
                return []  # docstring or bare string
            return [ir.ExprStmt(loc, self.expr(n.value))]
        if isinstance(n, ast.Pass):
            return []
        if isinstance(n, ast.If):
            return [ir.If(loc, self.expr(n.test), self.stmts(n.body), self.stmts(n.orelse))]
        if isinstance(n, (ast.While, ast.For)):
            return self.loop(n, loc)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return inner_function(self, n, loc)
        if isinstance(n, ast.Break):
            flag = self.break_flags[-1] if self.break_flags else None
            if flag is not None:  # leaving a loop that has an 'else': the else is skipped
                return [ir.Assign(loc, ir.VarTarget(loc, flag), ir.Const(loc, True)), ir.Break(loc)]
            return [ir.Break(loc)]
        if isinstance(n, ast.Continue):
            return [ir.Continue(loc)]
        if isinstance(n, ast.Return):
            return [ir.Return(loc, None if n.value is None else self.expr(n.value))]
        if isinstance(n, ast.Raise):
            if n.cause is not None:
                raise UnsupportedError("'raise ... from ...' is not supported", loc)
            return [ir.Raise(loc, None if n.exc is None else self.expr(n.exc))]
        if isinstance(n, ast.Assert):
            return [ir.Assert(loc, self.expr(n.test), None if n.msg is None else self.expr(n.msg))]
        raise UnsupportedError(f"the statement '{type(n).__name__}' is not supported in device code", loc)

    def loop(self, n, loc):
        """A ``for`` or ``while`` loop.  ``else:`` (run when the loop ends without
        ``break``) becomes a flag the loop's own breaks set and an ``if not flag`` after
        it, so typing and lowering see only plain loops."""
        flag = self.new_tmp() if n.orelse else None
        self.break_flags.append(flag)
        try:
            if isinstance(n, ast.While):
                loop = ir.While(loc, self.expr(n.test), self.stmts(n.body))
            else:
                loop = self.for_stmt(n, loc)
        finally:
            self.break_flags.pop()
        if flag is None:
            return [loop]
        return [ir.Assign(loc, ir.VarTarget(loc, flag), ir.Const(loc, False)), loop,
                ir.If(loc, ir.UnaryOp(loc, "not", ir.Var(loc, flag)), self.stmts(n.orelse), [])]

    def for_stmt(self, n, loc):
        it = n.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and it.func.id not in self.locals and self._resolve("range") is range):
            # arrays (rows), tuples, enumerate(...), zip(...): typed and lowered as counted loops
            return ir.ForIter(loc, self.target(n.target), self.expr(it), self.stmts(n.body))
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise TypingError("range() takes 1 to 3 positional arguments", self.loc(it))
        if not isinstance(n.target, ast.Name):
            raise UnsupportedError("the target of a range loop must be a single name", self.loc(n.target))
        args = [self.expr(a) for a in it.args]
        one = ir.Const(loc, 1)
        if len(args) == 1:
            start, stop, step = ir.Const(loc, 0), args[0], one
        elif len(args) == 2:
            (start, stop), step = args, one
        else:
            start, stop, step = args
        return ir.ForRange(loc, n.target.id, start, stop, step, self.stmts(n.body))

    def target(self, t):
        loc = self.loc(t)
        if isinstance(t, ast.Name):
            return ir.VarTarget(loc, t.id)
        if isinstance(t, ast.Subscript):
            return ir.IndexTarget(loc, self.expr(t.value), self.index(t.slice))
        if isinstance(t, ast.Attribute):
            return ir.AttrTarget(loc, self.expr(t.value), t.attr)
        if isinstance(t, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in t.elts):
                raise UnsupportedError("starred assignment targets are not supported", loc)
            return ir.TupleTarget(loc, [self.target(e) for e in t.elts])
        raise UnsupportedError(f"cannot assign to {ast.unparse(t)!r}", loc)

    def new_tmp(self):
        self.tmp += 1
        name = f"$tmp{self.tmp}"
        self.locals.add(name)
        return name

    # -- expressions ---------------------------------------------------------------
    def expr(self, n):
        loc = self.loc(n)
        meth = getattr(self, "expr_" + type(n).__name__, None)
        if meth is None:
            raise UnsupportedError(f"the expression '{_describe(n)}' is not supported in device code", loc)
        return meth(n, loc)

    def expr_Constant(self, n, loc):
        if n.value is Ellipsis:  # a bytes constant types as BytesLiteral (stored into S<n> elements)
            raise UnsupportedError(f"the constant {n.value!r} is not supported", loc)
        return ir.Const(loc, n.value)

    def expr_Name(self, n, loc):
        if n.id in self.lifted:
            raise escape_error(self, n.id, loc)
        if n.id in self.locals:
            return ir.Var(loc, n.id)
        found, value = self._resolve_checked(n.id)
        if not found and n.id == self.func.__name__ != "<lambda>":
            # its own name, not bound yet (``@cuda.jit("i8(i8)", device=True)`` compiles while it
            # decorates): a recursive call, as in numba
            found, value = True, self.func
        if not found:
            raise TypingError(f"name {n.id!r} is not defined (not a local, global, closure variable or builtin)", loc)
        return ir.Const(loc, value, n.id)

    def _resolve_checked(self, name):
        return lookup_free(name, self.cells, self.globs)

    def _resolve(self, name):
        return self._resolve_checked(name)[1]

    def expr_BinOp(self, n, loc):
        left, right = self.expr(n.left), self.expr(n.right)
        return _folded_literal(loc, _BINOPS[type(n.op)], left, right) or ir.BinOp(loc, _BINOPS[type(n.op)], left, right)

    def expr_UnaryOp(self, n, loc):
        operand = self.expr(n.operand)
        return _folded_literal(loc, _UNARY[type(n.op)], operand) or ir.UnaryOp(loc, _UNARY[type(n.op)], operand)

    def expr_BoolOp(self, n, loc):
        return ir.BoolOp(loc, "and" if isinstance(n.op, ast.And) else "or", [self.expr(v) for v in n.values])

    def expr_Compare(self, n, loc):
        return ir.Compare(
            loc, [_CMPOPS[type(o)] for o in n.ops], [self.expr(n.left)] + [self.expr(c) for c in n.comparators]
        )

    def expr_IfExp(self, n, loc):
        return ir.IfExp(loc, self.expr(n.test), self.expr(n.body), self.expr(n.orelse))

    def expr_Call(self, n, loc):
        if any(k.arg is None for k in n.keywords):
            raise UnsupportedError("calls with **kwargs are not supported in device code", loc)
        args = [ir.Starred(self.loc(a), self.expr(a.value)) if isinstance(a, ast.Starred) else self.expr(a)
                for a in n.args]
        if isinstance(n.func, ast.Name) and n.func.id in self.lifted:  # a lifted nested function
            captured = [ir.Var(loc, name) for name in self.lifted[n.func.id]]
            return ir.Call(loc, ir.Var(self.loc(n.func), n.func.id), captured + args,
                           {k.arg: self.expr(k.value) for k in n.keywords})
        return ir.Call(
            loc, self.expr(n.func), args,
            {k.arg: self.expr(k.value) for k in n.keywords},
        )

    def expr_Attribute(self, n, loc):
        base = self.expr(n.value)
        if isinstance(base, ir.Const) and _foldable(base.value):
            what = base.name or value_text(base.value)
            try:
                value = getattr(base.value, n.attr)
            except AttributeError:
                raise TypingError(f"{what} has no attribute {n.attr!r}", loc) from None
            except Exception as exc:  # the user's __getattr__ or property
                raise TypingError(f"reading {what}.{n.attr} at compile time raised {exception_text(exc)}",
                                  loc) from None
            return ir.Const(loc, value, f"{base.name}.{n.attr}")
        return ir.Attr(loc, base, n.attr)

    def expr_Subscript(self, n, loc):
        return ir.Index(loc, self.expr(n.value), self.index(n.slice))

    def index(self, s):
        if isinstance(s, ast.Slice):
            return self.slice(s)
        if isinstance(s, ast.Tuple) and any(isinstance(e, ast.Slice) for e in s.elts):
            items = [self.slice(e) if isinstance(e, ast.Slice) else self.expr(e) for e in s.elts]
            return ir.TupleExpr(self.loc(s), items)
        return self.expr(s)

    def slice(self, s):
        parts = [None if p is None else self.expr(p) for p in (s.lower, s.upper, s.step)]
        return ir.SliceExpr(self.loc(s), *parts)

    def expr_Tuple(self, n, loc):
        if any(isinstance(e, ast.Starred) for e in n.elts):
            raise UnsupportedError("starred expressions are not supported", loc)
        return ir.TupleExpr(loc, [self.expr(e) for e in n.elts])


def _folded_literal(loc, op, *operands):
    """The literal CPython's compiler folds integer literals into (numba types that value:
    ``-9223372036854775808`` is an int64, ``65535 ** 4`` a uint64), or None."""
    if not all(isinstance(o, ir.Const) and o.name is None for o in operands):
        return None
    value = fold_literals(op, *(o.value for o in operands))
    return None if value is ir.NOTCONST else ir.Const(loc, value)


def _describe(n):
    names = {
        "List": "list display", "Dict": "dict display", "Set": "set display",
        "ListComp": "list comprehension", "SetComp": "set comprehension",
        "DictComp": "dict comprehension", "GeneratorExp": "generator expression",
        "Lambda": "lambda", "Yield": "yield", "YieldFrom": "yield from", "Await": "await",
        "JoinedStr": "f-string", "Starred": "starred expression", "NamedExpr": "':=' expression",
    }
    return names.get(type(n).__name__, type(n).__name__)


def _foldable(value) -> bool:
    """Attributes of these compile-time objects are resolved by the frontend (a value an
    extension types is a typed constant: its attributes are the extension's)."""
    return not (isinstance(value, _VALUE_TYPES) or is_ndarray(value) or is_numpy_scalar(value)
                or isinstance(value, (DeviceArrayRef, BrokenDeviceArray)) or has_extension_type(value))


def _single_constants(body, params) -> dict:
    """Locals assigned exactly once, to a literal or frozen number/tuple constant."""
    counts: dict[str, int] = {}
    values: dict[str, object] = {}

    for s in ir.walk_stmts(body):
        if isinstance(s, ir.Assign):
            _count_targets(s.target, counts)
            if isinstance(s.target, ir.VarTarget):
                value = _literal(s.value)
                if value is not ir.NOTCONST:
                    values[s.target.name] = value
        elif isinstance(s, ir.ForRange):
            counts[s.target] = counts.get(s.target, 0) + 2
        elif isinstance(s, ir.ForIter):
            _count_targets(s.target, counts)
            _count_targets(s.target, counts)
    return {
        k: v for k, v in values.items()
        if counts.get(k) == 1 and k not in params and (isinstance(v, (int, float, bool, tuple)) or is_numpy_scalar(v))
    }


def _literal(e):
    """The value of a constant or a tuple display of constants, else NOTCONST."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.TupleExpr):
        items = [_literal(i) for i in e.items]
        return ir.NOTCONST if any(i is ir.NOTCONST for i in items) else tuple(items)
    return ir.NOTCONST


def _count_targets(t, counts):
    if isinstance(t, ir.VarTarget):
        counts[t.name] = counts.get(t.name, 0) + 1
    elif isinstance(t, ir.TupleTarget):
        for i in t.items:
            _count_targets(i, counts)

