"""``compile`` and ``compile_ptx``: the numba.cuda compile API, GPU-less.

``compile_ptx(f, sig, device=False, abi="numba")`` returns ``(ptx, resty)``;
``compile(f, sig, device=True, abi="c", output="ptx"|"ltoir")`` returns
``(code, resty)``.  The default target is ``cc=(7, 5)`` (override with
``cc=`` or ``CUDALITE_DEFAULT_CC``); besides every spelling of
:func:`cudalite.core.target.parse_cc`, ``cc`` may be numba's ``(major, minor,
suffix)`` tuple for an arch- or family-specific target: ``(9, 0, "a")`` is sm_90a.

Bad arguments raise numba-cuda's exception types with its wording at the start of
cudalite's message: ``NotImplementedError`` for an unknown ``abi`` ("Unsupported ABI:
fastcall"), for the C ABI asked of a kernel ("The C ABI is not supported for
kernels") and for an unknown ``output`` ("Unsupported output type: cubin").
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

from cudalite.core.errors import CompilerError, CudaliteError, InternalCompilerError, Loc, NumbaInvalidConfigWarning
from cudalite.core.target import ComputeCapability

from ._options import make_options, option_warnings
from .lower import is_symbol_name
from .config import load_config
from .pipeline import EntrySpec, run_pipeline

__all__ = ["compile", "compile_ptx", "compile_stages", "make_options", "target_cc", "check_output"]


def target_cc(cc: Any) -> ComputeCapability:
    """``cc`` as :func:`make_options` reads it: numba's ``(major, minor, suffix)``
    (``(9, 0, "a")``: sm_90a, ``(10, 0, "f")``: sm_100f) as a validated
    :class:`ComputeCapability`, any other value unchanged (``parse_cc`` reads it)."""
    if isinstance(cc, (tuple, list)) and len(cc) == 3 and isinstance(cc[2], str):
        return ComputeCapability(cc[0], cc[1], cc[2])
    return cc


def check_output(output: str) -> None:
    """``output`` must be 'ptx' or 'ltoir' (numba-cuda's NotImplementedError otherwise)."""
    if output not in ("ptx", "ltoir"):
        raise NotImplementedError(f"Unsupported output type: {output} (the output is 'ptx' or 'ltoir')")


def _entry(device, abi, abi_info):
    """The validated entry point: ``abi`` is 'numba' or 'c' (only 'numba' for a kernel);
    ``abi_info`` a dict whose only key is ``abi_name``, a symbol name PTX accepts (see
    :func:`_check_abi_name`)."""
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi} (the ABI is 'numba' or 'c')")
    if abi == "c" and not device:
        raise NotImplementedError("The C ABI is not supported for kernels: the C ABI is for device functions only; "
                                  "compile kernels with abi='numba'")
    if abi_info is None:
        abi_info = {}
    if not isinstance(abi_info, Mapping):
        raise TypeError(f"abi_info must be a dict such as {{'abi_name': 'my_name'}}, not {abi_info!r}")
    unknown = set(abi_info) - {"abi_name"}
    if unknown:
        raise ValueError(f"unknown abi_info keys: {sorted(unknown, key=repr)} (the only key is 'abi_name')")
    name = abi_info.get("abi_name")
    if name is not None:
        _check_abi_name(name, abi)
    return EntrySpec(device=bool(device), abi=abi, abi_name=name)


def _check_abi_name(name, abi):
    """``abi_info['abi_name']`` must be a str that PTX accepts as a function name: a
    letter, then letters, digits, '_' or '$' (or '_'/'$' and at least one more);
    the same rule for both ABIs (a C caller declares it with ``extern "C"``)."""
    if not isinstance(name, str):
        raise TypeError(f"abi_info['abi_name'] must be a str, not {type(name).__name__} ({name!r})")
    if not is_symbol_name(name):
        bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c in "_$"))})
        why = (f"it contains {', '.join(map(repr, bad))}" if bad
               else "it is empty" if not name
               else "it is a name PTX reserves" if name == "WARP_SZ"
               else "a name starting with '_' or '$' needs at least one more character" if len(name) == 1
               else "it must not start with a digit")
        raise ValueError(f"abi_info['abi_name'] {name!r} is not a valid symbol name for abi={abi!r}: {why}; "
                         "use letters, digits, '_' and '$', not starting with a digit")


