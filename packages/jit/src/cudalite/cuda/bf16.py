"""``cuda.bf16`` (numba.cuda.bf16): the bfloat16 type and cuda_bf16.h's functions on it.

``bfloat16`` is :data:`cudalite.types.bfloat16` (``bfloat16(x)`` converts in device
code); the functions carry cuda_bf16.h's names without ``__`` (``hadd``,
``float2bfloat16_rz``, ``bfloat162int_rd``...) and numba's NumPy-style aliases
(``float32_to_bfloat16_rz``, ``bfloat16_to_int32_rd``...).  ``math.sin`` ... on a
bfloat16 call the ``h`` functions.  Device code only.
"""

from cudalite.core import device_api as _api
from cudalite.types import bfloat16

_NUMPY_INT_NAMES = {"char": "int8", "uchar": "uint8", "short": "int16", "ushort": "uint16", "int": "int32",
                    "uint": "uint32", "ll": "int64", "ull": "uint64"}


def _numpy_name(op):
    """numba's NumPy-style alias of a cuda_bf16.h name, or None."""
    names = {"float": "float32", "double": "float64", **_NUMPY_INT_NAMES}
    if op in ("bfloat16_as_short", "bfloat16_as_ushort"):
        return "bfloat16_as_" + names[op.rsplit("_", 1)[1]]
    if op in ("short_as_bfloat16", "ushort_as_bfloat16"):
        return names[op.split("_")[0]] + "_as_bfloat16"
    src, sep, rest = op.partition("2")
    if not sep or (src not in names and src != "bfloat16"):
        return None
    dst, _, mode = rest.partition("_")
    if dst not in names and dst != "bfloat16":
        return None
    out = f"{names.get(src, src)}_to_{names.get(dst, dst)}"
    return f"{out}_{mode}" if mode else out


globals().update({_op: getattr(_api.bf16, _op) for _op in _api.BF16_OPS})
globals().update({_numpy_name(_op): getattr(_api.bf16, _op) for _op in _api.BF16_OPS if _numpy_name(_op)})

__all__ = ["bfloat16", *_api.BF16_OPS, *(n for n in map(_numpy_name, _api.BF16_OPS) if n)]
