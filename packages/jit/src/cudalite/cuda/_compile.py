"""Moved to :mod:`cudalite.cuda._compiler` (transitional re-export until the regroup)."""
from ._launch.devices import current_cc  # noqa: F401
from ._compiler.api import (  # noqa: F401
    compile_fatbin, compile_for_current_device, compile_ptx_for_current_device, jit_compile,
    jit_compile_ptx,
)
from ._compiler.compile_code import compile_code, reraise_located, warn_missing_source  # noqa: F401
from ._compiler.kernel import CompiledKernel, KernelBuild, build_kernel  # noqa: F401
from ._compiler.linking import linker_items as _linker_items, link_cubin, source_dirs  # noqa: F401
from ._compiler.options import JitOptions, compile_options_of as nvvm_options  # noqa: F401