def _warn_options(*, debug, opt, lineinfo) -> None:
    """Warn (as numba-cuda does) about debug=True with optimization asked for, and
    debug=True with lineinfo=True.  The stack level points at the user's call."""
    for msg in option_warnings(debug=debug, opt=opt, lineinfo=lineinfo):
        warnings.warn(msg, NumbaInvalidConfigWarning, stacklevel=3)


def _compile(pyfunc, sig, entry, options, until):
    """Run the pipeline: ``(result, None)``, or ``(None, error)`` for a compile error.

    The public function raises the error itself, so its traceback holds the
    user's frames and that one ``api.py`` frame (Python always records the frame
    that executes ``raise``; no frame of the compiler's internals remains).
    ``CUDALITE_FULL_TRACEBACK=1`` raises here with every internal frame instead.
    """
    from cudalite.core.frontend import python_function

    pyfunc = python_function(pyfunc, stacklevel=3)  # a C-level wrapper: its __wrapped__, with a warning
    try:
        return run_pipeline(pyfunc, sig, entry, options, until=until), None
    except CudaliteError as e:
        if load_config().full_traceback:
            raise
        err = e.with_traceback(None)  # the compiler's internal frames are dropped
    except Exception as e:  # a bug in cudalite: never an internal exception type
        if load_config().full_traceback:
            raise
        return None, _internal_error(pyfunc, e)
    if isinstance(err, CompilerError):  # e.g. a bad signature: point at the function compiled
        code = pyfunc.__code__
        err.with_default_loc(Loc(code.co_filename, code.co_firstlineno))
    err.__cause__, err.__suppress_context__ = None, True  # as 'raise ... from None'
    return None, err


def _internal_error(pyfunc, exc: Exception) -> InternalCompilerError:
    """An unexpected exception as an :class:`InternalCompilerError`: what was compiled,
    where it starts, the original exception (kept as ``__cause__``, with its traceback)."""
    code = pyfunc.__code__
    err = InternalCompilerError(
        f"internal compiler error while compiling {pyfunc.__qualname__} "
        f"({code.co_filename}:{code.co_firstlineno}): {type(exc).__name__}: {exc} "
        "(this is a bug in cudalite; please report it with this message; "
        "CUDALITE_FULL_TRACEBACK=1 shows where it happened)")
    err.__cause__ = exc
    return err


def compile(pyfunc: Callable[..., Any], sig: Any, debug: bool = False, lineinfo: bool = False, device: bool = True,
            fastmath: Any = False, cc: Any = None, opt: int | None = None, abi: str = "c",
            abi_info: Mapping[str, Any] | None = None, output: str = "ptx", forceinline: bool = False,
            launch_bounds: Any = None) -> tuple[str | bytes, Any]:
    """Compile ``pyfunc`` for ``sig`` to PTX (str) or LTO-IR (bytes).

    Parameters
    ----------
    pyfunc : function
        The Python function to compile (a plain function; ``cudalite.cuda.compile``
        also accepts ``@cuda.jit`` dispatchers).
    sig : str or Signature
        Its signature, e.g. ``"float32(float32, float32)"`` or ``"void(float32[::1])"``.
    debug, lineinfo : bool
        Debug information (``debug`` also turns on device-side exception checks and
        turns off optimization unless ``opt`` says otherwise) / line information only.
    device : bool
        True (default) for a device function, False for a kernel.
    fastmath : bool
        Flush denormals, approximate division and square root, contract to FMA.
    cc : int, str or tuple, optional
        The target compute capability (``(9, 0)``, ``"9.0"``, ``"sm_90"``, ``90``; an arch- or
        family-specific one as ``"sm_90a"`` or numba's ``(9, 0, "a")``);
        default ``CUDALITE_DEFAULT_CC`` or 7.5.
    opt : bool or int, optional
        libNVVM optimization level (default 3; False means 0).
    abi : {'c', 'numba'}
        Device functions: the C ABI (``RET name(args)``) or numba's (``i32 name(RET*, args)``).
    abi_info : dict, optional
        ``{"abi_name": "my_name"}``: the symbol name of the entry point.
    output : {'ptx', 'ltoir'}
        PTX text or LTO-IR bytes.
    forceinline : bool
        Mark the device function ``alwaysinline`` (LTO-IR output only).
    launch_bounds : int or tuple, optional
        Kernels: ``(max threads per block, min blocks per SM, max blocks per cluster)``.

    Returns
    -------
    tuple
        ``(code, resty)``: the PTX (str) or LTO-IR (bytes) and the return type.

    Raises
    ------
    CompilerError
        A located error in the user's code (``file:line:col``, the line and a caret);
        ``NestingError`` for an expression nested too deeply to compile.
    NvvmError
        libNVVM rejected the module.
    InternalCompilerError
        A bug in cudalite (docs/errors.md).
    NotImplementedError
        An unknown ``abi`` or ``output``, or ``abi='c'`` for a kernel (``device=False``).
    ValueError, TypeError
        Invalid options.
    """
    check_output(output)
    entry = _entry(device, abi, abi_info)
    options = make_options(cc=target_cc(cc), opt=opt, fastmath=fastmath, debug=debug, lineinfo=lineinfo,
                           output=output, forceinline=forceinline, launch_bounds=launch_bounds)
    _warn_options(debug=debug, opt=opt, lineinfo=lineinfo)
    res, err = _compile(pyfunc, sig, entry, options, output)
    if err is not None:
        raise err
    return res.artifacts[output].data, res.return_type


