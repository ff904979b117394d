"""The compiler half for the jit: a Python function to PTX or LTO-IR (GPU-less).

:func:`compile_code` runs ``cudalite.nvvm``'s pipeline for a kernel or device function
with the ``@cuda.jit`` options; compile errors are raised with their source location
and without compiler-internal frames.  :func:`compile_with` is the same with the
compiler's options already translated (the ``compile`` stage of ``stages``).
"""

from __future__ import annotations

import linecache
import warnings

from cudalite.core.errors import CompilerError, CudaliteError, Loc, NumbaDebugInfoWarning

from .options import JitOptions, compile_options_of, is_ltoir

__all__ = ["compile_code", "compile_with", "warn_missing_source", "reraise_located"]


def reraise_located(err: CudaliteError, pyfunc):
    """Raise a compiler error without the compiler's internal frames, pointing at
    ``pyfunc`` when the error has no location of its own."""
    if isinstance(err, CompilerError):
        code = getattr(pyfunc, "__code__", None)
        if code is not None:
            err.with_default_loc(Loc(code.co_filename, code.co_firstlineno))
    raise err.with_traceback(None) from None


def compile_code(pyfunc, argtypes, opts: JitOptions, cc, *, device=False, until=None, context=None):
    """GPU-less: run the pipeline for a kernel (or a device function) of ``argtypes``
    for ``cc``; compile errors are raised with their source location and without
    compiler-internal frames.

    ``until`` None: to PTX, or to LTO-IR when the kernel or any callee links LTO-IR or the
    code reallocates registers (setmaxnreg: decided after lowering, so libNVVM runs once).
    ``context``: a typing context that already typed the function (the cache's probe);
    typing is not repeated."""
    try:
        options = compile_options_of(opts, cc)
    except CudaliteError as e:
        reraise_located(e, pyfunc)
    return compile_with(pyfunc, argtypes, opts, options, device=device, until=until, context=context)


def compile_with(pyfunc, argtypes, opts: JitOptions, options, *, device=False, until=None, context=None):
    """:func:`compile_code` with the compiler's options already made (``options``: the
    job's one translation of ``opts``)."""
    from cudalite.nvvm.pipeline import EntrySpec, resume, run_pipeline  # lazy: the compiler loads at the first compile

    if opts.debug:
        warn_missing_source(pyfunc)
    try:
        if context is None:
            from cudalite.core import registry, typing  # lazy: the compiler loads at the first compile

            context = typing.TypingContext(registry.registry, options)
        res = run_pipeline(pyfunc, tuple(argtypes), EntrySpec(device=device), options,
                           until=until or "nvvm-ir", context=context)
        if until is None:
            lto = opts.lto or res.needs_lto or any(is_ltoir(item) for item in res.link_items)
            res = resume(res, "ltoir" if lto else "ptx")
        return res
    except CudaliteError as e:
        err = e
    reraise_located(err, pyfunc)


def warn_missing_source(pyfunc):
    """A debug build of a function whose source file a debugger cannot read (made by
    ``exec``, its file gone): NumbaDebugInfoWarning, as numba warns.  The line table
    still names its lines; the debugger cannot show them."""


    code = getattr(pyfunc, "__code__", None)
    if code is None or linecache.getlines(code.co_filename):
        return
    warnings.warn(f"Could not find source for function: {pyfunc}. Debug line information may be "
                  "inaccurate.", NumbaDebugInfoWarning, stacklevel=2)
