"""Signed integer arithmetic wraps on the GPU, bit for bit as numba-cuda (two's
complement; docs/language.md, "Integer arithmetic"): hash kernels (FNV-1a,
MurmurHash3's 64-bit finalizer), int64 overflow, int32 results stored with
truncation, and overflow checks written as ``x + 1 < x``, compared with Python
integers reduced modulo 2**64 and with NumPy's wrapping array arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import nvvm as cuda
from cudalite import types

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(20240611)
FNV_OFFSET = -3750763034362895579  # 0xcbf29ce484222325 as a signed int64
FNV_PRIME = 1099511628211
M1 = -49064778989728563  # 0xff51afd7ed558ccd
M2 = -4265267296055464877  # 0xc4ceb9fe1a85ec53
I64_MAX = np.iinfo(np.int64).max
I64_MIN = np.iinfo(np.int64).min


def _wrap64(x: int) -> int:
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >> 63 else x


def _wrap32(x: int) -> int:
    x &= (1 << 32) - 1
    return x - (1 << 32) if x >> 31 else x


def fnv1a(data, out):
    i = cuda.grid(1)
    if i < out.size:
        h = FNV_OFFSET
        for k in range(data.shape[1]):
            h = (h ^ data[i, k]) * FNV_PRIME
        out[i] = h


def test_fnv1a_int64_wraps(gpu):
    data = RNG.integers(0, 256, (200, 24)).astype(np.int64)
    out = np.zeros(200, np.int64)
    gpu.run(fnv1a, [data, out], grid=2, block=128)
    want = []
    for row in data.tolist():
        h = FNV_OFFSET
        for b in row:
            h = _wrap64((h ^ b) * FNV_PRIME)
        want.append(h)
    assert out.tolist() == want


def fmix64(keys, out):
    i = cuda.grid(1)
    if i < keys.size:
        k = keys[i]
        k ^= k >> 33
        k *= M1
        k ^= k >> 33
        k *= M2
        k ^= k >> 33
        out[i] = k


def test_murmur_finalizer_int64_wraps(gpu):
    keys = RNG.integers(I64_MIN, I64_MAX, 256, dtype=np.int64, endpoint=True)
    keys[:4] = [0, -1, I64_MAX, I64_MIN]
    out = np.zeros_like(keys)
    gpu.run(fmix64, [keys, out], grid=2, block=128)
    want = []
    for k in keys.tolist():
        k ^= k >> 33
        k = _wrap64(k * M1)
        k ^= k >> 33
        k = _wrap64(k * M2)
        k ^= k >> 33
        want.append(k)
    assert out.tolist() == want


def overflow_ops(a, b, add, sub, mul, neg):
    i = cuda.grid(1)
    if i < a.size:
        add[i] = a[i] + b[i]
        sub[i] = a[i] - b[i]
        mul[i] = a[i] * b[i]
        neg[i] = -a[i]


def test_int64_overflow_matches_numpy_wrapping(gpu):
    a = RNG.integers(I64_MIN, I64_MAX, 256, dtype=np.int64, endpoint=True)
    b = RNG.integers(I64_MIN, I64_MAX, 256, dtype=np.int64, endpoint=True)
    a[:4] = [I64_MAX, I64_MIN, I64_MAX, I64_MIN]
    b[:4] = [1, 1, -1, -1]
    outs = [np.zeros_like(a) for _ in range(4)]
    gpu.run(overflow_ops, [a, b, *outs], grid=2, block=128)
    with np.errstate(over="ignore"):
        assert outs[0].tolist() == (a + b).tolist()
        assert outs[1].tolist() == (a - b).tolist()
        assert outs[2].tolist() == (a * b).tolist()
        assert outs[3].tolist() == (-a).tolist()


def int32_store(a, b, c, out, out_cast):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * b[i] + c[i]            # computed in int64, stored truncated
        out_cast[i] = types.int32(a[i] * b[i]) * 3  # int32(...) truncates, then int64 again


@pytest.mark.nosim("compiled typing semantics: the simulator has no type inference")
def test_int32_results_truncate_as_numba(gpu):
    i32 = np.iinfo(np.int32)
    a = RNG.integers(i32.min, i32.max, 256, dtype=np.int32, endpoint=True)
    b = RNG.integers(i32.min, i32.max, 256, dtype=np.int32, endpoint=True)
    c = RNG.integers(i32.min, i32.max, 256, dtype=np.int32, endpoint=True)
    out = np.zeros(256, np.int32)
    out_cast = np.zeros(256, np.int64)
    gpu.run(int32_store, [a, b, c, out, out_cast], grid=2, block=128)
    aa, bb, cc = (x.astype(np.int64).tolist() for x in (a, b, c))
    assert out.tolist() == [_wrap32(x * y + z) for x, y, z in zip(aa, bb, cc)]
    assert out_cast.tolist() == [_wrap32(x * y) * 3 for x, y in zip(aa, bb)]


def overflow_checks(x, res):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        res[i] = 1 if v + 1 < v else 0       # true only for INT64_MAX (wraps to INT64_MIN)
        res[i] += 2 if v * 2 < 0 and v > 0 else 0


def test_overflow_checks_are_not_folded_away(gpu):
    x = np.array([I64_MAX, I64_MAX - 1, 0, 5, 2**62, 2**62 - 1, -7, I64_MIN], np.int64)
    res = np.zeros(x.size, np.int64)
    gpu.run(overflow_checks, [x, res], grid=1, block=32)
    want = [(1 if _wrap64(v + 1) < v else 0) + (2 if _wrap64(v * 2) < 0 and v > 0 else 0) for v in x.tolist()]
    assert res.tolist() == want
    assert want[0] == 3 and want[4] == 2


def lcg(seeds, out, steps):
    i = cuda.grid(1)
    if i < seeds.size:
        s = seeds[i]
        for _ in range(steps):
            s = s * 6364136223846793005 + 1442695040888963407
        out[i] = s


def test_lcg_in_signed_int64_wraps(gpu):
    seeds = RNG.integers(I64_MIN, I64_MAX, 128, dtype=np.int64, endpoint=True)
    out = np.zeros_like(seeds)
    gpu.run(lcg, [seeds, out, np.int64(50)], grid=1, block=128)
    want = []
    for s in seeds.tolist():
        for _ in range(50):
            s = _wrap64(s * 6364136223846793005 + 1442695040888963407)
        want.append(s)
    assert out.tolist() == want


def grid_index_math(out):
    # proved cases keep their flags: the index math still computes the right values
    x, y = cuda.grid(2)
    n = out.shape[1]
    if y > 0 and x > 0 and y < out.shape[0] - 1 and x < n - 1:
        out[y, x] = (y - 1) * n + (x + 1) + cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x


def test_proved_index_math_values(gpu):
    out = np.zeros((40, 70), np.int64)
    gpu.run(grid_index_math, [out], grid=(5, 3), block=(16, 16))
    want = np.zeros_like(out)
    for y in range(1, 39):
        for x in range(1, 69):
            want[y, x] = (y - 1) * 70 + (x + 1) + x
    assert out.tolist() == want.tolist()


def uint64_compares(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        a, b = x[i], y[i]
        out[i, 0] = a > 0
        out[i, 1] = a > -1
        out[i, 2] = a > b
        out[i, 3] = a == b
        out[i, 4] = a > True


@pytest.mark.nosim("compiled typing: the GPU compares a uint64 with a signed integer in float64 as numba-cuda "
                   "does; the simulator runs NumPy's exact comparison, as numba-cuda's simulator does")
def test_uint64_against_signed_compares_as_numba(gpu):
    """A uint64 against a signed integer compares as float64 (numba-cuda's choice), never
    as int64: ``uint64(2**63 + 5) > 0`` is True (a signed compare said False; cuda.compute's
    ``select`` with ``x > 0`` on uint64 data kept half the items)."""
    xs = [0, 1, 5, 2**63 - 1, 2**63, 2**63 + 5, 2**64 - 1, 2**63 + 1]
    ys = [0, -1, 5, -2, 0, 7, -1, 2**63 - 1]
    x = np.array(xs, dtype=np.uint64)
    y = np.array(ys, dtype=np.int64)
    out = np.zeros((len(xs), 5), np.bool_)
    gpu.run(uint64_compares, [x, y, out], grid=1, block=32)
    want = [[a > 0, float(a) > -1.0, float(a) > float(b), float(a) == float(b), a > 1] for a, b in zip(xs, ys)]
    assert out.tolist() == want
    # the last row is where float64 and exact comparisons part: numba says 2**63+1 > 2**63-1 is False
    assert out[-1, 2] == False  # noqa: E712 - a NumPy bool
