"""The extension point: one registry mapping Python objects to their typing.

Keys are the Python objects users write (``math.sin``, ``abs``,
``cuda.atomic.add``, ``cuda.threadIdx.x``) or ``(TypeClass, name)`` pairs for
attributes and methods of typed values (the table class is
:class:`cudalite.core.tables.KeyedTable`).  The backend keeps a lowering table
with the same keys (:data:`cudalite.nvvm.lower.lowerings`), so a built-in, the
FFI and a third-party extension add callables the same way -- a typer here and
a lowering there::

    # registry: cudalite.core.registry.registry; Resolved: cudalite.core.typing.Resolved;
    # lowerings: the backend's table, cudalite.nvvm.lower.lowerings (in the extension's
    # own module: core itself never depends on the backend)

    @dataclass(frozen=True, slots=True)
    class Scale:                       # what the typer decided, for the lowering
        factor: float

    @registry.call(mylib.fast_exp, params=("x",))
    def _type_fast_exp(site):
        (x,) = site.args
        if x != types.float32:
            return None                # no match: "no implementation of ..."
        return Resolved(types.float32(types.float32), Scale(2.0))

    @lowerings.call(mylib.fast_exp)   # info: the frozen CallInfo typing recorded
    def _lower_fast_exp(lc, node, args, info):
        x = lc.builder.fmul(args[0], llvmlite.ir.Constant(args[0].type, info.payload.factor))
        return lc.call_libdevice("__nv_expf", x.type, [x])

A typer takes a :class:`CallSite` and returns a :class:`Signature` (the types
the arguments are converted to and the result type), ``Resolved(sig, payload)``
when the lowering needs more than the signature (``payload``: a frozen
dataclass of the extension's own), or None for "no match".  Lowering reads
only what typing recorded; it never calls a typer again.  Both tables are
filled at import time by decorators (NumPy's lazily, on first use, thread-safe)
and are read-only afterwards.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import types
from dataclasses import dataclass, field

from .errors import Loc, TypingError
from .ir import NOTCONST
from .tables import KeyedTable, registry_key

__all__ = ["CallSite", "Registry", "TyperEntry", "registry", "registry_key"]


@dataclass(frozen=True, slots=True)
class CallSite:
    """What a typer sees: argument types, compile-time constant values, location."""

    name: str
    args: tuple
    consts: tuple
    loc: Loc | None = None
    context: object = None
    recv: object = None  # receiver type for methods
    callee: object = None  # the called Python object (for typers registered per class)

    def const(self, i, what="argument"):
        """The compile-time value of argument ``i`` or a TypingError."""
        if i >= len(self.consts) or self.consts[i] is NOTCONST:
            runtime = f", not a runtime {self.args[i]}" if i < len(self.args) else ""
            raise TypingError(f"{self.name}(): the {what} must be a compile-time constant{runtime} "
                              "(RequireLiteralValue)", self.loc)
        return self.consts[i]

    def is_const(self, i) -> bool:
        return i < len(self.consts) and self.consts[i] is not NOTCONST

    def error(self, msg):
        return TypingError(f"{self.name}(): {msg}", self.loc)


@dataclass(frozen=True, slots=True)
class TyperEntry:
    """A registered typer: the function, its parameter names as registered, the
    name used in messages, and (for calls) the callee, whose signature decides
    which parameters a keyword may name (:attr:`params`)."""

    typer: object
    declared: tuple | None
    name: str
    callee: object = field(default=None, compare=False)
    defaults: dict | None = field(default=None, compare=False)  # parameter -> default value (overloads)

    @property
    def params(self):
        """The parameter names a keyword argument may match (``"/x"``: positional
        only; None: none), worked out on first use: reading a C builtin's signature
        costs about 0.3 ms, too much to pay for every registration at import."""
        if self.callee is None or not self.declared:
            return self.declared
        return _cached_keyword_params(self.callee, self.declared)


class Registry(KeyedTable):
    """Typing tables for calls, values, attributes and methods."""

    # -- registration (decorators) -------------------------------------------------
    def call(self, obj, params=None, name=None, defaults=None):
        """Register the typer for calling ``obj``; ``params`` names its parameters
        so keyword arguments can be matched, ``defaults`` (parameter -> value) fills
        a parameter a call skips before a keyword argument."""

        def deco(fn):
            self.add_call(obj, TyperEntry(fn, tuple(params) if params else None, name or _name(obj), obj,
                                          dict(defaults) if defaults else None))
            return fn

        return deco

    def call_class(self, cls, params=None, name=None):
        """Register the typer for calling any instance of ``cls`` (``site.callee`` is
        the instance): how declared foreign functions and extension objects type."""

        def deco(fn):
            self.add_class_call(cls, TyperEntry(fn, tuple(params) if params else None, name or cls.__name__))
            return fn

        return deco

    def value(self, obj):
        """Register the typer of ``obj`` used as a value (e.g. ``cuda.laneid``)."""

        def deco(fn):
            self.add_value(obj, fn)
            return fn

        return deco

    def attr(self, type_class, name):
        """Register ``typer(value_type) -> Type`` for ``value.name`` (``name="*"``:
        ``typer(value_type, name)`` for any attribute name)."""

        def deco(fn):
            self.add_attr(type_class, name, fn)
            return fn

        return deco

    # -- walking (tools that check every entry: the simulator's parity test) -------------
    def call_objects(self) -> tuple:
        """Every object registered with :meth:`call`, in registration order (a
        library registered lazily appears once one of its objects was looked up)."""
        return tuple(k for k in self._calls if not _is_wrapped_key(k))

    def value_objects(self) -> tuple:
        """Every object registered with :meth:`value`, in registration order."""
        return tuple(k for k in self._values if not _is_wrapped_key(k))

    def method(self, type_class, name, params=None, defaults=None):
        """Register the typer for calling ``value.name(...)``; ``site.recv`` is the
        receiver type and the receiver is passed to the lowering first."""

        def deco(fn):
            self.add_method(type_class, name, TyperEntry(fn, tuple(params) if params else None, name,
                                                         defaults=dict(defaults) if defaults else None))
            return fn

        return deco


def _is_wrapped_key(key) -> bool:
    """Whether ``key`` is :func:`registry_key`'s wrapper (a tuple) of a number, string,
    tuple or unhashable object, rather than the registered object itself."""
    return isinstance(key, tuple)


def _name(obj):
    mod = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    return f"{mod}.{name}" if mod and mod != "builtins" else name


registry = Registry()


def _cached_keyword_params(obj, params):
    try:
        return _keyword_params_cached(obj, params)
    except TypeError:  # an unhashable callee
        return _keyword_params(obj, params)


@functools.lru_cache(maxsize=512)
def _keyword_params_cached(obj, params):
    return _keyword_params(obj, params)


def _keyword_params(obj, params):
    """``params`` as keyword arguments may name them: as CPython does, a parameter
    of a C builtin (``math.sqrt``, ``abs``, ``len``, ``int``) that its signature
    does not list as a keyword parameter -- or all of them when it has no
    signature -- is positional only (``"/x"`` cannot match a keyword; None when
    no parameter can be given by keyword).  Python-level callables keep theirs."""
    if not params:
        return None
    params = tuple(params)
    builtin = isinstance(obj, types.BuiltinFunctionType) or (
        isinstance(obj, type) and getattr(builtins, obj.__name__, None) is obj)
    if not builtin:
        return params
    try:
        sig = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        sig = {}
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    out = tuple(p if p in sig and sig[p].kind in kinds else "/" + p for p in params)
    return None if all(p.startswith("/") for p in out) else out
