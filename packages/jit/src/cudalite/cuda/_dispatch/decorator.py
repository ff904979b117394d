"""``cuda.jit``: the decorator that makes kernel and device-function dispatchers.

``@cuda.jit`` returns a :class:`~.kernel.CUDADispatcher` (a kernel, launched with
``kernel[griddim, blockdim, stream, sharedmem](*args)``) or, with ``device=True``, a
:class:`~cudalite.cuda._dispatch.device.DeviceDispatcher` (callable from kernels
and other device functions: the core compiler sees its ``__cudalite_pyfunc__``).
Options are validated into one :class:`~cudalite.cuda._compiler.options.JitOptions` here.
"""

from __future__ import annotations

import types
from typing import Any

from .device import DeviceDispatcher
from .options import jit_options, mark_inline
from .kernel import CUDADispatcher, signature_args

__all__ = ["jit"]


def _python_function():
    """``python_function(obj, what, stacklevel)``: ``obj`` itself when it is a Python
    function (no import: decorating stays cheap, the frontend loads with the warm-up or
    the first compile), else the frontend's ``python_function`` (``__wrapped__`` chains,
    the ``TypeError``)."""

    def python_function(obj, what="compile", stacklevel=2):
        if isinstance(getattr(obj, "__code__", None), types.CodeType):
            return obj
        from cudalite.core.frontend import python_function as unwrap  # lazy: wrappers only

        return unwrap(obj, what, stacklevel + 1)

    return python_function


def jit(func_or_sig: Any = None, device: bool = False, inline: Any = "never", link: Any = (),
        debug: bool | None = None, opt: Any = None, lineinfo: bool = False, cache: bool = False,
        **kws: Any) -> Any:  # a CUDADispatcher, a DeviceDispatcher or a decorator making one
    """Compile a Python function as a CUDA kernel, or as a device function.

    Used as a decorator: ``@cuda.jit``, ``@cuda.jit("void(float32[:], float32)")``,
    ``@cuda.jit(["void(float32[:])", "void(float64[:])"])``,
    ``@cuda.jit(device=True)``, ``@cuda.jit(debug=True, opt=False)``, or called:
    ``cuda.jit(func)``.

    Parameters
    ----------
    func_or_sig : function or str or Signature or list, optional
        The function to compile (then the dispatcher is returned), or a signature,
        or a list of signatures, to compile eagerly (then a decorator is
        returned).  A kernel with signatures compiles on the first launch (or now,
        with a device) for those signatures only, and arguments convert to the
        best-matching one, as in numba; without signatures it compiles lazily once
        per tuple of argument types.  Device functions with signatures are
        type-checked now.
    device : bool, optional
        Compile a device function (callable from kernels and device functions, not
        from Python) instead of a kernel.
    inline : {"never", "always"}, bool or callable, optional
        How calls to this function from device code are inlined: ``"always"`` (or
        True) inlines the body at each call site when the caller is lowered (no
        ``call`` remains in its IR); a callable ``(call, caller_ir, callee_ir) -> bool``
        decides per call site.  ``forceinline=True`` instead marks the function
        ``alwaysinline`` for LLVM.
    link : list of str or os.PathLike or cudalite.linker.LinkableCode, optional
        Files (``.cu``, ``.ptx``, ``.ltoir``, ``.cubin``, ``.fatbin``, ``.o``,
        ``.a``) or code objects linked into every kernel that uses this function (the
        foreign functions of ``cuda.declare_device``).  LTO-IR items make the link
        an LTO link.
    debug : bool, optional
        Debug info (``-g``), and ``raise``/``assert`` in the kernel take effect:
        an exception raised on the device is re-raised in Python after the
        launch (without ``debug`` they cost nothing and do nothing, as in numba).  Turns optimization off unless ``opt``
        is given (with a warning when ``opt`` is true).
    opt : bool or int, optional
        The libNVVM optimization level: False or 0 for none, True or None (the
        default) for 3.
    lineinfo : bool, optional
        Line information in the PTX (for profilers), without full debug info.
    cache : bool, optional
        Keep compiled kernels in the on-disk kernel cache (``docs/cache.md``).
    **kws
        ``fastmath`` (bool: flush denormals to zero, approximate division and
        square root, contract to FMA), ``max_registers`` (a positive int: a limit
        per thread), ``launch_bounds`` (an int or a tuple of 1 to 3 ints: max
        threads per block, min blocks per SM, max blocks per cluster),
        ``forceinline`` (bool, as ``inline="always"``), ``lto`` (accepted for numba compatibility; LTO
        follows from ``link``), ``boundscheck`` (bool: check array indices, docs/guide/debugging.md),
        ``cluster_dims`` (thread-block clusters, docs/graphs.md), ``programmatic_dependent_launch``
        (bool: every launch may overlap the kernel before it on the stream, which the kernel
        waits for with ``cuda.griddepcontrol.wait()``; docs/tensorcores.md).

    Returns
    -------
    CUDADispatcher or DeviceDispatcher or callable
        The kernel (:class:`CUDADispatcher`) or device function
        (:class:`DeviceDispatcher`) when given a function; otherwise a decorator
        that returns one.

    Raises
    ------
    TypeError
        An unknown keyword argument, a ``link`` that is not a list or tuple of
        paths and code objects, or a decorated object that is not a Python
        function.
    ValueError
        ``max_registers`` is not a positive int, ``inline`` or ``opt`` or
        ``launch_bounds`` has an invalid value.
    cudalite.core.errors.CompilerError
        A signature does not parse, or (eagerly) the function does not compile
        for one of its signatures: the error shows the source location.
    """
    opts = jit_options(debug, opt, lineinfo, cache, link, inline, kws, device=device)
    cls: Any = DeviceDispatcher if device else CUDADispatcher
    extensions = kws.get("extensions") or ()
    if callable(func_or_sig) and not isinstance(func_or_sig, (CUDADispatcher, DeviceDispatcher)) and (
            hasattr(func_or_sig, "__code__") or hasattr(func_or_sig, "__wrapped__")):
        disp = cls(_python_function()(func_or_sig, "jit-compile", stacklevel=2), None, opts)
        if extensions:
            disp.extensions.extend(extensions)
        return mark_inline(disp, inline, opts)
    if func_or_sig is None:
        sigs = None
    elif isinstance(func_or_sig, list):
        sigs = list(func_or_sig)
    else:
        sigs = [func_or_sig]
    if sigs is not None:  # validate the signatures now
        for sig in sigs:
            signature_args(sig)

    def decorate(func):
        if isinstance(func, (CUDADispatcher, DeviceDispatcher)):
            func = func.py_func
        if not callable(func):
            raise TypeError(f"cuda.jit decorates Python functions, not {func!r}")
        try:
            func = _python_function()(func, "jit-compile", stacklevel=2)  # a C-level wrapper: its __wrapped__
        except TypeError:
            raise TypeError(f"cuda.jit decorates Python functions, not {func!r}") from None
        disp = cls(func, sigs, opts)
        if extensions:
            disp.extensions.extend(extensions)
        return mark_inline(disp, inline, opts)

    return decorate
