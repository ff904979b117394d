"""``cuda.fp8``: CUDA's 8-bit float types and ``cuda_fp8.h``'s conversions on fp8 bytes.

* ``fp8_e4m3``, ``fp8_e5m2``, ``fp8_e8m0`` (also :mod:`cudalite.types`'): in device code
  ``fp8_e4m3(x)`` converts a number (round to nearest even, saturating; e8m0 rounds up),
  ``float32(v)``, ``int32(v)``... convert back.  Arrays of ml_dtypes' ``float8_e4m3fn``,
  ``float8_e5m2`` and ``float8_e8m0fnu`` are arrays of them.
* ``cvt_float_to_fp8(x, saturation_t.NOSAT, fp8_interpretation_t.E4M3)`` and the rest of
  numba-cuda's ``cuda_fp8`` functions return the byte (``uint8``; ``uint16`` for ``x2``);
  the e8m0 ones take ``cudaRoundMode.cudaRoundZero`` or ``cudaRoundPosInf`` (from
  ``cuda.bindings.runtime``, or the ints 1 and 2).
* ``bfloat16_raw``: what ``cvt_e8m0_to_bf16raw`` returns; ``.x`` is its 16 bits.

The modes are compile-time constants.  Device code only (docs/language.md, "fp8").
"""

from cudalite.core import device_api as _api
from cudalite.core.types import (
    bfloat16_raw, fp8_e4m3, fp8_e5m2, fp8_e8m0, fp8_interpretation_t, saturation_t,
)

globals().update({_op: getattr(_api.fp8, _op) for _op in _api.FP8_OPS})

__all__ = ["fp8_e4m3", "fp8_e5m2", "fp8_e8m0", "bfloat16_raw", "saturation_t", "fp8_interpretation_t",
           *_api.FP8_OPS]
