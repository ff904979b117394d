"""``cudalite.cuda.models``: numba-cuda's ``numba.cuda.models`` (``register_model`` and the
data-model classes); the GPU-less compiler's :mod:`cudalite.nvvm.extending.models`."""

from cudalite.nvvm.extending.models import *  # noqa: F401,F403
from cudalite.nvvm.extending import models as _public

__all__ = list(_public.__all__)  # the same public names
