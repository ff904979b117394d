"""The options of ``cuda.jit``: numba's keyword arguments validated into a
:class:`~._compile.JitOptions` (unknown ones refused, the ones that mean nothing on
CUDA accepted and ignored, numba's configuration warnings)."""

from __future__ import annotations

import os
import warnings
from dataclasses import replace

from cudalite.core.errors import NumbaInvalidConfigWarning
from cudalite.core.option_values import OptionTypeError, is_bool
from cudalite.core.option_values import fastmath_of as fastmath_enabled

from .._compiler.options import JitOptions
from .._compiler.options import compile_options_of as nvvm_options
from ..config import load_config

__all__ = ["jit_options", "fastmath_enabled", "inline_choice", "mark_inline", "boundscheck_choice"]

_KNOWN = {"fastmath", "max_registers", "launch_bounds", "cluster_dims", "forceinline", "lto", "extensions",
          "boundscheck", "programmatic_dependent_launch"}
# options numba's jit takes and that change nothing on CUDA (accepted and ignored)
_IGNORED = {"nopython", "nogil", "no_cpython_wrapper", "no_cfunc_wrapper", "error_model", "looplift",
            "shared_memory_carveout", "parallel", "target", "forceobj", "_nrt",
            # numba's private debug switch (functions marked optnone): a debug build is already
            # compiled whole with libNVVM -opt=0, so it asks for nothing more
            "_dbg_optnone"}


def _check_ignored(kws):
    """Validate the numba options that cudalite accepts and ignores (see _IGNORED)."""
    target = kws.get("target", "cuda")
    if target not in ("cuda", "gpu"):
        raise ValueError(f"cuda.jit compiles for target='cuda', not target={target!r}")
    if kws.get("forceobj") or kws.get("nopython", True) is False:
        raise NotImplementedError("object mode does not exist on CUDA: remove forceobj=True / nopython=False")
    if kws.get("parallel"):
        raise NotImplementedError("parallel=True is a CPU option: a CUDA kernel is already parallel")
    carveout = kws.get("shared_memory_carveout")
    if carveout is not None:
        if isinstance(carveout, str):
            if carveout.lower() not in ("maxl1", "maxshared", "default"):
                raise ValueError(f"Invalid carveout value: {carveout}")
        elif not isinstance(carveout, int) or not -1 <= carveout <= 100:
            raise ValueError("Carveout must be between -1 and 100")
    for name in ("argtypes", "restype", "bind"):
        if kws.get(name) is not None:
            raise TypeError(f"cuda.jit({name}=...) was removed in numba; pass a signature instead")


def inline_choice(inline):
    """numba's ``inline`` option normalized: ``'always'`` (also True), ``'never'``
    (also False/None) or a cost-model callable ``(call, caller_ir, callee_ir) -> bool``."""
    if inline is True or inline == "always":
        return "always"
    if inline is None or inline is False or inline == "never":
        return "never"
    if callable(inline):
        return inline
    raise ValueError(f"inline must be 'never', 'always', a bool or a cost-model callable, not {inline!r}")


def mark_inline(dispatcher, inline, opts):
    """Record on ``dispatcher`` how calls to it from device code are inlined: the
    ``(inline, forceinline)`` pair the core's typing reads (``__cudalite_inline__``)."""
    dispatcher.__cudalite_inline__ = (inline_choice(inline), bool(opts.forceinline))
    return dispatcher


def boundscheck_choice(value, override) -> bool:
    """Whether a kernel is bounds-checked: ``override`` (``CUDALITE_BOUNDSCHECK`` /
    ``NUMBA_BOUNDSCHECK``: True, False, or None when unset) wins, as numba's
    ``NUMBA_BOUNDSCHECK`` does; else the decorator's ``boundscheck`` (None: off)."""
    if value is not None and not is_bool(value):
        raise OptionTypeError(f"boundscheck must be True, False or None, not {value!r}")
    if override is not None:
        return override
    return bool(value)


def _warn_device_boundscheck(device, kws):
    """``boundscheck=True`` on a device function checks nothing by itself: the setting
    of the kernel it is compiled into applies (warned, pointing at the decorator)."""
    if device and kws.get("boundscheck"):
        warnings.warn("boundscheck=True on a device function has no effect of its own: a device function is "
                      "bounds-checked when the kernel calling it is (@cuda.jit(boundscheck=True) on the kernel, "
                      "or CUDALITE_BOUNDSCHECK=1)", NumbaInvalidConfigWarning, stacklevel=4)


