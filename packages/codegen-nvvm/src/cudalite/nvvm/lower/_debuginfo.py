"""Debug metadata for ``lineinfo`` (``.loc`` directives) and ``debug`` (-g).

libNVVM has no line-info flag: line tables come from NVVM IR debug metadata
(DICompileUnit, DIFile, DISubprogram, DILocation on instructions).  ``lineinfo``
emits them with ``emissionKind: DebugDirectivesOnly`` (``.loc``/``.file`` in the
PTX, no DWARF sections, no ``debug`` target); ``debug`` emits ``FullDebug`` and
describes the variables too: each parameter by ``llvm.dbg.declare`` of its stack
slot (``arg: N``), each scalar local by ``llvm.dbg.value`` at every assignment
(one that takes values of several scalar types is a union of them, as numba's
``dbg_poly_union``), other locals by ``llvm.dbg.declare`` of their slot; types as :mod:`._ditypes`
names them.
"""

from __future__ import annotations

import os

from llvmlite import ir

from ._ditypes import DITypes

__all__ = ["DebugInfo"]

_META3 = ir.FunctionType(ir.VoidType(), [ir.MetaDataType()] * 3)


class DebugInfo:
    def __init__(self, module: ir.Module, full: bool):
        self.module = module
        self.full = full
        self.types = DITypes(module)
        self._files: dict = {}
        self._cu = None
        self._vars: dict = {}  # (subprogram, name, arg) -> DILocalVariable
        self._expr = None

    def _file(self, filename):
        f = self._files.get(filename)
        if f is None:
            f = self._files[filename] = self.module.add_debug_info("DIFile", {
                "filename": os.path.basename(filename),
                "directory": os.path.dirname(os.path.abspath(filename)) if filename[:1] != "<" else "",
            })
            if self._cu is None:
                self._cu = self.module.add_debug_info("DICompileUnit", {
                    "language": ir.DIToken("DW_LANG_C_plus_plus"),
                    "file": f,
                    # gdb (cuda-gdb) skips a function's prologue the clang way only for a
                    # producer starting with "clang "
                    "producer": "clang (cudalite)",
                    "runtimeVersion": 0,
                    "isOptimized": not self.full,
                    "emissionKind": ir.DIToken("FullDebug" if self.full else "DebugDirectivesOnly"),
                }, is_distinct=True)
        return f

    def file_of(self, loc):
        """The DIFile of a source location."""
        return self._file(loc.filename)

    def subprogram(self, fn, fir, argtypes=(), return_type=None):
        """The DISubprogram of ``fn`` (attached to it): ``fir``'s name, file and def line;
        its type lists ``return_type`` (None: void) and ``argtypes`` under ``debug``."""
        f = self._file(fir.loc.filename)
        items = []
        if self.full:
            items = [None if return_type is None else self.types.of(return_type)]
            items += [self.types.of(t) for t in argtypes]
        sp_type = self.module.add_debug_info("DISubroutineType", {"types": self.module.add_metadata(items)})
        sp = self.module.add_debug_info("DISubprogram", {
            "name": fir.qualname,
            "linkageName": fn.name,
            "scope": f,
            "file": f,
            "line": fir.loc.line,
            "type": sp_type,
            "isLocal": False,
            "isDefinition": True,
            "scopeLine": fir.loc.line,
            "isOptimized": not self.full,
            "unit": self._cu,
        }, is_distinct=True)
        fn.set_metadata("dbg", sp)
        return sp

    def location(self, loc, scope):
        return self.module.add_debug_info("DILocation", {
            "line": loc.line, "column": (loc.col or 0) + 1, "scope": scope,
        })

    # -- variables (debug=True) ------------------------------------------------------------
    def variable(self, scope, name, ditype, loc, arg=0):
        """The DILocalVariable ``name`` of ``scope``, of DI type ``ditype`` (one per name,
        argument number and type: the versions of a variable are one variable to the
        debugger, declared at its first assignment's line)."""
        key = (id(scope), name, arg, id(ditype))
        var = self._vars.get(key)
        if var is None:
            var = self._vars[key] = self.module.add_debug_info("DILocalVariable", {
                "name": name, "arg": arg, "scope": scope, "file": self._file(loc.filename),
                "line": loc.line, "type": ditype,
            })
        return var

    def _intrinsic(self, builder, name, value, var):
        if self._expr is None:
            self._expr = self.module.add_debug_info("DIExpression", {})
        fn = self.module.globals.get(name) or ir.Function(self.module, _META3, name)
        builder.call(fn, [value, var, self._expr])

    def declare(self, builder, slot, var):
        """``llvm.dbg.declare``: ``var`` lives in the stack slot ``slot``."""
        self._intrinsic(builder, "llvm.dbg.declare", slot, var)

    def value(self, builder, value, var):
        """``llvm.dbg.value``: ``var`` holds ``value`` from here on."""
        self._intrinsic(builder, "llvm.dbg.value", value, var)

    def finalize(self):
        m = self.module
        if self._cu is None:
            return
        m.add_named_metadata("llvm.dbg.cu", self._cu)
        i32 = ir.IntType(32)
        m.add_named_metadata("llvm.module.flags", [i32(2), "Dwarf Version", i32(4)])
        m.add_named_metadata("llvm.module.flags", [i32(1), "Debug Info Version", i32(3)])
