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


_SCALARS = (Boolean, Integer, Float)


def _versions_of(fl, version):
    return [v for v in fl.tf.fir.ssa.versions.values() if v.var == version.var and v.name in fl.tf.vartypes]


def _first_def(fl, version):
    """The variable's first assignment (where the debugger declares it)."""
    return next((v for v in _versions_of(fl, version) if v.kind == "def"), version)


def _scalar_ditype(fl, version):
    """The scalar variable's DI type: its one type, or the union of the scalar types
    its versions take."""
    types = {fl.tf.vartypes[v.name] for v in _versions_of(fl, version) if v.kind == "def"}
    types = {t for t in types if isinstance(t, _SCALARS)}
    dbg = fl.module.debug
    if len(types) > 1:
        return dbg.types.union(types, dbg.file_of(version.loc))
    return dbg.types.of(fl.tf.vartypes[version.name])


def declare_param(fl, version, argno):
    """Declare parameter ``argno`` (from 1) on the slot of its first version."""
    dbg = fl.module.debug
    t = fl.tf.vartypes[version.name]
    var = dbg.variable(fl.subprogram, version.var, dbg.types.of(t), version.loc, arg=argno)
    dbg.declare(fl.builder, fl.slots[version.name], var)


def assigned(fl, version, value):
    """``version`` of a local was just stored (``value``, of its own type)."""
    if version.kind == "param" or not _user_var(version):
        return
    dbg = fl.module.debug
    t = fl.tf.vartypes[version.name]
    if isinstance(t, _SCALARS):
        dbg.value(fl.builder, value, dbg.variable(fl.subprogram, version.var, _scalar_ditype(fl, version),
                                                  _first_def(fl, version).loc))
        return
    if version.name in fl.declared:
        return
    fl.declared.add(version.name)
    var = dbg.variable(fl.subprogram, version.name.replace(".", "$"), dbg.types.of(t), version.loc)
    with fl.builder.goto_entry_block():
        dbg.declare(fl.builder, fl.slots[version.name], var)
