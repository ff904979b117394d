"""``cudalite.cuda.cgutils``: numba-cuda's ``numba.cuda.cgutils`` (IR-building helpers for
extension code); the GPU-less compiler's :mod:`cudalite.nvvm.extending.cgutils`."""

from cudalite.nvvm.extending.cgutils import *  # noqa: F401,F403
from cudalite.nvvm.extending.cgutils import __all__  # noqa: F401
