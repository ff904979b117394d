"""NumPy, imported only when needed, so ``import cudalite.nvvm`` and ``import cudalite.cuda`` stay fast.

A NumPy value can only exist once NumPy is imported, so type tests against
NumPy classes use :func:`loaded` (``None`` when NumPy is not loaded yet, and
then no value can be a NumPy object); code that must create NumPy objects
calls :func:`numpy`.

Public: cudalite.nvvm and cudalite.cuda use it too (no package imports another's
private ``_module``).
"""

from __future__ import annotations

import sys

__all__ = ["loaded", "numpy", "is_ndarray", "is_numpy_scalar", "is_numpy_integer", "lazy_numpy"]


def loaded():
    return sys.modules.get("numpy")


def numpy():
    import numpy as np

    return np


def is_ndarray(value) -> bool:
    np = loaded()
    return np is not None and isinstance(value, np.ndarray)


def is_numpy_scalar(value) -> bool:
    np = loaded()
    return np is not None and isinstance(value, np.generic)


def is_numpy_integer(value) -> bool:
    np = loaded()
    return np is not None and isinstance(value, np.integer)


class _LazyNumpy:
    """A stand-in for the ``numpy`` module that imports it on first attribute use,
    for modules whose import must not pay for NumPy (off the launch hot path)."""

    __slots__ = ()

    def __getattr__(self, name):
        return getattr(numpy(), name)

    def __repr__(self):
        return "<lazy numpy>"


lazy_numpy = _LazyNumpy()
