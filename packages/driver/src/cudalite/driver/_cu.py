"""Checked calls into ``cuda.bindings.driver``, imported on first use.

``call("cuMemAlloc", n)`` runs the binding, raises :class:`CudaDriverError` for a
nonzero CUresult and returns the result (one value, a tuple of several, or None).
Nothing here is imported at ``import cudalite.driver`` time.
"""

from __future__ import annotations

from .errors import raise_for

__all__ = ["cu", "call", "call_status"]


def cu():
    """The ``cuda.bindings.driver`` module (imported lazily, cached by Python)."""
    from cuda.bindings import driver

    return driver


def call(name, *args):
    """Call ``cuda.bindings.driver.<name>(*args)``; raise on error; return the results."""
    from cuda.bindings import driver

    res = getattr(driver, name)(*args)
    err = res[0]
    if err != 0:
        raise_for(err, name)
    n = len(res)
    if n == 1:
        return None
    if n == 2:
        return res[1]
    return res[1:]


def call_status(name, *args):
    """Like :func:`call` for status queries: returns the int CUresult of a call that
    may legitimately report ``CUDA_ERROR_NOT_READY`` (600); raises on other errors."""
    from cuda.bindings import driver

    err = int(getattr(driver, name)(*args)[0])
    if err not in (0, 600):
        raise_for(err, name)
    return err
