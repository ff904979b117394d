"""The NVVM IR module being built: header, declarations, globals, annotations.

One :class:`ModuleBuilder` per compilation.  It owns the llvmlite module, emits
each typed function once, declares libdevice/intrinsic functions on demand and
records whether libdevice is needed (it is linked lazily by libNVVM only then).
Everything it learns while lowering (raise sites, grid sync, code to link) is
handed on once, in the :class:`~cudalite.nvvm.artifacts.LoweredModule` that
:meth:`ModuleBuilder.finalize` returns; nothing outside the lowering writes into it.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ..artifacts import ExceptionTable, LoweredModule
from ._fp8conv import set_target_cc
from ._irtypes import DATA_LAYOUT, I8, I32, TRIPLE, declare_identified, ptr

__all__ = ["ModuleBuilder", "LowerOptions"]


@dataclass(frozen=True, slots=True)
class LowerOptions:
    """Backend options that change the IR (not the libNVVM flags)."""

    debug: bool = False
    lineinfo: bool = False
    fastmath: bool = False
    forceinline: bool = False
    nvvm_ir_version: tuple = (2, 0, 3, 2)
    cc: tuple = (7, 5)
    boundscheck: bool = False  # check array indices (lower/_boundscheck.py)
    arch_suffix: str = ""  # "a": the target is arch-specific (sm_90a)
    # the target may become arch-specific where the code needs it (the jit: a kernel using wgmma
    # is compiled for sm_90a on a 9.0 device); else such code is refused for a plain sm_90 target
    auto_arch_suffix: bool = False


class ModuleBuilder:
    """``lowerings``: the lowering table every function of this module dispatches
    through (normally :data:`cudalite.nvvm.lower.lowerings`); ``exc_symbol``: the
    name of the debug status global."""

    def __init__(self, name: str, options: LowerOptions, *, lowerings, exc_symbol: str = "cudalite_exc"):
        self.options = options
        self.lowerings = lowerings
        self.ir_module = m = ir.Module(name, context=ir.Context())  # its own identified types (tuples, vector ABI)
        m.triple = TRIPLE
        m.data_layout = DATA_LAYOUT
        set_target_cc(m, options.cc)  # fp8 conversions pick PTX's cvt on sm_89+
        self.uses_libdevice = False
        self._functions: dict = {}  # TypedFunction -> ir.Function
        self._counter = 0
        self.const_arrays: dict = {}  # (id(ndarray), type) -> (pointer, ndarray)
        self.exceptions: list = []  # debug mode: ExceptionInfo per raise site (index + 1 is stored)
        self.exc_symbol = exc_symbol  # the debug status global (named after the entry point)
        self.uses_grid_sync = False  # set by cg grid sync: the kernel needs a cooperative launch
        self.arch_suffix = options.arch_suffix  # "a" once code needs sm_90a (require_arch_specific)
        self.needs_lto = False  # set by setmaxnreg: whole-program register allocation
        self.setmaxnreg_loc = None  # the first setmaxnreg's location (the launch-bounds check)
        self.link_items: list = []  # code foreign calls need, deduplicated by content
        self._link_keys: set = set()
        self._used: list = []  # kernels (and the exception global) kept in LTO links: @llvm.used
        self.debug = None
        if options.debug or options.lineinfo:
            from ._debuginfo import DebugInfo

            self.debug = DebugInfo(m, full=options.debug)

    def unique(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}.{self._counter}"

    # -- declarations ------------------------------------------------------------------
    def declare(self, name, fnty):
        fn = self.ir_module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.ir_module, fnty, name)
        return fn

    def libdevice(self, name, ret, argtys):
        self.uses_libdevice = True
        return self.declare(name, ir.FunctionType(ret, list(argtys)))

    # -- typed functions -----------------------------------------------------------------
    def function_for(self, tf):
        """The internal implementation function of a typed function (lowered once)."""
        fn = self._functions.get(tf)
        if fn is None:
            from ._function import FunctionLowerer

            lowerer = FunctionLowerer(self, tf)
            fn = self._functions[tf] = lowerer.declare()
            lowerer.lower()
        return fn

    def lower_into(self, fn, tf, builder, args, subprogram=None):
        """Lower ``tf``'s body into the existing function ``fn`` (a kernel's entry
        point) after what ``builder`` already emitted, with argument values ``args``."""
        from ._function import FunctionLowerer

        lowerer = FunctionLowerer(self, tf)
        lowerer.fn = fn
        lowerer.lower(builder=builder, args=args, subprogram=subprogram)

    def add_links(self, items):
        """Record code to link (paths or linkable objects), once per content."""
        for item in items:
            key = getattr(item, "content_hash", None) or (item if isinstance(item, (str, bytes)) else id(item))
            if key not in self._link_keys:
                self._link_keys.add(key)
                self.link_items.append(item)

    # -- annotations ---------------------------------------------------------------------
    def mark_kernel(self, fn, launch_bounds=None, cluster_dims=None):
        m = self.ir_module
        if self.setmaxnreg_loc is not None and not (launch_bounds and len(launch_bounds) >= 2
                                                    and launch_bounds[0] and launch_bounds[1] == 1):
            from cudalite.core.errors import LoweringError

            raise LoweringError("cuda.setmaxnreg needs the kernel to declare its block size and one block per "
                                "SM: @cuda.jit(launch_bounds=(threads_per_block, 1)); without them ptxas ignores "
                                "it (C7508: the register count at entry is unknown)", self.setmaxnreg_loc)
        items = [("kernel", 1)]
        if launch_bounds:
            names = ("maxntidx", "minctasm", "cluster_max_blocks")  # libNVVM's names (PTX .maxclusterrank)
            items += [(n, int(v)) for n, v in zip(names, launch_bounds) if v]
        if cluster_dims:  # PTX .explicitcluster + .reqnctapercluster x, y, z (libNVVM's annotations)
            items += [(f"cluster_dim_{axis}", int(v)) for axis, v in zip("xyz", cluster_dims)]
        for key, value in items:
            md = m.add_metadata([fn, ir.MetaDataString(m, key), ir.Constant(I32, value)])
            m.add_named_metadata("nvvm.annotations", md)
        self._used.append(fn)

    def _emit_used(self):
        """``@llvm.used``: kernels and the debug exception global.  Without it an LTO
        link (nvJitLink -lto of libNVVM's -gen-lto output) drops them as unreferenced."""
        m = self.ir_module
        used = list(self._used)
        exc = m.globals.get(self.exc_symbol) if self.exceptions else None
        if exc is not None:
            used.append(exc)
        if not used or "llvm.used" in m.globals:
            return
        i8p = ptr(I8)
        items = [v.bitcast(i8p) if getattr(v.type, "addrspace", 0) == 0 else
                 ir.FormattedConstant(i8p, f"addrspacecast ({v.type} {v.get_reference()} to {i8p})") for v in used]
        gv = ir.GlobalVariable(m, ir.ArrayType(i8p, len(items)), "llvm.used")
        gv.linkage = "appending"
        gv.section = "llvm.metadata"
        gv.initializer = ir.Constant(ir.ArrayType(i8p, len(items)), items)

    def finalize(self, entry_name: str, abi=None) -> LoweredModule:
        """Close the module: the NVVM IR text and what was learnt lowering it."""
        m = self.ir_module
        ver = self.options.nvvm_ir_version
        m.add_named_metadata("nvvmir.version", m.add_metadata([ir.Constant(I32, v) for v in ver]))
        self._emit_used()
        if self.debug is not None:
            self.debug.finalize()
        declare_identified(m)
        return LoweredModule(
            text=str(m), entry_name=entry_name, abi=abi, exceptions=ExceptionTable(tuple(self.exceptions)),
            exc_symbol=self.exc_symbol if self.exceptions else None, uses_grid_sync=self.uses_grid_sync,
            link_items=tuple(self.link_items), uses_libdevice=self.uses_libdevice, arch_suffix=self.arch_suffix,
            needs_lto=self.needs_lto)
