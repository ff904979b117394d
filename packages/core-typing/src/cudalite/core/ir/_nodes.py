"""IR nodes: a structured tree of statements and expressions, each with a ``loc``.

The IR mirrors Python's structured control flow (the NVVM optimizer builds SSA
from it).  Nodes are compared by identity, so typing results live in side
tables keyed by node (see :class:`cudalite.core.typing.TypedFunction`) and one
IR serves every signature of a function.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import Loc

__all__ = [
    "Node", "Expr", "Const", "Var", "BinOp", "UnaryOp", "Compare", "BoolOp", "IfExp",
    "Call", "Starred", "StarItem", "Attr", "Index", "TupleExpr", "SliceExpr",
    "Stmt", "Assign", "If", "While", "ForRange", "ForIter",
    "Break", "Continue", "Return", "ExprStmt", "Raise", "Assert", "VarTarget",
    "IndexTarget", "AttrTarget", "TupleTarget", "FunctionIR", "NOTCONST",
]


class _NotConst:
    def __repr__(self):
        return "NOTCONST"


NOTCONST = _NotConst()


@dataclass(eq=False)
class Node:
    loc: Loc


# -- expressions ------------------------------------------------------------
@dataclass(eq=False)
class Expr(Node):
    pass


@dataclass(eq=False)
class Const(Expr):
    """A literal or a frozen global / closure value (``name`` says which)."""

    value: object
    name: str | None = None


@dataclass(eq=False)
class Var(Expr):
    name: str


@dataclass(eq=False)
class BinOp(Expr):
    op: str  # '+', '-', '*', '/', '//', '%', '**', '<<', '>>', '&', '|', '^', '@'
    left: Expr
    right: Expr


@dataclass(eq=False)
class UnaryOp(Expr):
    op: str  # '-', '+', '~', 'not'
    operand: Expr


@dataclass(eq=False)
class Compare(Expr):
    """``a < b <= c``: ``ops[i]`` compares ``operands[i]`` and ``operands[i+1]``."""

    ops: list
    operands: list


@dataclass(eq=False)
class BoolOp(Expr):
    op: str  # 'and' | 'or'
    values: list


@dataclass(eq=False)
class IfExp(Expr):
    test: Expr
    body: Expr
    orelse: Expr


@dataclass(eq=False)
class Call(Expr):
    func: Expr
    args: list
    kwargs: dict = field(default_factory=dict)


@dataclass(eq=False)
class Starred(Expr):
    """``*value`` among a call's arguments; typing replaces it by one
    :class:`StarItem` per item of the tuple ``value``."""

    value: Expr


@dataclass(eq=False)
class StarItem(Expr):
    """Item ``index`` of the tuple ``value`` unpacked into a call's arguments by
    ``*value`` (``count`` items); ``value`` is evaluated once, at item 0."""

    value: Expr
    index: int
    count: int


@dataclass(eq=False)
class Attr(Expr):
    value: Expr
    attr: str


@dataclass(eq=False)
class Index(Expr):
    value: Expr
    index: Expr


@dataclass(eq=False)
class TupleExpr(Expr):
    items: list


@dataclass(eq=False)
class SliceExpr(Expr):
    """``lower:upper:step`` inside a subscript; absent parts are None."""

    lower: Expr | None
    upper: Expr | None
    step: Expr | None


# -- assignment targets -------------------------------------------------------
@dataclass(eq=False)
class VarTarget(Node):
    name: str


@dataclass(eq=False)
class IndexTarget(Node):
    value: Expr
    index: Expr


@dataclass(eq=False)
class AttrTarget(Node):
    value: Expr
    attr: str


@dataclass(eq=False)
class TupleTarget(Node):
    items: list


# -- statements ----------------------------------------------------------------
@dataclass(eq=False)
class Stmt(Node):
    pass


@dataclass(eq=False)
class Assign(Stmt):
    target: Node
    value: Expr


@dataclass(eq=False)
class If(Stmt):
    test: Expr
    body: list
    orelse: list


@dataclass(eq=False)
class While(Stmt):
    test: Expr
    body: list


@dataclass(eq=False)
class ForRange(Stmt):
    """``for target in range(start, stop, step)``; ``step`` may be a Const."""

    target: str
    start: Expr
    stop: Expr
    step: Expr
    body: list


@dataclass(eq=False)
class ForIter(Stmt):
    """``for target in iterable``: an array (its elements or rows), a tuple,
    ``enumerate(...)`` or ``zip(...)`` of those."""

    target: Node
    iter: Expr
    body: list


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None


@dataclass(eq=False)
class ExprStmt(Stmt):
    value: Expr


@dataclass(eq=False)
class Raise(Stmt):
    exc: Expr | None


@dataclass(eq=False)
class Assert(Stmt):
    test: Expr
    msg: Expr | None


@dataclass(eq=False)
class FunctionIR:
    """One Python function: its parameters, body and where it came from."""

    name: str
    qualname: str
    module: str
    params: list
    body: list
    loc: Loc
    pyfunc: object = None
    constants: dict = field(default_factory=dict)  # locals assigned one constant once
    defaults: dict = field(default_factory=dict)  # parameter -> default value (frozen at compile time)
    ssa: object = None  # the SSAInfo (variable versions) made by the frontend; see ir/_ssa.py
    vararg: str | None = None  # ``*args``: the last of ``params``, a tuple of the extra arguments
