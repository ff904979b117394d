"""Compile options as a plain frozen dataclass, and the one pure function that
turns them into libNVVM flags."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

from cudalite.core.option_values import fastmath_of
from cudalite.core.option_values import switch as _switch
from cudalite.core.target import ComputeCapability, parse_cc

from .config import load_config

__all__ = ["CompileOptions", "make_options", "nvvm_flags", "opt_level_of", "option_warnings"]

OPT_LEVELS = (0, 1, 2, 3)  # what libNVVM's -opt accepts


@dataclass(frozen=True)
class CompileOptions:
    """What a compilation is asked for (hashable: it is part of cache keys).

    ``cc`` is ``(major, minor)``; ``arch_suffix`` is ``'a'``/``'f'`` for an
    arch-/family-specific target (``compute_90a``) or ``''``.  Build one with
    :func:`make_options`, which validates.

    Parameters
    ----------
    cc : tuple of int, optional
        Compute capability ``(major, minor)`` (default ``(7, 5)``).
    opt : int, optional
        libNVVM optimization level, 0 to 3 (default 3).
    fastmath : bool, optional
        Fast-math code generation.
    debug : bool, optional
        Debug information.
    lineinfo : bool, optional
        Line information only.
    output : str, optional
        ``"ptx"`` (default) or ``"ltoir"``.
    forceinline : bool, optional
        Force inlining (LTO-IR only).
    launch_bounds : tuple of int, optional
        ``(max threads per block, min blocks per SM, max blocks per cluster)``, 1 to 3 entries.
    cluster_dims : tuple of int, optional
        ``(x, y, z)`` blocks per thread-block cluster, fixed at compile time (cc >= 9.0).
    arch_suffix : str, optional
        ``"a"``, ``"f"`` or ``""`` (default).
    boundscheck : bool, optional
        Check every array index; an out-of-bounds one records an ``IndexError`` in the
        module's exception record (read by the launching runtime) and returns.
    auto_arch_suffix : bool, optional
        A 9.0 target becomes ``sm_90a`` where the code needs it (wgmma, setmaxnreg); without
        it such code is refused unless ``arch_suffix`` is ``"a"`` (the jit sets it: it
        compiles for the device in hand).
    """

    cc: tuple = (7, 5)
    opt: int = 3
    fastmath: bool = False
    debug: bool = False
    lineinfo: bool = False
    output: str = "ptx"  # 'ptx' | 'ltoir'
    forceinline: bool = False
    launch_bounds: tuple | None = None
    cluster_dims: tuple | None = None
    arch_suffix: str = ""
    boundscheck: bool = False
    auto_arch_suffix: bool = False

    @property
    def target(self) -> ComputeCapability:
        """The target as a ``ComputeCapability`` (with its suffix)."""
        return ComputeCapability(self.cc[0], self.cc[1], self.arch_suffix)

    @property
    def arch(self) -> str:
        """The libNVVM ``-arch``: ``compute_90``, ``compute_90a``."""
        return self.target.virtual_arch


def nvvm_flags(o: CompileOptions) -> list:
    flags = [f"-arch={o.arch}", f"-opt={0 if o.debug else o.opt}"]
    if o.fastmath:
        flags += ["-ftz=1", "-prec-div=0", "-prec-sqrt=0", "-fma=1"]
    if o.debug:
        flags.append("-g")
    if o.output == "ltoir":
        flags.append("-gen-lto")
    return flags


def opt_level_of(opt: Any) -> int:
    """The libNVVM ``-opt`` level of ``opt``: ``None``/``True`` -> 3, ``False`` -> 0,
    an int 0..3 as is (NumPy integers too); ValueError for anything else."""
    if opt is None or opt is True:
        return 3
    if opt is False:
        return 0
    if isinstance(opt, numbers.Integral) and int(opt) in OPT_LEVELS:
        return int(opt)
    raise ValueError(f"opt must be True, False or an optimization level 0, 1, 2 or 3, not {opt!r}")


def option_warnings(*, debug: Any, opt: Any, lineinfo: Any) -> list:
    """What to warn about in a combination of ``debug``/``opt``/``lineinfo``
    (numba-cuda warns about the same two): debug builds are never optimized, and
    debug information already holds the line information."""
    out = []
    if debug and opt is not None and opt_level_of(opt) > 0:
        out.append(f"debug=True with opt={opt!r}: debug builds are compiled without optimization "
                   "(-opt=0), so opt is ignored; pass opt=False (or leave it out) to silence this warning")
    if debug and lineinfo:
        out.append("debug and lineinfo are mutually exclusive: debug=True already emits full debug "
                   "information, line information included; lineinfo=True adds nothing")
    return out


def make_options(*, cc: Any = None, opt: Any = None, fastmath: bool = False, debug: bool = False,
                 lineinfo: bool = False, output: str = "ptx", forceinline: bool = False, launch_bounds: Any = None,
                 cluster_dims: Any = None, boundscheck: bool = False) -> CompileOptions:
    """Validated options.  ``cc``: any spelling :func:`cudalite.core.target.parse_cc`
    accepts (``None``: ``CUDALITE_DEFAULT_CC``, else 7.5).

    Parameters
    ----------
    cc : str, tuple or int, optional
        Target compute capability (``"sm_90"``, ``(9, 0)``, ``"9.0"``, ``"sm_90a"``...).
    opt : int or bool, optional
        Optimization level: ``None``/``True`` is 3, ``False`` is 0, or an int 0..3.
    fastmath : bool, optional
        Fast-math code generation.
    debug : bool, optional
        Debug information.
    lineinfo : bool, optional
        Line information.
    output : str, optional
        ``"ptx"`` (default) or ``"ltoir"``.
    forceinline : bool, optional
        Force inlining; only with ``output="ltoir"``.
    launch_bounds : int or tuple of int, optional
        Max threads per block, optionally min blocks per SM and max blocks per cluster.
    cluster_dims : int or tuple of int, optional
        Blocks per thread-block cluster, ``x`` or ``(x, y, z)``, at most 8 blocks in all
        (the portable cluster size); needs ``cc`` >= 9.0.
    boundscheck : bool, optional
        Check array indices (see :class:`CompileOptions`).

    Returns
    -------
    CompileOptions

    Raises
    ------
    ValueError
        If an option is invalid (bad ``output``, ``opt``, ``cc``, ``launch_bounds``,
        ``cluster_dims`` or one for a target below 9.0, ``forceinline`` without LTO-IR,
        or an unknown fastmath flag).
    TypeError
        If ``debug``, ``lineinfo``, ``forceinline`` or ``boundscheck`` is not a bool, or
        ``fastmath`` is neither a bool nor a set or dict of flags.
    """
    if output not in ("ptx", "ltoir"):
        raise ValueError(f"output must be 'ptx' or 'ltoir', not {output!r}")
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR: forceinline=True is only supported "
                         "with output='ltoir'")
    opt_level = opt_level_of(opt)
    fastmath = fastmath_of(fastmath)
    debug, lineinfo = _switch("debug", debug), _switch("lineinfo", lineinfo)
    forceinline, boundscheck = _switch("forceinline", forceinline), _switch("boundscheck", boundscheck)
    if launch_bounds is not None:
        lb = (launch_bounds,) if isinstance(launch_bounds, int) else tuple(launch_bounds)
        if len(lb) > 3:  # numba's wording first
            raise ValueError(f"Got {len(lb)} launch bounds: {lb}. A maximum of three are supported: "
                             "launch_bounds=(max threads per block, min blocks per SM, max blocks per cluster)")
        if not 1 <= len(lb) <= 3 or not all(isinstance(v, int) and v >= 0 for v in lb):
            raise ValueError("launch_bounds must be an int or a tuple of 1 to 3 non-negative ints "
                             "(max threads per block, min blocks per SM, max blocks per cluster)")
        launch_bounds = lb
    default = load_config().default_cc  # read on every call: a bad CUDALITE_* variable is reported here
    target = default if cc is None else parse_cc(cc)
    if cluster_dims is not None:
        cluster_dims = check_cluster_dims(cluster_dims)
        if tuple(target.cc) < (9, 0):
            raise ValueError(f"cluster_dims needs compute capability 9.0 or newer (thread-block clusters); the "
                             f"target is sm_{target.cc[0]}{target.cc[1]}")
    return CompileOptions(
        cc=target.cc, arch_suffix=target.arch_suffix, opt=opt_level, fastmath=bool(fastmath),
        debug=bool(debug), lineinfo=bool(lineinfo), output=output, forceinline=bool(forceinline),
        launch_bounds=launch_bounds, cluster_dims=cluster_dims, boundscheck=bool(boundscheck),
    )


MAX_CLUSTER_BLOCKS = 8  # the portable cluster size (more needs a non-portable opt-in per kernel)


def check_cluster_dims(dims: Any) -> tuple:
    """``x`` or ``(x[, y[, z]])`` as a validated 3-tuple of positive ints whose product is at
    most :data:`MAX_CLUSTER_BLOCKS`; ValueError otherwise.

    Parameters
    ----------
    dims : int or tuple of int
        Blocks per cluster along x, y and z.
    """
    d = (dims,) if isinstance(dims, int) else tuple(dims) if isinstance(dims, (tuple, list)) else None
    if d is None or not 1 <= len(d) <= 3 or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                                                      for v in d):
        raise ValueError(f"cluster_dims must be a positive int or a tuple of 1 to 3 positive ints, not {dims!r}")
    d = d + (1,) * (3 - len(d))
    if d[0] * d[1] * d[2] > MAX_CLUSTER_BLOCKS:
        raise ValueError(f"cluster_dims {d} has {d[0] * d[1] * d[2]} blocks; a cluster has at most "
                         f"{MAX_CLUSTER_BLOCKS} (the portable size)")
    return d
