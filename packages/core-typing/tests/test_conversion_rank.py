"""numba's conversion kinds and the choice among a device function's eager
signatures (the best conversion, not the first that converts)."""

import pytest

from cudalite import types as t
from cudalite.core.typing._eager_calls import eager_signature
from cudalite.core.typing.rules.conversion_rank import EXACT, PROMOTE, SAFE, UNSAFE, conversion_rank


@pytest.mark.parametrize("src, dst, rank", [
    (t.int32, t.int32, EXACT), (t.int32, t.int64, PROMOTE), (t.uint8, t.uint16, PROMOTE),
    (t.float32, t.float64, PROMOTE), (t.complex64, t.complex128, PROMOTE),
    (t.boolean, t.int32, SAFE), (t.uint8, t.int16, SAFE), (t.int16, t.float32, SAFE), (t.int64, t.float64, SAFE),
    (t.float32, t.complex64, SAFE), (t.float64, t.complex128, SAFE),
    (t.int64, t.int32, UNSAFE), (t.int32, t.uint32, UNSAFE), (t.uint32, t.int32, UNSAFE),
    (t.int32, t.float32, UNSAFE), (t.float64, t.float32, UNSAFE), (t.float64, t.int64, UNSAFE),
    (t.float64, t.complex64, UNSAFE), (t.complex64, t.float32, None),
])
def test_conversion_rank(src, dst, rank):
    assert conversion_rank(src, dst) == rank


class _FT:
    def __init__(self, *sigs):
        self.sigs, self.obj = [(tuple(p), t.float64) for p in sigs], None


@pytest.mark.parametrize("sigs, args, chosen", [
    # numba-cuda's test_explicit_signatures_device_same_type_class: int64 -> float32 is unsafe
    (((t.float32, t.float32), (t.float64, t.float64)), (t.int64, t.float64), (t.float64, t.float64)),
    (((t.float32, t.float32), (t.float64, t.float64)), (t.float32, t.float32), (t.float32, t.float32)),
    # ... _device_unsafe: int32 -> float64 is safe, 2.5 -> int64 is not
    (((t.int64, t.int64), (t.float64, t.float64)), (t.int32, t.float64), (t.float64, t.float64)),
    (((t.int64, t.int64),), (t.float64, t.float64), (t.int64, t.int64)),  # unsafe, but the only one
    # ... _device_ambiguous: a tie goes to the first declared
    (((t.float32, t.float64), (t.float64, t.float32), (t.int64, t.int64)), (t.float64, t.float64),
     (t.float32, t.float64)),
])
def test_eager_signature_picks_the_best_conversion(sigs, args, chosen):
    assert eager_signature(_FT(*sigs), args, None)[0] == chosen
