"""Pickling ``@cuda.jit`` dispatchers and ``@vectorize(target="cuda")`` ufuncs
(``pickle.dumps(kernel)``, multiprocessing), as numba does.

A dispatcher that its module names (``module.qualname`` is this very object) pickles
by reference: unpickling imports the module and takes the dispatcher there.  Any
other one (defined in a function, a closure, replaced in its module) pickles *by
value*: its Python function is rebuilt from its code object (``marshal``), the
globals its code reads, its closure cells, defaults and name, and a new dispatcher of
the same class, signatures and options is made around it (compiled again on first
use: compiled code is not pickled).  Modules among the globals travel by name,
functions that their module does not name travel by value, everything else through
pickle itself (so a global device array refuses to pickle, as in numba).

This is only for ``pickle`` streams the user makes and loads; cudalite's disk cache
never unpickles anything.
"""

from __future__ import annotations

import importlib
import marshal
import sys
import types as pytypes

__all__ = ["reduce_dispatcher", "reduce_ufunc"]


def _named(obj, module, qualname) -> bool:
    """Does ``module.qualname`` (importable) name ``obj`` itself?"""
    if not module or not qualname or "<locals>" in qualname:
        return False
    mod = sys.modules.get(module)
    if mod is None:
        return False
    target = mod
    for part in qualname.split("."):
        target = getattr(target, part, None)
        if target is None:
            return False
    return target is obj


class _Module:
    """A module inside a pickled function's globals: pickled by name."""

    def __init__(self, name):
        self.name = name

    def __reduce__(self):
        return importlib.import_module, (self.name,)


class _SelfRef:
    """A global of a pickled function that is the dispatcher being pickled (recursion)."""

    def __reduce__(self):
        return _SelfRef, ()


class _ByValue:
    """A Python function that its module does not name: pickled by value."""

    def __init__(self, fn, owner=None):
        self.fn, self.owner = fn, owner

    def __reduce__(self):
        return _rebuild_function, function_state(self.fn, self.owner)


def _code_names(code, out):
    out.update(code.co_names)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            _code_names(const, out)
    return out


def _wrap(value, owner):
    if value is owner and owner is not None:
        return _SelfRef()
    if isinstance(value, pytypes.ModuleType):
        return _Module(value.__name__)
    if isinstance(value, pytypes.FunctionType) and not _named(value, value.__module__, value.__qualname__):
        return _ByValue(value)
    return value


def function_state(fn, owner=None):
    """The arguments :func:`_rebuild_function` remakes ``fn`` from (``owner``: the
    dispatcher being pickled, which the function's globals may name)."""
    g = fn.__globals__
    names = sorted(n for n in _code_names(fn.__code__, set()) if n in g)
    globs = {n: _wrap(g[n], owner) for n in names}
    cells = tuple(_wrap(c.cell_contents, owner) for c in fn.__closure__ or ())
    return (marshal.dumps(fn.__code__), globs, fn.__name__, fn.__qualname__, fn.__module__,
            fn.__defaults__, fn.__kwdefaults__, cells, fn.__doc__)


def _rebuild_function(code, globs, name, qualname, module, defaults, kwdefaults, cells, doc, owner=None):
    namespace = {"__builtins__": __builtins__, "__name__": module}
    for k, v in globs.items():
        namespace[k] = owner if isinstance(v, _SelfRef) else v
    closure = tuple(pytypes.CellType(owner if isinstance(v, _SelfRef) else v) for v in cells) or None
    fn = pytypes.FunctionType(marshal.loads(code), namespace, name, defaults, closure)
    fn.__qualname__, fn.__module__, fn.__kwdefaults__, fn.__doc__ = qualname, module, kwdefaults, doc
    return fn


def _rebuild_dispatcher(cls, state, sigs, options):
    """Remake a dispatcher pickled by value; a global or cell naming the dispatcher
    itself (a recursive function) is set to the new one."""
    placeholder = object()  # stands for the dispatcher until it exists
    fn = _rebuild_function(*state, owner=placeholder)
    names = [k for k, v in fn.__globals__.items() if v is placeholder]
    cells = [c for c in fn.__closure__ or () if c.cell_contents is placeholder]
    disp = cls(fn, sigs, options)
    for k in names:
        fn.__globals__[k] = disp
    for c in cells:
        c.cell_contents = disp
    return disp


def reduce_dispatcher(disp, sigs):
    """``disp.__reduce__()``: by reference when its module names it, else by value."""
    fn = disp.py_func
    if _named(disp, getattr(disp, "__module__", None), getattr(disp, "__qualname__", None)):
        return disp.__qualname__  # pickle looks up __module__.__qualname__
    return _rebuild_dispatcher, (type(disp), function_state(fn, disp), sigs, disp.options)


def _rebuild_ufunc(cls, state, sigs, identity, jit_options):
    """Remake a ``vectorize`` ufunc pickled by value around its rebuilt function."""
    return cls(_rebuild_function(*state), sigs, identity, jit_options)


def reduce_ufunc(uf, sigs, identity, jit_options):
    """``ufunc.__reduce__()``: by reference when its module names it, else by value
    (the scalar function rebuilt, the ufunc made again from the same signatures)."""
    if _named(uf, getattr(uf.py_func, "__module__", None), uf.__qualname__):
        return uf.__qualname__
    return _rebuild_ufunc, (type(uf), function_state(uf.py_func), sigs, identity, jit_options)
