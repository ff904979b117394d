"""The lowering table, keyed exactly like :mod:`cudalite.core.registry`.

A lowering is ``fn(lc, node, args, info) -> llvmlite value`` where ``lc`` is the
:class:`~cudalite.nvvm.lower._function.FunctionLowerer`, ``args`` are already
converted to ``info.sig.args`` (methods get the receiver first) and ``info`` is
the :class:`~cudalite.core.typing.CallInfo` typing recorded (its ``payload``
carries what the typer decided).  Attribute lowerings are ``fn(lc, value,
info)``; value lowerings ``fn(lc, node, info)``; statement hooks ``fn(lc, stmt)``,
keyed by the IR statement class (``ir.Raise``, ``ir.Assert``).

The decorators fill the default table :data:`lowerings` at import time; lowering
code looks entries up in the table its ``ModuleBuilder`` was given
(``lc.module.lowerings``), never in a global.
"""

from __future__ import annotations

from cudalite.core.tables import KeyedTable

__all__ = ["Lowerings", "lowerings"]


class Lowerings(KeyedTable):
    """Lowering functions for calls, values, attributes, methods and statements."""

    def __init__(self):
        super().__init__()
        self._stmts: dict = {}

    def call(self, *objs):
        """The lowering of calls to each of ``objs``."""

        def deco(fn):
            for obj in objs:
                self.add_call(obj, fn)
            return fn

        return deco

    def call_class(self, *classes):
        """The lowering of calls to any instance of these classes (``info.key`` is it)."""

        def deco(fn):
            for cls in classes:
                self.add_class_call(cls, fn)
            return fn

        return deco

    def value(self, *objs):
        def deco(fn):
            for obj in objs:
                self.add_value(obj, fn)
            return fn

        return deco

    def attr(self, type_class, *names):
        def deco(fn):
            for name in names:
                self.add_attr(type_class, name, fn)
            return fn

        return deco

    def method(self, type_class, *names):
        def deco(fn):
            for name in names:
                self.add_method(type_class, name, fn)
            return fn

        return deco

    def stmt(self, *stmt_classes):
        """The hook lowering statements of these IR classes (e.g. ``ir.Raise``)."""

        def deco(fn):
            for cls in stmt_classes:
                self._stmts[cls] = fn
            return fn

        return deco

    def lookup_stmt(self, stmt_class):
        return self._stmts.get(stmt_class)


lowerings = Lowerings()
