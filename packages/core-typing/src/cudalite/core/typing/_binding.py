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

__all__ = ["bind_arguments", "fold_kwargs"]


def bind_arguments(inf, e, fir, args, consts, kw):
    """Arguments of a call to a Python function in parameter order: positional,
    then keywords, then the function's default values (as constants)."""
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
