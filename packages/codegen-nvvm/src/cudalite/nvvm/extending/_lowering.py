"""The low-level half of the extension API: lowering functions an extension registers.

* ``@lower_builtin(func, *argtype_patterns)`` -- ``impl(context, builder, sig, args)``
  lowers a call of ``func`` whose argument types match the patterns (a type, a type
  class, ``types.Any``, ``types.VarArg(p)``); several registrations of one ``func``
  are tried in order, most recent first, as numba does;
* ``@lower_getattr(type_or_class, "attr")`` -- ``impl(context, builder, typ, value)``;
  ``@lower_getattr_generic(type_class)`` -- ``impl(context, builder, typ, value, attr)``;
* ``@lower_cast(fromty, toty)`` -- ``impl(context, builder, fromty, toty, value)``;
* ``@lower_constant(type_class)`` -- ``impl(context, builder, typ, pyval)``: a global or
  closure value of an extension type frozen into the kernel.

Each fills cudalite's lowering table (:data:`cudalite.nvvm.lower.lowerings`) or one of
the backend's two extension tables (``lower/_ext_tables.py``), which its casts and
constants consult for types that are not cudalite's own.
"""

from __future__ import annotations

from cudalite.core.errors import LoweringError
from cudalite.core.types import VarArg

from ..lower._ext_tables import casts, constants, matches
from ..lower._registry import lowerings
from ._context import LoweringContext

__all__ = ["lower_builtin", "lower_getattr", "lower_getattr_generic", "lower_cast",
           "lower_constant", "Registry"]


def _matches_all(patterns, types) -> bool:
    if patterns and isinstance(patterns[-1], VarArg):
        fixed, rest = patterns[:-1], patterns[-1].dtype
        return len(types) >= len(fixed) and all(matches(p, t) for p, t in zip(fixed, types)) and \
            all(matches(rest, t) for t in types[len(fixed):])
    return len(patterns) == len(types) and all(matches(p, t) for p, t in zip(patterns, types))


class _BuiltinLowering:
    """The lowering-table entry of one callable: its ``lower_builtin`` implementations."""

    def __init__(self, func):
        self.func = func
        self.impls = []  # (patterns, impl), most recent first

    def __call__(self, lc, node, args, info):
        sig = info.sig
        for patterns, impl in self.impls:
            if _matches_all(patterns, tuple(sig.args)):
                return _run(impl, lc, LoweringContext(lc), lc.builder, sig, args)
        shown = ", ".join(map(str, sig.args))
        raise LoweringError(f"no lower_builtin implementation of {_name(self.func)} matches ({shown}); registered: "
                            + "; ".join("(" + ", ".join(map(_pattern_name, p)) + ")" for p, _ in self.impls),
                            getattr(node, "loc", None))


def _run(impl, lc, context, builder, *rest):
    try:
        return impl(context, builder, *rest)
    except LoweringError:
        raise
    except Exception as e:  # the extension's own code failed: say which function, where
        raise LoweringError(f"the extension's lowering function {_where(impl)} raised "
                            f"{type(e).__name__}: {e}", None) from e


def _where(fn) -> str:
    code = getattr(fn, "__code__", None)
    name = getattr(fn, "__qualname__", repr(fn))
    return f"{name} ({code.co_filename}:{code.co_firstlineno})" if code else name


def _name(obj) -> str:
    return getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)


def _pattern_name(p) -> str:
    return p.__name__ if isinstance(p, type) else str(p)


def lower_builtin(func, *argtys):
    """Decorator: ``impl(context, builder, sig, args)`` lowers calls of ``func`` with
    argument types matching ``argtys``."""

    def deco(impl):
        entry = lowerings.lookup_call(func)
        if not isinstance(entry, _BuiltinLowering):
            entry = _BuiltinLowering(func)
            lowerings.add_call(func, entry)
        entry.impls.insert(0, (tuple(argtys), impl))
        return impl

    return deco


def _type_class(typ):
    return typ if isinstance(typ, type) else type(typ)


def lower_getattr(typ, attr):
    """Decorator: ``impl(context, builder, typ, value)`` lowers ``value.attr`` for values
    of ``typ`` (a type or a type class)."""

    def deco(impl):
        def lower(lc, value, info):
            return _run(impl, lc, LoweringContext(lc), lc.builder, info.sig.args[0], value)

        lowerings.add_attr(_type_class(typ), attr, lower)
        return impl

    return deco


def lower_getattr_generic(typ):
    """Decorator: ``impl(context, builder, typ, value, attr)`` lowers any attribute."""

    def deco(impl):
        def lower(lc, value, info):
            return _run(impl, lc, LoweringContext(lc), lc.builder, info.sig.args[0], value, info.name)

        lowerings.add_attr(_type_class(typ), "*", lower)
        return impl

    return deco


def lower_cast(fromty, toty):
    """Decorator: ``impl(context, builder, fromty, toty, value)`` converts values of
    ``fromty`` to ``toty`` (each a type or a type class)."""

    def deco(impl):
        casts.add((fromty, toty), lambda lc, builder, *rest: _run(impl, lc, LoweringContext(lc), builder, *rest))
        return impl

    return deco


def lower_constant(ty):
    """Decorator: ``impl(context, builder, typ, pyval)`` makes the IR value of a Python
    object of type ``ty`` (a type class or a type) frozen into device code."""

    def deco(impl):
        constants.add(_type_class(ty),
                      lambda lc, builder, *rest: _run(impl, lc, LoweringContext(lc), builder, *rest))
        return impl

    return deco


class Registry:
    """numba's ``imputils.Registry``: a named group of lowerings (``registry.lower``,
    ``registry.lower_getattr``...), each registered into cudalite's tables at once."""

    def __init__(self, name="registry"):
        self.name = name

    lower = staticmethod(lower_builtin)
    lower_getattr = staticmethod(lower_getattr)
    lower_getattr_generic = staticmethod(lower_getattr_generic)
    lower_cast = staticmethod(lower_cast)
    lower_constant = staticmethod(lower_constant)

