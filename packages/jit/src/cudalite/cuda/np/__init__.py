"""``cudalite.cuda.np``: numba's ``numba.cuda.np`` names (``numpy_support``)."""

from . import numpy_support  # noqa: F401
