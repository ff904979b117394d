"""Strictness checks where numba is strict: constructs Python accepts (or accepts
until run time) that cudalite must refuse with a located error, never compile.

Two passes, both pure:

* :func:`check_function` before the source is read: a coroutine (``async def``),
  an async generator or a generator function (``yield``) is refused at its
  ``def`` line (from the code object's flags, so even a function whose body is
  never reached is refused);
* :func:`check_ir` on the built IR: ``raise`` of something that is no exception
  class or instance (``raise 5``, ``raise "boom"``, ``raise x``: Python itself
  raises ``TypeError: exceptions must derive from BaseException`` there), and
  device-side uses of objects that say they cannot be used in device code (a
  ``@cuda.jit`` kernel launched from a kernel: such objects carry a
  ``__cudalite_not_device__`` message saying what to do).  Calling such an object
  is allowed when it also names a Python function to compile in its place
  (``__cudalite_pyfunc__``: a kernel called from a kernel runs as a device
  function, as in numba-cuda).
"""

from __future__ import annotations

import inspect
import linecache

from .. import ir
from ..errors import Loc, TypingError, UnsupportedError
from ..ir import walk_exprs, walk_stmts

__all__ = ["check_function", "check_ir"]

_CO_GENERATOR = inspect.CO_GENERATOR
_CO_COROUTINE = inspect.CO_COROUTINE | inspect.CO_ITERABLE_COROUTINE
_CO_ASYNC_GENERATOR = inspect.CO_ASYNC_GENERATOR


def check_function(func) -> None:
    """Refuse a function that Python runs as a coroutine or a generator."""
    code = getattr(func, "__code__", None)
    flags = getattr(code, "co_flags", 0)
    if not isinstance(flags, int) or not flags & (_CO_GENERATOR | _CO_COROUTINE | _CO_ASYNC_GENERATOR):
        return
    name = getattr(code, "co_qualname", None) or code.co_name
    text = linecache.getline(code.co_filename, code.co_firstlineno, getattr(func, "__globals__", None))
    loc = Loc(code.co_filename, code.co_firstlineno, len(text) - len(text.lstrip()))  # at the def (or decorator)
    if flags & _CO_ASYNC_GENERATOR:
        what = "an async generator (async def with yield)"
    elif flags & _CO_COROUTINE:
        what = "a coroutine (async def)"
    else:
        what = "a generator function (it contains yield)"
    raise UnsupportedError(f"{name} is {what}: CUDA device code has no coroutines or generators; "
                           "write it as a plain def that returns its result (or stores it into an array)", loc)


def check_ir(fir: ir.FunctionIR) -> None:
    """Refuse ``raise`` of a non-exception and device-side uses of host-only objects."""
    for s in walk_stmts(fir.body):
        if isinstance(s, ir.Raise) and s.exc is not None:
            _check_raise(s.exc)
        exprs = list(walk_exprs(s))
        called = {id(e.func) for e in exprs
                  if isinstance(e, ir.Call) and isinstance(e.func, ir.Const) and _device_callable(e.func.value)}
        for e in exprs:
            if isinstance(e, ir.Const) and id(e) not in called:
                why = _not_device(e.value)
                if why is not None:
                    raise TypingError(why, e.loc)


def _device_callable(value) -> bool:
    try:
        pyfunc = getattr(value, "__cudalite_pyfunc__", None)
    except Exception:
        return False
    return inspect.isfunction(pyfunc)


def _not_device(value):
    try:
        why = getattr(value, "__cudalite_not_device__", None)
    except Exception:  # a proxy object with a failing __getattr__: not ours to judge
        return None
    return why if isinstance(why, str) else None


def _check_raise(exc) -> None:
    target = exc.func if isinstance(exc, ir.Call) else exc
    if isinstance(target, ir.Const):
        v = target.value
        if isinstance(v, type) and issubclass(v, BaseException):
            return
        if isinstance(exc, ir.Const) and isinstance(v, BaseException):
            return  # a frozen global exception instance
        what = repr(v) if isinstance(v, (int, float, complex, str, bool)) or v is None else (
            getattr(v, "__qualname__", None) or type(v).__name__)
        made = "the value returned by " if isinstance(exc, ir.Call) else ""
        raise TypingError(f"exceptions must derive from BaseException: cannot raise {made}{what}; "
                          "raise an exception class or instance (raise ValueError('...'))", exc.loc)
    if isinstance(exc, ir.Var):
        raise TypingError(f"cannot raise the local variable {exc.name!r}: device code raises only an exception "
                          "class or an instance made in the raise statement (raise ValueError('...'))", exc.loc)
    raise TypingError("cannot raise the value of this expression: device code raises only an exception class or "
                      "an instance made in the raise statement (raise ValueError('...'))", exc.loc)
