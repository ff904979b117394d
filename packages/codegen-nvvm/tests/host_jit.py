"""Run a scalar device function on the CPU: cudalite's NVVM IR for it, optimized by the
host LLVM (llvmlite.binding) and JIT-compiled, so lowering semantics are checked against
CPython without a GPU.  Only for functions of int64 arguments and an int64 result (no
pointers: libNVVM's typed-pointer dialect is not what the host LLVM parses)."""

from __future__ import annotations

import ctypes
import re

import llvmlite.binding as llvm

from cudalite import nvvm as cuda


def host_function(fn, sig):
    """``fn`` compiled by cudalite for ``sig`` (int64 arguments, a 64-bit result),
    optimized by the host LLVM and JIT-compiled for the CPU."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    text = cuda.compile_stages(fn, sig, device=True, cc=(9, 0))["nvvm-ir"].data
    text = re.sub(r"^(target (triple|datalayout) = .*|!.*)$", "", text, flags=re.M)
    name = re.search(r'define internal i64 @"([^"]*\$impl)"', text).group(1)
    text = text.replace("define internal i64", "define i64")
    tm = llvm.Target.from_default_triple().create_target_machine(opt=3)
    mod = llvm.parse_assembly(text)
    mod.triple, mod.data_layout = tm.triple, str(tm.target_data)
    ee = llvm.create_mcjit_compiler(mod, tm)
    ee.finalize_object()
    nargs = sig.count("int64") - 1
    cfn = ctypes.CFUNCTYPE(ctypes.c_uint64, *[ctypes.c_int64] * nargs)(ee.get_function_address(name))

    def call(*args):
        return cfn(*args)

    call.keep = (ee, mod)
    return call
