"""Checked calls into ``cuda.bindings.driver``, imported on first use.

``call("cuMemAlloc", n)`` runs the binding, raises :class:`CudaDriverError` for a
nonzero CUresult and returns the result (one value, a tuple of several, or None).
Nothing here is imported at ``import cudalite.driver`` time.

:data:`api` is numba's ``driver`` object (``numba.cuda.cudadrv.driver.driver``):
``api.cuMemAlloc(n)`` is the checked call, and assigning ``api.cuMemcpyHtoD = f``
routes every later driver call of that name made by cudalite through ``f`` until the
attribute is deleted (what numba's tests and user mocks do; numba's driver object has
the same meaning).  It is the one process-wide mutable object here, by that contract.
"""

from __future__ import annotations

from typing import Any

from .errors import raise_for

__all__ = ["cu", "call", "call_status", "api", "DriverAPI"]


def cu() -> Any:
    """The ``cuda.bindings.driver`` module (imported lazily, cached by Python)."""
    from cuda.bindings import driver

    return driver


def call(name: Any, *args: Any) -> Any:
    """Call ``cuda.bindings.driver.<name>(*args)``; raise on error; return the results."""
    override = _OVERRIDES.get(name)
    if override is not None:
        return override(*args)
    return _checked(name, *args)


def _checked(name, *args):
    """The binding's call, checked (never an override)."""
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


def call_status(name: Any, *args: Any) -> Any:
    """Like :func:`call` for status queries: returns the int CUresult of a call that
    may legitimately report ``CUDA_ERROR_NOT_READY`` (600); raises on other errors."""
    from cuda.bindings import driver

    err = int(getattr(driver, name)(*args)[0])
    if err not in (0, 600):
        raise_for(err, name)
    return err


class DriverAPI:
    """numba's ``driver`` object: each ``cu*`` attribute is the checked driver call
    (results without the CUresult; a failure raises :class:`CudaDriverError`).
    Setting an attribute overrides that call for cudalite's own calls too;
    deleting it restores the binding."""

    def __getattr__(self, name: Any) -> Any:
        if not name.startswith("cu"):
            raise AttributeError(name)

        def checked(*args):
            return _checked(name, *args)

        checked.__name__ = name
        return checked

    def __repr__(self) -> str:
        return "<cudalite driver API (cuda.bindings.driver, checked)>"


api = DriverAPI()
_OVERRIDES = api.__dict__  # the attributes set on ``api``: call() consults them first
