"""Binding a call's arguments to parameters: positional, keywords, defaults.

:func:`bind_arguments` orders the arguments of a call of a Python function (a device
function) by its parameters, filling defaults as constants; :func:`fold_kwargs` does
the same for a registered callable whose typer declared its parameter names.  Both
raise CPython's messages (unexpected keyword, multiple values, missing argument) as
located TypingErrors.
"""

from __future__ import annotations

from .. import ir
from ..errors import TypingError
from ..types import Tuple

__all__ = ["bind_arguments", "fold_kwargs", "pack_varargs"]


def bind_arguments(inf, e, fir, args, consts, kw):
    """Arguments of a call to a Python function in parameter order: positional,
    then keywords, then the function's default values (as constants); for a function
    with ``*args``, the extra positional arguments packed into one tuple."""
    if fir.vararg is not None:
        return pack_varargs(inf, e, fir, args, consts, kw, list(e.args))
    params = fir.params
    if len(args) > len(params):
        raise TypingError(f"{fir.qualname}() takes {len(params)} argument(s) but {len(args)} were given",
                          e.loc)
    if not kw and len(args) == len(params):
        return args, consts, None
    unknown = set(kw) - set(params)
    if unknown:
        raise TypingError(f"{fir.qualname}() got an unexpected keyword argument {sorted(unknown)[0]!r}", e.loc)
    twice = [p for p in params[:len(args)] if p in kw]
    if twice:
        raise TypingError(f"{fir.qualname}() got multiple values for argument {twice[0]!r}", e.loc)
    if not kw and any(p not in fir.defaults for p in params[len(args):]):
        raise TypingError(f"{fir.qualname}() takes {len(params)} argument(s) but {len(args)} were given", e.loc)
    args, consts, nodes = list(args), list(consts), list(e.args)
    for p in params[len(args):]:
        if p in kw:
            t, c, node = kw.pop(p)
        elif p in fir.defaults:
            node = ir.Const(e.loc, fir.defaults[p], f"default of {p}")
            t, c = inf.expr(node), fir.defaults[p]
        else:
            raise TypingError(f"{fir.qualname}() is missing argument {p!r}", e.loc)
        args.append(t)
        consts.append(c)
        nodes.append(node)
    if kw:
        raise TypingError(f"{fir.qualname}() got multiple values for argument {next(iter(kw))!r}", e.loc)
    return args, consts, tuple(nodes)

def fold_kwargs(e, params, args, consts, kw, name=None, defaults=None, inf=None):
    """Fold keyword arguments into positional order: (types, consts, arg nodes).  A
    parameter skipped before a keyword takes its value from ``defaults`` (typed as a
    constant by inference ``inf``), else is an error."""
    name = name or "function"
    if params is None:
        raise TypingError(f"{name}() does not take keyword arguments", e.loc)
    args, consts, nodes = list(args), list(consts), list(e.args)
    for i, p in enumerate(params):
        if p in kw:
            if i < len(args):
                raise TypingError(f"{name}() got multiple values for argument {p!r}", e.loc)
            while len(args) < i and defaults and inf is not None and params[len(args)].lstrip("/") in defaults:
                value = defaults[params[len(args)].lstrip("/")]
                node = ir.Const(e.loc, value, f"default of {params[len(args)]}")
                args.append(inf.expr(node))
                consts.append(value)
                nodes.append(node)
            if len(args) < i:
                raise TypingError(f"{name}() is missing argument {params[len(args)]!r}", e.loc)
            t, c, node = kw.pop(p)
            args.append(t)
            consts.append(c)
            nodes.append(node)
    if kw:
        raise TypingError(f"{name}() got an unexpected keyword argument {next(iter(kw))!r}", e.loc)
    return args, consts, tuple(nodes)


def pack_varargs(inf, e, fir, args, consts, kw, nodes):
    """``(args, consts, nodes)`` of a call to ``fir``, which takes ``*args``: the
    positional arguments past its named parameters become one tuple (a TupleExpr of
    their expressions, typed from the types already inferred)."""
    fixed = fir.params[:-1]
    if kw:
        raise TypingError(f"{fir.qualname}() takes *{fir.vararg}: calls passing keyword arguments to it are not "
                          "supported (pass them by position)", e.loc)
    if len(args) < len(fixed):
        raise TypingError(f"{fir.qualname}() is missing argument {fixed[len(args)]!r}", e.loc)
    n = len(fixed)
    rest = ir.TupleExpr(e.loc, list(nodes[n:]))
    inf.tf.typemap[rest] = t = Tuple(list(args[n:]))
    rest_consts = tuple(consts[n:])
    c = ir.NOTCONST if any(x is ir.NOTCONST for x in rest_consts) else rest_consts
    return [*args[:n], t], [*consts[:n], c], (*nodes[:n], rest)
