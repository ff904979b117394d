"""Variable versions (SSA form) of a function's structured IR, as numba types them.

Every assignment to a local defines a new *version* of it; a use reads the one
version that reaches it.  Where control flow joins (after an ``if``, at a loop
header, after a loop) and different versions of a variable arrive, a *phi*
version merges them; phis that no use needs are dropped (numba: a variable is
unified only where both definitions reach a use), and phis merging one version
with itself or with "not assigned on this path" are replaced by that version.

Typing gives each version its own type (a phi's type unifies its incoming
versions' types); lowering gives each version its own storage, and a definition
that flows into phis also stores its value, converted, into each of them (the
phis' storage then holds, at every join, the value of the definition that
reached it).  Version names: the first surviving version of ``x`` is ``x``,
later ones ``x.1``, ``x.2``, ... in source order.

The analysis depends on the IR only (not on types), so it is made once per
function by the frontend and shared by every signature.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import Loc
from . import _nodes as n
from ._walk import walk_exprs, walk_stmts

__all__ = ["SSAInfo", "Version", "build_ssa"]


@dataclass(eq=False)
class Version:
    """One version of a local: a parameter, a definition or a phi (a merge)."""

    name: str  # the version's name (``x``, ``x.1``)
    var: str  # the source variable
    kind: str  # 'param' | 'def' | 'phi'
    loc: Loc  # where it is defined (the join's statement for a phi)
    incoming: list = field(default_factory=list)  # a phi's incoming Versions
    feeds: list = field(default_factory=list)  # the phis this version flows into directly
    stores: list = field(default_factory=list)  # every phi its value reaches (what lowering stores into)
    use_loc: Loc | None = None  # a phi's first use (where its merged value is needed)
    const: object = n.NOTCONST  # the literal a 'def' version assigns, else NOTCONST

    def __repr__(self):
        return f"<{self.kind} {self.name}>"


@dataclass(eq=False)
class SSAInfo:
    """Versions of one function: which version each use reads and each target defines."""

    versions: dict  # name -> Version, in creation order (parameters first)
    uses: dict  # Var node -> Version (None: no assignment reaches the use)
    defs: dict  # VarTarget node, or ForRange statement (its target) -> Version
    pruned: dict = field(default_factory=dict)  # If statement -> the branch built (True: body); see build_ssa

    def of_use(self, var_node):
        return self.uses.get(var_node)

    def of_def(self, node):
        return self.defs[node]


class _Loop:
    def __init__(self):
        self.breaks: list = []
        self.continues: list = []


class _Builder:
    def __init__(self, fir, pruned):
        self.fir = fir
        self.pruned = pruned
        self.all: list = []  # every Version made, in creation order
        self.uses: dict = {}
        self.defs: dict = {}
        self.loops: list = []
        self.dead = 0  # > 0 inside unreachable statements (their break/continue join nothing)

    def new(self, var, kind, loc, const=n.NOTCONST):
        v = Version(var, var, kind, loc, const=const)
        self.all.append(v)
        return v

    # -- statements ---------------------------------------------------------------------
    def block(self, stmts, env):
        for i, s in enumerate(stmts):
            out = getattr(self, "s_" + type(s).__name__)(s, env)
            if out is None:  # control does not reach the next statement: the rest is dead code,
                self.dead += 1  # still typed and lowered, its uses reading what reached this point
                self.block(stmts[i + 1:], dict(env))
                self.dead -= 1
                return None
            env = out
        return env

    def read(self, node, env):
        for e in walk_exprs(node):
            if isinstance(e, n.Var):
                self.uses[e] = env.get(e.name)

    def s_Assign(self, s, env):
        self.read(s.value, env)
        env = dict(env)
        self.define(s.target, env, s.value)
        return env

    def define(self, target, env, value=None):
        if isinstance(target, n.VarTarget):
            const = _literal(value) if value is not None else n.NOTCONST
            v = self.defs[target] = self.new(target.name, "def", target.loc, const)
            env[target.name] = v
        elif isinstance(target, n.TupleTarget):
            for item in target.items:
                self.define(item, env)
        else:  # a[i] = ..., o.x = ...: reads only
            self.read(target.value, env)
            if isinstance(target, n.IndexTarget):
                self.read(target.index, env)

    def s_ExprStmt(self, s, env):
        self.read(s.value, env)
        return env

    def s_Assert(self, s, env):
        self.read(s.test, env)
        if s.msg is not None:
            self.read(s.msg, env)
        return env

    def s_Return(self, s, env):
        if s.value is not None:
            self.read(s.value, env)
        return None

    def s_Raise(self, s, env):
        if s.exc is not None:
            self.read(s.exc, env)
        return None

    def s_Break(self, s, env):
        if not self.dead:
            self.loops[-1].breaks.append(env)
        return None

    def s_Continue(self, s, env):
        if not self.dead:
            self.loops[-1].continues.append(env)
        return None

    def s_If(self, s, env):
        self.read(s.test, env)
        live = self.pruned.get(s)
        if live is not None:  # a branch typing pruned: only the live one defines and joins
            return self.block(s.body if live else s.orelse, dict(env))
        then = self.block(s.body, dict(env))
        other = self.block(s.orelse, dict(env))
        return self.join([e for e in (then, other) if e is not None], s.loc)

    def s_While(self, s, env):
        def head(henv):
            self.read(s.test, henv)

        forever = isinstance(s.test, n.Const) and _truthy(s.test.value)
        return self.loop(s, env, head, None, exits_at_head=not forever)

    def s_ForRange(self, s, env):
        for e in (s.start, s.stop, s.step):
            self.read(e, env)

        def bind(benv):
            v = self.defs[s] = self.new(s.target, "def", s.loc)
            benv[s.target] = v

        return self.loop(s, env, None, bind, exits_at_head=True)

    def s_ForIter(self, s, env):
        self.read(s.iter, env)
        return self.loop(s, env, None, lambda benv: self.define(s.target, benv), exits_at_head=True)

    def loop(self, s, env, head, bind, exits_at_head):
        names = _assigned(s)
        henv = dict(env)
        phis = {}
        for name in sorted(names):
            p = phis[name] = self.new(name, "phi", s.loc)
            p.incoming.append(env.get(name))
            henv[name] = p
        if head is not None:
            head(henv)
        benv = dict(henv)
        if bind is not None:
            bind(benv)
        self.loops.append(_Loop())
        end = self.block(s.body, benv)
        ctx = self.loops.pop()
        for back in ([end] if end is not None else []) + ctx.continues:
            for name, p in phis.items():
                p.incoming.append(back.get(name))
        exits = ([henv] if exits_at_head else []) + ctx.breaks
        return self.join(exits, s.loc) if exits else None

    def join(self, envs, loc):
        if not envs:
            return None
        if len(envs) == 1:
            return envs[0]
        out = {}
        for name in {k for e in envs for k in e}:
            arriving = [e.get(name) for e in envs]
            first = arriving[0]
            if all(a is first for a in arriving):
                out[name] = first
                continue
            p = out[name] = self.new(name, "phi", loc)
            p.incoming.extend(arriving)
        return out

    # -- finishing -----------------------------------------------------------------------
    def finish(self, params_v) -> SSAInfo:
        replaced: dict = {}

        def resolve(v):
            while v is not None and v in replaced:
                v = replaced[v]
            return v

        phis = [v for v in self.all if v.kind == "phi"]
        changed = True
        while changed:  # drop trivial phis: one distinct incoming version (besides itself/undefined)
            changed = False
            for p in phis:
                if p in replaced:
                    continue
                distinct = []
                for v in map(resolve, p.incoming):
                    if v is not None and v is not p and v not in distinct:
                        distinct.append(v)
                if len(distinct) <= 1:
                    replaced[p] = distinct[0] if distinct else None
                    changed = True
        for node, v in self.uses.items():
            self.uses[node] = resolve(v)
        live = [p for p in phis if p not in replaced]
        for p in live:
            p.incoming = list(dict.fromkeys(v for v in map(resolve, p.incoming) if v is not None and v is not p))
        needed = set()
        work = []
        for node, v in self.uses.items():  # a phi is needed when a use reads it, directly or through phis
            if v is not None and v.kind == "phi":
                if v.use_loc is None:
                    v.use_loc = node.loc
                if v not in needed:
                    needed.add(v)
                    work.append(v)
        while work:
            p = work.pop()
            for v in p.incoming:
                if v.kind == "phi":
                    if v.use_loc is None:
                        v.use_loc = p.use_loc
                    if v not in needed:
                        needed.add(v)
                        work.append(v)
        kept = [v for v in self.all if v.kind != "phi" or v in needed]
        for p in kept:
            if p.kind == "phi":
                for v in p.incoming:
                    v.feeds.append(p)
        for v in kept:  # every phi a version's value reaches (through chains of phis)
            seen, stack = [], list(v.feeds)
            while stack:
                p = stack.pop()
                if p not in seen:
                    seen.append(p)
                    stack.extend(p.feeds)
            v.stores = [p for p in seen if p is not v]
        count: dict = {}
        versions = {}
        for v in kept:
            k = count.get(v.var, 0)
            count[v.var] = k + 1
            v.name = v.var if k == 0 else f"{v.var}.{k}"
            versions[v.name] = v
        return SSAInfo(versions, self.uses, self.defs, dict(self.pruned))


def build_ssa(fir, pruned=None) -> SSAInfo:
    """The versions of ``fir``'s locals (see the module docstring).  ``pruned`` maps
    ``if`` statements whose condition typing found constant to the branch that runs
    (True: the body): only that branch's definitions reach the join, as after numba's
    dead-branch pruning (typing asks for this when the merge of a pruned branch's
    definitions does not type)."""
    b = _Builder(fir, pruned or {})
    env = {}
    params = []
    for p in fir.params:
        v = b.new(p, "param", fir.loc)
        env[p] = v
        params.append(v)
    b.block(fir.body, env)
    return b.finish(params)


def _assigned(loop) -> set:
    """Locals assigned anywhere in a loop (its target and body)."""
    names = set()

    def targets(t):
        if isinstance(t, n.VarTarget):
            names.add(t.name)
        elif isinstance(t, n.TupleTarget):
            for i in t.items:
                targets(i)

    if isinstance(loop, n.ForRange):
        names.add(loop.target)
    elif isinstance(loop, n.ForIter):
        targets(loop.target)
    for s in walk_stmts(loop.body):
        if isinstance(s, n.Assign):
            targets(s.target)
        elif isinstance(s, n.ForRange):
            names.add(s.target)
        elif isinstance(s, n.ForIter):
            targets(s.target)
    return names


def _literal(e):
    """The value of a literal number or a tuple of them, else NOTCONST."""
    if isinstance(e, n.Const) and e.name is None and isinstance(e.value, (bool, int, float)):
        return e.value
    if isinstance(e, n.TupleExpr):
        items = [_literal(i) for i in e.items]
        return n.NOTCONST if any(i is n.NOTCONST for i in items) else tuple(items)
    return n.NOTCONST


def _truthy(v) -> bool:
    try:
        return bool(v)
    except Exception:  # an object without a truth value
        return False
