"""The variables of a ``debug=True`` function, described to the debugger.

A parameter is declared (``llvm.dbg.declare``, ``arg: N``) on its version's stack
slot, which stays valid for the whole function.  A scalar local (bool, integer,
float) is described by ``llvm.dbg.value`` at each assignment, under its source
name whatever version is assigned; any other local by ``llvm.dbg.declare`` of each
version's slot, named ``x$1`` for version ``x.1`` (gdb reads ``.`` as a member
access).  Names that are not Python identifiers are the compiler's and are not
shown.
"""

from __future__ import annotations

from cudalite.core.types import Boolean, Float, Integer

__all__ = ["declare_param", "assigned"]


def _user_var(version) -> bool:
    return version.var.isidentifier()


def declare_param(fl, version, argno):
    """Declare parameter ``argno`` (from 1) on the slot of its first version."""
    dbg = fl.module.debug
    t = fl.tf.vartypes[version.name]
    var = dbg.variable(fl.subprogram, version.var, t, version.loc, arg=argno)
    dbg.declare(fl.builder, fl.slots[version.name], var)


def assigned(fl, version, value):
    """``version`` of a local was just stored (``value``, of its own type)."""
    if version.kind == "param" or not _user_var(version):
        return
    dbg = fl.module.debug
    t = fl.tf.vartypes[version.name]
    if isinstance(t, (Boolean, Integer, Float)):
        dbg.value(fl.builder, value, dbg.variable(fl.subprogram, version.var, t, version.loc))
        return
    if version.name in fl.declared:
        return
    fl.declared.add(version.name)
    var = dbg.variable(fl.subprogram, version.name.replace(".", "$"), t, version.loc)
    with fl.builder.goto_entry_block():
        dbg.declare(fl.builder, fl.slots[version.name], var)
