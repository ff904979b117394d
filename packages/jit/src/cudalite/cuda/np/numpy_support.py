"""numba's ``numba.cuda.np.numpy_support`` public names: ``from_dtype`` (a NumPy dtype
-> its type) and ``carray`` / ``farray`` (array views over a pointer, on the host and
in device code)."""

from cudalite.core.pointer_arrays import carray, farray  # noqa: F401
from cudalite.types import from_dtype  # noqa: F401

__all__ = ["carray", "farray", "from_dtype"]
