"""Pickling ``@cuda.jit`` dispatchers and ``@vectorize(target="cuda")`` ufuncs
(``pickle.dumps(kernel)``, multiprocessing), as numba does.

A dispatcher that its module names (``module.qualname`` is this very object) pickles
by reference: unpickling imports the module and takes the dispatcher there.  Any
other one (defined in ``__main__`` -- a script or a notebook --, in a function, a
closure, replaced in its module) pickles *by value*: its Python function is rebuilt
from its code object (``marshal``), the globals its code reads, its closure cells,
defaults and name, and a new dispatcher of the same class, signatures and options is
made around it.  A kernel pickled by value carries the compiled code of its
specializations (``_carry``): the receiving process loads the cubin without compiling
when its device has the same compute capability, and compiles otherwise; a
``vectorize`` ufunc carries its loop kernels' code the same way.  A device function
has no code of its own to carry (it is compiled into each kernel that calls it, and
those carry it).  Modules among the globals travel by name, functions that their
module does not name travel by value, everything else through pickle itself (so a
global device array refuses to pickle, as in numba).

This is only for ``pickle`` streams the user makes and loads; cudalite's disk cache
never unpickles anything.
"""

from __future__ import annotations

import importlib
import marshal
import pickle
import sys
import types as pytypes

from .._compiler.carry import CarriedCode, carried_code, read_carried

__all__ = ["reduce_dispatcher", "reduce_ufunc"]


def _named(obj, module, qualname) -> bool:
    """Does ``module.qualname`` (importable) name ``obj`` itself?  Never for ``__main__``
    (a script, a notebook): the receiving process (a Dask worker, an MPI rank, a
    ``spawn`` child) has another ``__main__``, so that travels by value."""
    if not module or not qualname or "<locals>" in qualname or module == "__main__":
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


def _rebuild_dispatcher(cls, state, sigs, options, carried=None):
    """Remake a dispatcher pickled by value; a global or cell naming the dispatcher
    itself (a recursive function) is set to the new one.  ``carried``: the compiled
    code of its specializations (``_carry``), loaded instead of compiling."""
    placeholder = object()  # stands for the dispatcher until it exists
    fn = _rebuild_function(*state, owner=placeholder)
    names = [k for k, v in fn.__globals__.items() if v is placeholder]
    cells = [c for c in fn.__closure__ or () if c.cell_contents is placeholder]
    artifacts = read_carried(carried, fn.__qualname__)
    disp = cls(fn, sigs, options, compiler=CarriedCode(artifacts)) if artifacts else cls(fn, sigs, options)
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
    args = (type(disp), function_state(fn, disp), sigs, disp.options)
    carried = carried_code(disp)
    return _rebuild_dispatcher, args if carried is None else (*args, carried)


def _rebuild_ufunc(cls, state, sigs, identity, jit_options, carried=()):
    """Remake a ``vectorize`` ufunc pickled by value around its rebuilt function;
    ``carried``: ``((loop key, bundle), ...)``, its loop kernels' compiled code."""
    uf = cls(_rebuild_function(*state), sigs, identity, jit_options)
    if type(carried) is not tuple or not all(type(c) is tuple and len(c) == 2 for c in carried):
        raise pickle.UnpicklingError(f"the compiled code carried in the pickle of ufunc {uf.__qualname__} "
                                     "is malformed: the pickle was not made by cudalite, or was altered")
    for key, bundle in carried:
        artifacts = read_carried(bundle, uf.__qualname__)
        if artifacts:
            uf._add_carried(key, CarriedCode(artifacts))
    return uf


def reduce_ufunc(uf, sigs, identity, jit_options):
    """``ufunc.__reduce__()``: by reference when its module names it, else by value
    (the scalar function rebuilt, the ufunc made again from the same signatures)."""
    if _named(uf, getattr(uf.py_func, "__module__", None), uf.__qualname__):
        return uf.__qualname__
    carried = uf._carried_kernels()
    args = (type(uf), function_state(uf.py_func), sigs, identity, jit_options)
    return _rebuild_ufunc, args if not carried else (*args, carried)