def compile_ptx(pyfunc: Callable[..., Any], sig: Any, debug: bool = False, lineinfo: bool = False,
                device: bool = False, fastmath: Any = False, cc: Any = None, opt: int | None = None,
                abi: str = "numba", abi_info: Mapping[str, Any] | None = None, forceinline: bool = False,
                launch_bounds: Any = None) -> tuple[str, Any]:
    """Compile ``pyfunc`` for ``sig`` to PTX: ``(ptx, resty)``.

    Parameters
    ----------
    pyfunc : function
        The Python function (its source must be available).
    sig : str or Signature
        ``"float32(float32, float32)"``, ``"void(float32[:])"``...
    debug, lineinfo, fastmath, cc, opt, abi, abi_info, launch_bounds
        As :func:`compile` (which documents each); the defaults differ there:
        here ``device=False`` (a kernel) and ``abi='numba'``.
    device : bool, optional
        A device function (``.func``) instead of a kernel (``.entry``).
    forceinline : bool, optional
        Refused here: it needs LTO-IR output (:func:`compile`).

    Returns
    -------
    tuple
        ``(ptx, resty)``: PTX text and the return type.
    """
    entry = _entry(device, abi, abi_info)
    options = make_options(cc=target_cc(cc), opt=opt, fastmath=fastmath, debug=debug, lineinfo=lineinfo,
                           output="ptx", forceinline=False, launch_bounds=launch_bounds)
    _warn_options(debug=debug, opt=opt, lineinfo=lineinfo)
    if forceinline:
        raise ValueError("forceinline=True is only supported by compile(..., output='ltoir')")
    res, err = _compile(pyfunc, sig, entry, options, "ptx")
    if err is not None:
        raise err
    return res.artifacts["ptx"].data, res.return_type


def compile_stages(pyfunc: Callable[..., Any], sig: Any, *, device: bool = True, abi: str = "numba",
                   abi_info: Mapping[str, Any] | None = None, output: str = "ptx", **opts: Any) -> dict[str, Any]:
    """Every stage's artifact for ``pyfunc`` and ``sig``, from one pipeline run.

    Parameters
    ----------
    pyfunc : function
        The Python function to compile.
    sig : str or Signature
        Its signature, e.g. ``"float32(float32, float32)"``.
    device : bool
        True for a device function, False for a kernel.
    abi, abi_info
        As for :func:`compile` (device functions only).
    output : {'ptx', 'ltoir'}
        What the last stage makes.
    **opts
        ``cc``, ``opt``, ``fastmath``, ``debug``, ``lineinfo``, ``forceinline``, ``launch_bounds``.

    Returns
    -------
    dict
        ``{stage: Artifact}`` for 'source', 'ast', 'typed-ir', 'nvvm-ir' and ``output``, in
        pipeline order.

    Raises
    ------
    CompilerError
        A located error in the user's code (TypingError, UnsupportedError, ...).
    """
    entry = _entry(device, abi, abi_info)
    if "cc" in opts:
        opts["cc"] = target_cc(opts["cc"])
    options = make_options(output=output, **opts)
    res, err = _compile(pyfunc, sig, entry, options, output)
    if err is not None:
        raise err
    return dict(res.artifacts)
