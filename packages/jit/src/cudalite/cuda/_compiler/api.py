"""``cuda.compile`` / ``cuda.compile_ptx`` and numba's current-device spellings.

They are ``cudalite.nvvm``'s compile functions (GPU-less), also accepting ``@cuda.jit``
dispatchers.  This module, and with it the compiler, loads when ``cuda.compile`` or a
sibling is first named (``cudalite.cuda``'s lazy attributes).
``cuda.compile(..., output="fatbin", cc=[80, 90, 100])`` runs the runtime's build stages
through ``fatbin`` (one compile, a link per architecture, one nvFatbin).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cudalite.core.target import parse_cc
from cudalite.core.types import parse_signature, void
from cudalite.nvvm import compile as nvvm_compile
from cudalite.nvvm import compile_ptx
from cudalite.nvvm.config import load_config as nvvm_config

from .._launch.devices import current_cc
from .options import JitOptions
from .stages import make_job, run_build

__all__ = ["jit_compile", "jit_compile_ptx", "compile_fatbin", "compile_for_current_device",
           "compile_ptx_for_current_device"]


def _pyfunc(obj):
    """The Python function of a dispatcher (kernel or device function), or ``obj``."""
    return getattr(obj, "__cudalite_pyfunc__", None) or getattr(obj, "py_func", None) or obj


def jit_compile(pyfunc: Any, sig: Any, *args: Any, **kwargs: Any) -> tuple[str | bytes, Any]:
    """``cuda.compile``: :func:`cudalite.nvvm.compile`, also accepting ``@cuda.jit``
    dispatchers, and ``output="fatbin"``: a kernel for several architectures.

    Parameters
    ----------
    pyfunc : function or dispatcher
        A Python function, or a ``@cuda.jit`` kernel / device function (its Python function is compiled).
    sig : str or Signature
        The signature, e.g. ``"float32(float32, float32)"``.
    *args, **kwargs
        The options of :func:`cudalite.nvvm.compile` (``debug``, ``lineinfo``, ``device``, ``fastmath``,
        ``cc``, ``opt``, ``abi``, ``abi_info``, ``output``, ``forceinline``, ``launch_bounds``).
        With ``output="fatbin"`` (a kernel: ``device=False``), ``cc`` is one target or a list of
        them (``[80, 90, 100]``, ``["8.0", (9, 0)]``...): one cubin each in the fatbin.

    Returns
    -------
    tuple
        ``(code, resty)``: PTX (str), LTO-IR (bytes) or a fatbin (bytes), and the return type.

    Raises
    ------
    ValueError
        ``output="fatbin"`` for a device function, or an unknown target.
    """
    if kwargs.get("output") == "fatbin":
        return compile_fatbin(_pyfunc(pyfunc), sig, **kwargs)
    return nvvm_compile(_pyfunc(pyfunc), sig, *args, **kwargs)


def compile_fatbin(pyfunc: Any, sig: Any, *, cc: Any = None, device: bool = False, output: str = "fatbin",
                   debug: bool = False, lineinfo: bool = False, fastmath: Any = False, opt: int | None = None,
                   launch_bounds: Any = None, max_registers: int | None = None, link: Any = (),
                   **unsupported: Any) -> tuple[bytes, Any]:
    """A multi-architecture fatbin of kernel ``pyfunc`` for ``sig``: compiled once, for
    the lowest target, linked for every target (nvJitLink), packed by nvFatbin -- the
    build stages through ``fatbin``.  ``(fatbin bytes, void)``."""

    if device:
        raise ValueError("output='fatbin' builds kernels: pass device=False (a device function is linked into "
                         "kernels as PTX or LTO-IR: output='ptx' or 'ltoir')")
    if unsupported:
        raise TypeError(f"output='fatbin' does not take {', '.join(sorted(unsupported))}")
    if cc is None:
        targets = [nvvm_config().default_cc]
    elif isinstance(cc, list) or (isinstance(cc, tuple) and not (len(cc) == 2 and all(isinstance(v, int)
                                                                                     for v in cc))):
        targets = list(cc)  # several targets: [80, 90], ("8.0", (9, 0)), ...
    else:
        targets = [cc]  # one target: 90, "9.0", (9, 0), "sm_90a"
    if not targets:
        raise ValueError("output='fatbin' needs at least one target (cc=[...])")
    parsed = {}
    for t in targets:
        try:
            c = parse_cc(t)
        except ValueError as e:
            hint = (" (for several targets pass a list: cc=[80, 90])" if isinstance(cc, tuple) and len(cc) == 2
                    else "")
            raise ValueError(f"{e}{hint}") from None
        parsed[c.arch] = c
    ccs = sorted(parsed.values(), key=lambda c: (c.major, c.minor, c.arch_suffix))
    ret, argtypes = parse_signature(sig)
    if ret is not None and ret != void:
        raise TypeError(f"a kernel returns nothing: the signature {sig!r} declares {ret}")
    opts = JitOptions(debug=debug, lineinfo=lineinfo, opt=opt, fastmath=fastmath, max_registers=max_registers,
                      launch_bounds=launch_bounds, link=tuple(link))
    job = make_job(pyfunc, tuple(argtypes), opts, ccs[0].cc, archs=[c.arch for c in ccs], cache=False,
                   output="fatbin")
    state = run_build(job, until="fatbin")
    return state.fatbin, void


def jit_compile_ptx(pyfunc: Any, sig: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """``cuda.compile_ptx``: :func:`cudalite.nvvm.compile_ptx`, also accepting ``@cuda.jit`` dispatchers.

    Parameters
    ----------
    pyfunc : function or dispatcher
        A Python function, or a ``@cuda.jit`` kernel / device function.
    sig : str or Signature
        The signature.
    *args, **kwargs
        The options of :func:`cudalite.nvvm.compile_ptx`.

    Returns
    -------
    tuple
        ``(ptx, resty)``.
    """
    return compile_ptx(_pyfunc(pyfunc), sig, *args, **kwargs)


def compile_for_current_device(pyfunc: Callable[..., Any], sig: Any, debug: bool = False, lineinfo: bool = False,
                               device: bool = True, fastmath: Any = False, opt: int | None = None, abi: str = "c",
                               abi_info: Mapping[str, Any] | None = None, output: str = "ptx",
                               forceinline: bool = False, launch_bounds: Any = None) -> tuple[str | bytes, Any]:
    """``cuda.compile`` for the current device's compute capability.

    Parameters
    ----------
    pyfunc : function or dispatcher
        What to compile.
    sig : str or Signature
        The signature.
    debug, lineinfo, device, fastmath, opt, abi, abi_info, output, forceinline, launch_bounds
        As for :func:`cudalite.nvvm.compile` (``cc`` is the current device's).

    Returns
    -------
    tuple
        ``(code, resty)``.

    Raises
    ------
    CudaDriverError
        No usable device (the driver is initialized to read the compute capability).
    """
    return nvvm_compile(_pyfunc(pyfunc), sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                        cc=current_cc(), opt=opt, abi=abi, abi_info=abi_info, output=output,
                        forceinline=forceinline, launch_bounds=launch_bounds)


def compile_ptx_for_current_device(pyfunc: Callable[..., Any], sig: Any, debug: bool = False,
                                   lineinfo: bool = False, device: bool = False, fastmath: Any = False,
                                   opt: int | None = None, abi: str = "numba",
                                   abi_info: Mapping[str, Any] | None = None, forceinline: bool = False,
                                   launch_bounds: Any = None) -> tuple[str, Any]:
    """``cuda.compile_ptx`` for the current device's compute capability.

    Parameters
    ----------
    pyfunc : function or dispatcher
        What to compile.
    sig : str or Signature
        The signature.
    debug, lineinfo, device, fastmath, opt, abi, abi_info, forceinline, launch_bounds
        As for :func:`cudalite.nvvm.compile_ptx` (``cc`` is the current device's).

    Returns
    -------
    tuple
        ``(ptx, resty)``.
    """
    return compile_ptx(_pyfunc(pyfunc), sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                       cc=current_cc(), opt=opt, abi=abi, abi_info=abi_info, forceinline=forceinline,
                       launch_bounds=launch_bounds)
