"""Functions defined inside device code: ``def inner(x): ...`` in a kernel or device function.

numba compiles an inner function that is called or passed on (its
``MakeFunctionToJitFunction`` pass) when what it closes over is known at compile time.
Here the inner ``def`` becomes a compile-time constant: a Python function object made
from the inner code object the enclosing function already holds (so its source and line
numbers are the file's), whose closure cells hold the values it reads from the enclosing
function -- closure variables and globals of the enclosing function, locals assigned once
to a literal, and inner functions defined before it.  The constant is then typed and
compiled as any device function (called, passed to a device function, returned).

An inner function that reads a *run-time* variable of the enclosing function (a parameter,
a local computed at run time) is lifted, as numba's closure inlining has it see the value
at the call: the variables become its leading parameters (``__cudalite_lifted__``, read by
the IR builder) and each call ``inner(x)`` in the enclosing function passes their current
values (``inner(p, x)``), which is Python's late binding.  Such a function can only be
called there: passing it on, a ``nonlocal`` assignment, or another inner function reading
it are refused with a located error.
"""

from __future__ import annotations

import ast
import types as pytypes

from .. import ir
from ..errors import TypingError, UnsupportedError

__all__ = ["inner_function", "literal_locals", "assigned_names", "escape_error"]

_MISSING = object()


def assigned_names(fn_node) -> set[str]:
    """The names a function body assigns (nested function bodies excluded: their
    assignments are theirs), the names of nested ``def`` statements included."""
    names: set[str] = set()
    body = [fn_node.body] if isinstance(fn_node, ast.Lambda) else fn_node.body
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
            stack.extend(n.decorator_list)
            continue
        if isinstance(n, ast.Lambda):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
        stack.extend(ast.iter_child_nodes(n))
    return names


def literal_locals(fn_node, params) -> dict:
    """Locals of ``fn_node`` assigned exactly once, by a ``name = <literal>`` statement
    at the top of its body (not inside a branch or loop, so it has run before any later
    statement): what an inner function may close over."""
    counts: dict[str, int] = {}
    stack = list(fn_node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            if not isinstance(n, ast.Lambda):
                counts[n.name] = counts.get(n.name, 0) + 1
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            counts[n.id] = counts.get(n.id, 0) + 1
        stack.extend(ast.iter_child_nodes(n))
    values: dict[str, object] = {}
    for n in fn_node.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            try:
                values[n.targets[0].id] = ast.literal_eval(n.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
    return {k: v for k, v in values.items() if counts.get(k) == 1 and k not in params}


def _code_of(outer, node, line):
    """The inner code object ``outer``'s code holds for the ``def`` at ``line``."""
    first = min([line] + [d.lineno for d in node.decorator_list]) if node.decorator_list else line
    found = [c for c in outer.__code__.co_consts
             if isinstance(c, pytypes.CodeType) and c.co_name == node.name and c.co_firstlineno in (line, first)]
    return found[0] if len(found) == 1 else None


def inner_function(builder, node, loc):
    """The statements binding the nested ``def`` ``node`` (a constant function object)."""
    if isinstance(node, ast.AsyncFunctionDef):
        raise UnsupportedError("nested 'async def' is not supported in device code", loc)
    if node.decorator_list:
        raise UnsupportedError(f"the nested function {node.name!r} is decorated: define it undecorated (device "
                               "code compiles it for each call) or at module level", loc)
    outer = builder.func
    code = _code_of(outer, node, loc.line)
    if code is None:
        raise UnsupportedError(f"the nested function {node.name!r} cannot be matched to its compiled code "
                               "(define it at module level)", loc)
    cells, lifted = [], []
    for name in code.co_freevars:
        value = _captured(builder, name)
        if value is _MISSING:  # a run-time variable of the enclosing function: passed at each call
            _check_liftable(builder, node, name, loc)
            lifted.append(name)
            value = None
        cells.append(pytypes.CellType(value))
    defaults = []
    for d in node.args.defaults:
        try:
            defaults.append(ast.literal_eval(d))
        except (ValueError, TypeError, SyntaxError):
            raise UnsupportedError(f"the default values of the nested function {node.name!r} must be literals",
                                   builder.loc(d)) from None
    fn = pytypes.FunctionType(code, outer.__globals__, node.name, tuple(defaults) or None, tuple(cells) or None)
    fn.__qualname__ = code.co_qualname if hasattr(code, "co_qualname") else f"{outer.__qualname__}.<locals>.{node.name}"
    fn.__module__ = outer.__module__
    if lifted:
        fn.__cudalite_lifted__ = tuple(lifted)  # leading parameters of its IR (_build.py)
        builder.lifted[node.name] = tuple(lifted)
    else:
        builder.inner_functions[node.name] = fn
    return [ir.Assign(loc, ir.VarTarget(loc, node.name), ir.Const(loc, fn, node.name))]


def _check_liftable(builder, node, name, loc):
    """Refuse, located, what passing ``name`` at each call cannot express."""
    why = None
    if any(isinstance(n, ast.Nonlocal) for n in ast.walk(node)):
        why = "assigns a variable of the enclosing function (nonlocal)"
    elif name == node.name or name in builder.lifted:
        why = f"reads {name!r}, a nested function that itself reads run-time variables"
    if why:
        raise UnsupportedError(f"the nested function {node.name!r} {why}: not supported in device code (pass "
                               f"the values as arguments of {node.name}() instead)", loc)


def _captured(builder, name):
    """The compile-time value of enclosing-function variable ``name``, or _MISSING."""
    if name in builder.inner_functions:
        return builder.inner_functions[name]
    if name in builder.literal_locals:
        return builder.literal_locals[name]
    if name in builder.cells and name not in builder.locals:
        return builder.cells[name]
    return _MISSING


def escape_error(builder, name, loc) -> TypingError:
    """The error for lifted nested function ``name`` used other than called (passed
    on, stored): its run-time variables cannot travel with it.  numba's wording."""
    counts = _assignment_counts(builder.src.node)
    captured = builder.lifted[name]
    multiple = [v for v in captured if counts.get(v, 0) > 1]
    if multiple:
        return TypingError(f"Cannot capture a constant value for variable {multiple[0]!r} as there are multiple "
                           f"definitions present (the nested function {name!r} is passed on)", loc)
    return TypingError(f"Cannot capture the non-constant value associated with variable {captured[0]!r} in a "
                       f"function that may escape (the nested function {name!r} is passed on; it can only be "
                       "called in the function that defines it)", loc)


def _assignment_counts(fn_node) -> dict:
    """How many times each name is assigned in ``fn_node`` (nested bodies excluded)."""
    counts: dict[str, int] = {}
    stack = list(fn_node.body) if not isinstance(fn_node, ast.Lambda) else [fn_node.body]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            counts[n.id] = counts.get(n.id, 0) + 1
        stack.extend(ast.iter_child_nodes(n))
    return counts
