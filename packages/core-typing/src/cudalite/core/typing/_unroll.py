"""``for x in cuda.literal_unroll(t)`` over a tuple whose items have different types.

As numba, the loop body is typed once per item: typing raises :class:`UnrollRequest`
when it meets such a loop; :func:`run_unrolling` then types a copy of the function's IR
in which the loop is replaced by one copy of its body per item (preceded by
``x = t[i]``, ``i`` a constant) and tries again.  The original IR is left as it is (one
IR serves every signature).  A loop over a tuple whose items unify stays a loop.

``break`` and ``continue`` of the unrolled loop itself are refused (TypingError).
"""

from __future__ import annotations

import dataclasses

from .. import device_api as api
from .. import ir
from ..errors import TypingError
from ..types import Tuple
from ._records import CallKind
from .rules.casts import unify

__all__ = ["UnrollRequest", "check_unroll", "run_unrolling"]

_MAX_UNROLLS = 64  # loops unrolled in one function


class UnrollRequest(Exception):
    """Typing met ``stmt`` (an ir.ForIter over literal_unroll of a heterogeneous tuple)."""

    def __init__(self, stmt, n):
        super().__init__("literal_unroll")
        self.stmt, self.n = stmt, n


def check_unroll(inference, s):
    """Raise :class:`UnrollRequest` if ``s`` (an ir.ForIter) iterates ``literal_unroll``
    of a tuple whose item types do not unify."""
    e = s.iter
    if not isinstance(e, ir.Call) or len(e.args) != 1:
        return
    if isinstance(e.func, ir.Const) and e.func.value is not api.literal_unroll:
        return  # enumerate(...), zip(...), another function: not typed here
    t = inference.expr(e)
    info = inference.tf.calls.get(e)
    if info is None or info.kind is not CallKind.REGISTRY or info.key is not api.literal_unroll:
        return
    if not isinstance(t, Tuple) or len(t.types) < 2:
        return
    elem = t.types[0]
    for other in t.types[1:]:
        elem = unify(elem, other)
        if elem is None:
            raise UnrollRequest(s, len(t.types))


class PruneRequest(Exception):
    """Typing met a merge of variable versions that does not type, after pruning
    ``if`` statements on constant conditions (``pruned``: statement -> live branch):
    the versions are to be rebuilt with only the live branches."""

    def __init__(self, pruned):
        super().__init__("prune")
        self.pruned = pruned


def run_unrolling(make, fir):
    """``make(fir).run()``, unrolling the loops typing asks for and rebuilding the
    variable versions of pruned branches when it asks; the TypedFunction."""
    for _ in range(_MAX_UNROLLS):
        try:
            return make(fir).run()
        except UnrollRequest as req:
            fir = _unrolled(fir, req.stmt, req.n)
        except PruneRequest as req:
            fir = dataclasses.replace(fir, ssa=ir.build_ssa(fir, req.pruned))
    raise TypingError(f"{fir.qualname}: more than {_MAX_UNROLLS} literal_unroll loops", fir.loc)


def _unrolled(fir, loop, n):
    body = _replace(fir.body, loop, n, [0])
    return dataclasses.replace(fir, body=body, ssa=None)


def _replace(stmts, loop, n, counter):
    out = []
    for s in stmts:
        if s is loop:
            out.extend(_expand(s, n, counter))
            continue
        changes = {attr: _replace(getattr(s, attr), loop, n, counter) for attr in ir.STMT_BODIES
                   if isinstance(getattr(s, attr, None), list)}
        out.append(dataclasses.replace(s, **changes) if changes else s)
    return out


def _expand(s, n, counter):
    if _exits(s.body):
        raise TypingError("break/continue in a loop over cuda.literal_unroll() of a tuple with items of "
                          "different types are not supported (its body is copied once per item)", s.loc)
    counter[0] += 1
    tmp = f"$unroll{counter[0]}"
    out = [ir.Assign(s.loc, ir.VarTarget(s.loc, tmp), s.iter.args[0])]
    for i in range(n):
        item = ir.Index(s.loc, ir.Var(s.loc, tmp), ir.Const(s.loc, i))
        out.append(ir.Assign(s.loc, _copy(s.target), item))
        out.extend(_copy(b) for b in s.body)
    return out


def _exits(stmts) -> bool:
    """Does a statement of ``stmts`` (not inside a nested loop) break or continue?"""
    for s in stmts:
        if isinstance(s, (ir.Break, ir.Continue)):
            return True
        if isinstance(s, ir.If) and (_exits(s.body) or _exits(s.orelse)):
            return True
    return False


def _copy(node):
    """A copy of an IR node with fresh nodes under it (constant values are shared)."""
    if isinstance(node, list):
        return [_copy(x) for x in node]
    if isinstance(node, tuple):
        return tuple(_copy(x) for x in node)
    if isinstance(node, dict):
        return {k: _copy(v) for k, v in node.items()}
    if isinstance(node, ir.Const):
        return dataclasses.replace(node)
    if isinstance(node, ir.Node):
        return dataclasses.replace(node, **{f.name: _copy(getattr(node, f.name))
                                            for f in dataclasses.fields(node) if f.name != "loc"})
    return node
