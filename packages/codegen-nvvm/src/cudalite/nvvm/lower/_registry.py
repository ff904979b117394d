"""Lowering tables, keyed exactly like :mod:`cudalite.core.registry`.

A lowering is ``fn(lc, node, args, info) -> llvmlite value`` where ``lc`` is the
:class:`~cudalite.nvvm.lower._function.FunctionLowerer`, ``args`` are already
converted to ``info.sig.args`` (methods get the receiver first) and ``info`` is
the :class:`~cudalite.core.typing.CallInfo` chosen by the typer.  Attribute
lowerings are ``fn(lc, value, info)``; value lowerings ``fn(lc, node, info)``.
Filled at import time by decorators, read-only afterwards.
"""

from __future__ import annotations

from cudalite.core.registry import registry_key

__all__ = ["Lowerings", "lowerings"]


class Lowerings:
    def __init__(self):
        self._calls: dict = {}
        self._class_calls: dict = {}
        self._lazy: dict = {}
        self._values: dict = {}
        self._attrs: dict = {}
        self._methods: dict = {}

    def call(self, *objs):
        def deco(fn):
            for obj in objs:
                self._calls[registry_key(obj)] = fn
            return fn

        return deco

    def call_class(self, *classes):
        """The lowering of calls to any instance of these classes (``info.key`` is it)."""

        def deco(fn):
            for cls in classes:
                self._class_calls[cls] = fn
            return fn

        return deco

    def value(self, *objs):
        def deco(fn):
            for obj in objs:
                self._values[registry_key(obj)] = fn
            return fn

        return deco

    def attr(self, type_class, *names):
        def deco(fn):
            for name in names:
                self._attrs[(type_class, name)] = fn
            return fn

        return deco

    def method(self, type_class, *names):
        def deco(fn):
            for name in names:
                self._methods[(type_class, name)] = fn
            return fn

        return deco

    def lazy(self, module: str, register):
        """Run ``register()`` on the first lookup of an object of ``module``."""
        self._lazy[module] = register

    def lookup_call(self, obj):
        fn = self._calls.get(registry_key(obj))
        if fn is None and self._lazy:
            mod = getattr(obj, "__module__", None) or type(obj).__module__
            register = self._lazy.pop((mod if isinstance(mod, str) else "").split(".")[0], None)
            if register is not None:
                register()
                fn = self._calls.get(registry_key(obj))
        if fn is None and self._class_calls:
            for cls in type(obj).__mro__:
                fn = self._class_calls.get(cls)
                if fn is not None:
                    break
        return fn

    def lookup_value(self, obj):
        return self._values.get(registry_key(obj))

    def lookup_attr(self, key):
        return self._attrs.get(key)

    def lookup_method(self, key):
        return self._methods.get(key)


lowerings = Lowerings()
