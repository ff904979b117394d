"""The ``@cuda.jit`` options that shape generated code, and their one translation.

:class:`JitOptions` is what the decorator validated (``_dispatch.options``);
:func:`compile_options_of` turns it, with a target, into the compiler's
``CompileOptions`` -- the only place that translation is written.  The linker's
``LinkerOptions`` are made next to it, once per build (``stages.make_job``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

__all__ = ["JitOptions", "compile_options_of", "is_ltoir"]


@dataclass(frozen=True)
class JitOptions:
    """The options of ``@cuda.jit`` that shape the generated code."""

    debug: bool = False
    lineinfo: bool = False
    opt: object = None
    fastmath: bool = False
    max_registers: int | None = None
    launch_bounds: object = None
    cluster_dims: tuple | None = None
    forceinline: bool = False
    link: tuple = ()
    cache: bool = False
    boundscheck: bool = False  # check array indices (IndexError on the host after the launch)
    # a launch attribute, no code change: every launch may start before the grid it follows on
    # the stream has finished (the kernel orders itself with cuda.griddepcontrol.wait())
    programmatic_dependent_launch: bool = False

    @property
    def lto(self) -> bool:
        return any(is_ltoir(item) for item in self.link)


def compile_options_of(opts: JitOptions, cc):
    """The compiler's options for these ``@cuda.jit`` options and target ``cc`` (None:
    the default target); validates them."""
    from cudalite.nvvm import make_options  # lazy: the compiler's options load with the first build

    o = make_options(cc=cc, opt=(False if opts.debug and opts.opt is None else opts.opt),
                     fastmath=opts.fastmath, debug=opts.debug, lineinfo=opts.lineinfo,
                     launch_bounds=opts.launch_bounds, cluster_dims=opts.cluster_dims,
                     boundscheck=opts.boundscheck)
    # the jit compiles for the device in hand: code that needs sm_90a (wgmma) gets it on a 9.0 device
    return replace(o, forceinline=opts.forceinline, auto_arch_suffix=True)


def is_ltoir(item) -> bool:
    """Whether a link item is LTO-IR (an LTOIR object or a ``.ltoir`` path)."""
    from cudalite.linker import LTOIR  # lazy: the linker loads with the first link item

    if isinstance(item, LTOIR):
        return True
    return isinstance(item, (str, os.PathLike)) and os.fspath(item).lower().endswith(".ltoir")
