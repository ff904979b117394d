"""``compile`` and ``compile_ptx``: the numba.cuda compile API, GPU-less.

``compile_ptx(f, sig, device=False, abi="numba")`` returns ``(ptx, resty)``;
``compile(f, sig, device=True, abi="c", output="ptx"|"ltoir")`` returns
``(code, resty)``.  The default target is ``cc=(7, 5)`` (override with
``cc=`` or ``CUDALITE_DEFAULT_CC``).
"""

from __future__ import annotations

from cudalite.core.errors import CompilerError, CudaliteError, Loc

from ._options import make_options
from .config import load_config
from .pipeline import EntrySpec, run_pipeline

__all__ = ["compile", "compile_ptx", "compile_stages", "make_options"]

def _entry(device, abi, abi_info):
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"unsupported ABI: {abi!r} (use 'numba' or 'c')")
    abi_info = abi_info or {}
    unknown = set(abi_info) - {"abi_name"}
    if unknown:
        raise ValueError(f"unknown abi_info keys: {sorted(unknown)}")
    return EntrySpec(device=bool(device), abi=abi, abi_name=abi_info.get("abi_name"))


def _compile(pyfunc, sig, entry, options, until):
    """Run the pipeline: ``(result, None)``, or ``(None, error)`` for a compile error.

    The public function raises the error itself, so its traceback holds the
    user's frames and that one ``api.py`` frame (Python always records the frame
    that executes ``raise``; no frame of the compiler's internals remains).
    ``CUDALITE_FULL_TRACEBACK=1`` raises here with every internal frame instead.
    """
    if not callable(pyfunc) or not hasattr(pyfunc, "__code__"):
        raise TypeError(f"expected a Python function, got {pyfunc!r}")
    try:
        return run_pipeline(pyfunc, sig, entry, options, until=until), None
    except CudaliteError as e:
        if load_config().full_traceback:
            raise
        err = e.with_traceback(None)  # the compiler's internal frames are dropped
    if isinstance(err, CompilerError):  # e.g. a bad signature: point at the function compiled
        code = pyfunc.__code__
        err.with_default_loc(Loc(code.co_filename, code.co_firstlineno))
    err.__cause__, err.__suppress_context__ = None, True  # as 'raise ... from None'
    return None, err


def compile(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False, cc=None,
            opt=None, abi="c", abi_info=None, output="ptx", forceinline=False, launch_bounds=None):
    """Compile ``pyfunc`` for ``sig`` to PTX (str) or LTO-IR (bytes): ``(code, resty)``."""
    entry = _entry(device, abi, abi_info)
    options = make_options(cc=cc, opt=opt, fastmath=fastmath, debug=debug, lineinfo=lineinfo,
                           output=output, forceinline=forceinline, launch_bounds=launch_bounds)
    res, err = _compile(pyfunc, sig, entry, options, output)
    if err is not None:
        raise err
    return res.artifacts[output].data, res.return_type


def compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False, cc=None,
                opt=None, abi="numba", abi_info=None, forceinline=False, launch_bounds=None):
    """Compile ``pyfunc`` for ``sig`` to PTX: ``(ptx, resty)``."""
    entry = _entry(device, abi, abi_info)
    options = make_options(cc=cc, opt=opt, fastmath=fastmath, debug=debug, lineinfo=lineinfo,
                           output="ptx", forceinline=False, launch_bounds=launch_bounds)
    if forceinline:
        raise ValueError("forceinline=True is only supported by compile(..., output='ltoir')")
    res, err = _compile(pyfunc, sig, entry, options, "ptx")
    if err is not None:
        raise err
    return res.artifacts["ptx"].data, res.return_type


def compile_stages(pyfunc, sig, *, device=True, abi="numba", abi_info=None, output="ptx", **opts):
    """Every stage's artifact for ``pyfunc`` and ``sig``: ``{stage: Artifact}``."""
    entry = _entry(device, abi, abi_info)
    options = make_options(output=output, **opts)
    res, err = _compile(pyfunc, sig, entry, options, "source")
    if err is not None:
        raise err
    full, err = _compile(pyfunc, sig, entry, options, output)
    if err is not None:
        raise err
    return {**res.artifacts, **full.artifacts}
