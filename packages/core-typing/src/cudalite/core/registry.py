"""The extension point: one registry mapping Python objects to their typing.

Keys are the Python objects users write (``math.sin``, ``abs``,
``cuda.atomic.add``, ``cuda.threadIdx.x``) or ``(TypeClass, name)`` pairs for
attributes and methods of typed values.  The backend (cudalite.nvvm) keeps a
lowering table with the same keys, so a built-in, the FFI and a third-party
extension add callables the same way::

    @registry.call(mylib.fast_exp, params=("x",))
    def _type_fast_exp(site):
        (x,) = site.args
        return types.float32(types.float32) if x == types.float32 else None

A typer takes a :class:`CallSite` and returns a :class:`Signature` (the types
the arguments are converted to and the result type) or None for "no match".
The registry is filled at import time by decorators and read-only afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import Loc, TypingError
from .ir import NOTCONST

__all__ = ["CallSite", "Registry", "registry", "registry_key"]


def registry_key(obj):
    """Hashable identity key for any Python object."""
    try:
        hash(obj)
    except TypeError:
        return ("id", id(obj))
    if isinstance(obj, (int, float, complex, str, tuple)):
        return ("value", type(obj), obj)
    return obj


@dataclass
class CallSite:
    """What a typer sees: argument types, compile-time constant values, location."""

    name: str
    args: tuple
    consts: tuple
    loc: Loc | None = None
    context: object = None
    recv: object = None  # receiver type for methods
    callee: object = None  # the called Python object (for typers registered per class)
    data: dict = field(default_factory=dict)  # typer -> lowering payload

    def const(self, i, what="argument"):
        """The compile-time value of argument ``i`` or a TypingError."""
        if i >= len(self.consts) or self.consts[i] is NOTCONST:
            raise TypingError(f"{self.name}(): the {what} must be a compile-time constant", self.loc)
        return self.consts[i]

    def is_const(self, i) -> bool:
        return i < len(self.consts) and self.consts[i] is not NOTCONST

    def error(self, msg):
        return TypingError(f"{self.name}(): {msg}", self.loc)


@dataclass(frozen=True)
class _Entry:
    typer: object
    params: tuple | None
    name: str


class Registry:
    """Typing tables for calls, values, attributes and methods."""

    def __init__(self):
        self._calls: dict = {}
        self._class_calls: dict = {}
        self._lazy: dict = {}  # module name -> registration function, run on first use
        self._values: dict = {}
        self._attrs: dict = {}
        self._methods: dict = {}

    # -- registration (decorators) -------------------------------------------------
    def call(self, obj, params=None, name=None):
        """Register the typer for calling ``obj``; ``params`` names its parameters
        so keyword arguments can be matched."""

        def deco(fn):
            self._calls[registry_key(obj)] = _Entry(fn, tuple(params) if params else None,
                                                    name or _name(obj))
            return fn

        return deco

    def call_class(self, cls, params=None, name=None):
        """Register the typer for calling any instance of ``cls`` (``site.callee`` is
        the instance): how declared foreign functions and extension objects type."""

        def deco(fn):
            self._class_calls[cls] = _Entry(fn, tuple(params) if params else None, name or cls.__name__)
            return fn

        return deco

    def value(self, obj):
        """Register the typer of ``obj`` used as a value (e.g. ``cuda.laneid``)."""

        def deco(fn):
            self._values[registry_key(obj)] = fn
            return fn

        return deco

    def attr(self, type_class, name):
        """Register ``typer(value_type) -> Type`` for ``value.name``."""

        def deco(fn):
            self._attrs[(type_class, name)] = fn
            return fn

        return deco

    def method(self, type_class, name, params=None):
        """Register the typer for calling ``value.name(...)``; ``site.recv`` is the
        receiver type and the receiver is passed to the lowering first."""

        def deco(fn):
            self._methods[(type_class, name)] = _Entry(fn, tuple(params) if params else None, name)
            return fn

        return deco

    # -- lookup --------------------------------------------------------------------
    def lazy(self, module: str, register):
        """Run ``register()`` the first time an object of ``module`` (e.g. ``numpy``)
        is looked up: tables keyed by a library's objects, without importing it."""
        self._lazy[module] = register

    def _load_lazy(self, obj) -> bool:
        if not self._lazy:
            return False
        mod = getattr(obj, "__module__", None) or type(obj).__module__
        root = (mod if isinstance(mod, str) else "").split(".")[0]
        register = self._lazy.pop(root, None)
        if register is None:
            return False
        register()
        return True

    def lookup_call(self, obj):
        entry = self._calls.get(registry_key(obj))
        if entry is None and self._load_lazy(obj):
            entry = self._calls.get(registry_key(obj))
        if entry is None and self._class_calls:
            for cls in type(obj).__mro__:
                entry = self._class_calls.get(cls)
                if entry is not None:
                    break
        return entry

    def lookup_value(self, obj):
        return self._values.get(registry_key(obj))

    def lookup_attr(self, ty, name):
        for cls in type(ty).__mro__:
            fn = self._attrs.get((cls, name))
            if fn is not None:
                return fn, cls
        return None, None

    def lookup_method(self, ty, name):
        for cls in type(ty).__mro__:
            entry = self._methods.get((cls, name))
            if entry is not None:
                return entry, cls
        return None, None

    def has_method(self, ty, name) -> bool:
        return self.lookup_method(ty, name)[0] is not None


def _name(obj):
    mod = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    return f"{mod}.{name}" if mod and mod != "builtins" else name


registry = Registry()
