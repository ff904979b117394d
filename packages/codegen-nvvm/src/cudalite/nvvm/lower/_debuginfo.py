"""Debug metadata for ``lineinfo`` (``.loc`` directives) and ``debug`` (-g).

libNVVM has no line-info flag: line tables come from NVVM IR debug metadata
(DICompileUnit, DIFile, DISubprogram, DILocation on instructions)."""

from __future__ import annotations

import os

from llvmlite import ir

__all__ = ["DebugInfo"]


class DebugInfo:
    def __init__(self, module: ir.Module, full: bool):
        self.module = module
        self.full = full
        self._files: dict = {}
        self._cu = None
        self._first_file = None

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
                    "producer": "cudalite",
                    "runtimeVersion": 0,
                    "isOptimized": not self.full,
                    "emissionKind": ir.DIToken("FullDebug" if self.full else "LineTablesOnly"),
                }, is_distinct=True)
        return f

    def subprogram(self, fn, fir):
        f = self._file(fir.loc.filename)
        sp_type = self.module.add_debug_info("DISubroutineType", {"types": self.module.add_metadata([])})
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

    def finalize(self):
        m = self.module
        if self._cu is None:
            return
        m.add_named_metadata("llvm.dbg.cu", self._cu)
        i32 = ir.IntType(32)
        m.add_named_metadata("llvm.module.flags", [i32(2), "Dwarf Version", i32(4)])
        m.add_named_metadata("llvm.module.flags", [i32(1), "Debug Info Version", i32(3)])