def jit_options(debug, opt, lineinfo, cache, link, inline, kws, device=False) -> JitOptions:
    """Validate ``cuda.jit``'s arguments (warnings point at the caller of ``jit``).
    ``debug=None``: the ``CUDALITE_CUDA_DEBUGINFO`` default (off)."""
    _check_ignored(kws)
    _warn_device_boundscheck(device, kws)

    for name, value in (("debug", debug), ("lineinfo", lineinfo), ("cache", cache)):
        if value is not None and not is_bool(value):
            raise OptionTypeError(f"cuda.jit({name}=...) must be True or False, not {value!r}")
    config = load_config()
    if debug is None:
        debug = config.debuginfo_default
    boundscheck = boundscheck_choice(kws.get("boundscheck"), config.boundscheck)
    kws = {k: v for k, v in kws.items() if k not in _IGNORED and k not in ("argtypes", "restype", "bind")}
    unknown = set(kws) - _KNOWN
    if unknown:
        raise TypeError(f"cuda.jit() got unexpected keyword argument(s): {', '.join(sorted(unknown))}")
    extensions = kws.get("extensions")
    if extensions is not None and (isinstance(extensions, (str, bytes)) or not isinstance(extensions, (list, tuple))):
        raise TypeError(f"extensions must be a list of objects with prepare_args(), not {extensions!r}")
    if extensions and device:
        raise TypeError("extensions apply to kernel launches: a device function (device=True) takes none")
    max_registers = kws.get("max_registers")
    if max_registers is not None and (not isinstance(max_registers, int) or isinstance(max_registers, bool)
                                      or max_registers <= 0):
        raise ValueError(f"max_registers must be a positive int, not {max_registers!r}")
    if isinstance(link, (str, bytes)) or not isinstance(link, (list, tuple)):
        raise TypeError(f"link must be a list of paths or linkable code objects, not {link!r}")
    if link:
        from cudalite.linker import LinkableCode  # lazy: the linker loads with the first link list

        for item in link:
            if not isinstance(item, (str, os.PathLike, LinkableCode)):
                raise TypeError(f"link items must be paths or cudalite.linker code objects, not {item!r}")
    pdl = kws.get("programmatic_dependent_launch", False)
    if not is_bool(pdl):
        raise TypeError(f"programmatic_dependent_launch must be True or False, not {pdl!r}")
    if pdl and device:
        raise TypeError("programmatic_dependent_launch applies to kernel launches: a device function (device=True) "
                        "is not launched")
    inline_choice(inline)  # validated now
    fastmath = fastmath_enabled(kws.get("fastmath", False))
    cluster_dims = kws.get("cluster_dims")
    if cluster_dims is not None:
        from cudalite.nvvm import check_cluster_dims  # lazy: the compiler's check, for cluster kernels only

        cluster_dims = check_cluster_dims(cluster_dims)
    opts = JitOptions(debug=bool(debug), lineinfo=bool(lineinfo), opt=opt, fastmath=fastmath,
                      max_registers=max_registers, launch_bounds=kws.get("launch_bounds"),
                      cluster_dims=cluster_dims, forceinline=bool(kws.get("forceinline", False)),
                      link=tuple(link), cache=bool(cache), boundscheck=boundscheck,
                      programmatic_dependent_launch=bool(pdl))
    # validates opt and launch_bounds now, GPU-less (cluster_dims was checked above; the target's
    # compute capability, known at the first compile, is checked then)
    nvvm_options(replace(opts, cluster_dims=None), None)
    if debug and opt:
        warnings.warn("debug=True with opt=True is not supported by CUDA: optimizations may make debugging "
                      "less useful (pass opt=False)", NumbaInvalidConfigWarning, stacklevel=3)
    elif debug and opt is None:  # numba's opt default is True: numba warns here, and so do we
        warnings.warn("debug=True with the default opt=True is not supported by CUDA: cudalite compiles it with "
                      "opt=False (pass opt=False to silence this warning)", NumbaInvalidConfigWarning, stacklevel=3)
    if debug and lineinfo:
        warnings.warn("debug and lineinfo are mutually exclusive: debug=True already emits full debug "
                      "information, line information included; lineinfo=True adds nothing",
                      NumbaInvalidConfigWarning, stacklevel=3)
    return opts
