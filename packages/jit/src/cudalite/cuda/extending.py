"""``cudalite.cuda.extending``: numba-cuda's ``numba.cuda.extending``, for libraries.

The extension API itself is the GPU-less compiler's (:mod:`cudalite.nvvm.extending`:
``overload``, ``overload_method``, ``overload_attribute``, ``register_jitable``,
``intrinsic``, ``type_callable``, ``typeof_impl``, ``register_model``/``models``,
``make_attribute_wrapper``, ``lower_builtin``, ``lower_cast``, ``lower_constant``,
``lower_getattr``, ``cgutils``); this module re-exports it for the runtime, where a
value of an extension type can also be a kernel argument: its class is typed by its
``typeof_impl`` registration, and a struct-model value is passed as its members, each
read from the attribute :func:`make_attribute_wrapper` names (else the member's own
name).  See docs/extending.md.
"""

from cudalite.nvvm.extending import *  # noqa: F401,F403
from cudalite.nvvm import extending as _public
from cudalite.nvvm.extending import Intrinsic as _Intrinsic  # noqa: F401  (numba-cuda's private name, used by its tests)

__all__ = list(_public.__all__)  # the same public names
