"""``cudalite.cuda.cgutils``: numba-cuda's ``numba.cuda.cgutils`` (IR-building helpers for
extension code); the GPU-less compiler's :mod:`cudalite.nvvm.extending.cgutils`."""

from cudalite.nvvm.extending.cgutils import *  # noqa: F401,F403
from cudalite.nvvm.extending import cgutils as _public

__all__ = list(_public.__all__)  # the same public names
