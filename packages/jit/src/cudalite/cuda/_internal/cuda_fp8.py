"""``numba.cuda._internal.cuda_fp8`` (numba-cuda's generated cuda_fp8.h bindings): the
same names from :mod:`cudalite.cuda.fp8`, where cudalite documents them."""

from cudalite.cuda.fp8 import *  # noqa: F401,F403
from cudalite.cuda.fp8 import __all__  # noqa: F401
