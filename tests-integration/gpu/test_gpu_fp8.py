"""fp8 on the device (``cuda.fp8``; CUDA's cuda_fp8.h semantics): the constructors and
``cvt_*`` functions over 2**25 float32 values and every rounding boundary, float64
sources, e8m0 scales, all 256 codes of each format back to floats and integers, fp8
arrays (ml_dtypes) and scalar arguments; compared bit for bit with the independent
reference in ``fp8_reference`` and with numba-cuda's own expectations."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("fp8 (cuda.fp8) is not simulated")]
ml_dtypes = pytest.importorskip("ml_dtypes")

from fp8_reference import (  # noqa: E402
    DTYPES, exact_e8m0, float32_sweep, reference_encode, reference_encode64, reference_to_int,
)

E4M3, E5M2, E8M0 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.float8_e8m0fnu


def _launch(kernel, n, *args):
    kernel[(n + 255) // 256, 256](*args)


def test_float32_to_fp8_constructor_and_cvt_match_reference(gpu):
    """The constructors (saturating: PTX cvt.rn.satfinite on sm_89+) and cvt_float_to_fp8
    in both saturation modes (NOSAT: the integer path) over the whole float32 range."""
    from cudalite import cuda
    from cudalite.cuda.fp8 import cvt_float_to_fp8, fp8_e4m3, fp8_e5m2, fp8_interpretation_t as I, saturation_t as S

    @cuda.jit
    def k(x, c4, c5, n4, n5, s4, s5):
        i = cuda.grid(1)
        if i < x.size:
            c4[i] = fp8_e4m3(x[i])
            c5[i] = fp8_e5m2(x[i])
            n4[i] = cvt_float_to_fp8(x[i], S.NOSAT, I.E4M3)
            n5[i] = cvt_float_to_fp8(x[i], S.NOSAT, I.E5M2)
            s4[i] = cvt_float_to_fp8(x[i], S.SATFINITE, I.E4M3)
            s5[i] = cvt_float_to_fp8(x[i], S.SATFINITE, I.E5M2)

    x = float32_sweep()
    dx = cuda.to_device(x)
    outs = [cuda.device_array(x.size, dt) for dt in (E4M3, E5M2, np.uint8, np.uint8, np.uint8, np.uint8)]
    _launch(k, x.size, dx, *outs)
    got = [o.copy_to_host().view(np.uint8) for o in outs]
    for arr, fmt, sat in zip(got, ("e4m3", "e5m2") * 3, (True, True, False, False, True, True)):
        want = reference_encode(x, fmt, sat)
        bad = np.nonzero(arr != want)[0]
        assert bad.size == 0, (fmt, sat, [(float(x[i]), hex(arr[i]), hex(want[i])) for i in bad[:5]])


def test_float64_half_and_bfloat16_sources(gpu):
    """A float64 is rounded once (no float32 double rounding), NaN keeps its sign; float16
    and bfloat16 sources convert exactly through float32."""
    from cudalite import cuda
    from cudalite.cuda.fp8 import cvt_double_to_fp8, fp8_e4m3, fp8_e5m2, fp8_interpretation_t as I, saturation_t as S
    from cudalite.types import bfloat16, float16

    @cuda.jit
    def k(d, c4, c5, n4, n5, h4, b5):
        i = cuda.grid(1)
        if i < d.size:
            c4[i] = fp8_e4m3(d[i])
            c5[i] = fp8_e5m2(d[i])
            n4[i] = cvt_double_to_fp8(d[i], S.NOSAT, I.E4M3)
            n5[i] = cvt_double_to_fp8(d[i], S.NOSAT, I.E5M2)
            h4[i] = fp8_e4m3(float16(d[i]))
            b5[i] = fp8_e5m2(bfloat16(d[i]))

    rng = np.random.default_rng(11)
    vals = {fmt: np.unique(np.arange(256, dtype=np.uint8).view(dt).astype(np.float64)) for fmt, dt in DTYPES.items()}
    mids = np.concatenate([(v[1:] + v[:-1])[np.isfinite(v[1:] + v[:-1])] / 2 for v in (vals["e4m3"], vals["e5m2"])])
    tiny = np.concatenate([mids * (1 + 2.0 ** -40), mids * (1 - 2.0 ** -40)])  # float32 would round them onto the tie
    d = np.concatenate([rng.standard_normal(200_000) * 10.0 ** rng.integers(-12, 8, 200_000), mids, tiny,
                        [1e300, -1e300, 5e-324, np.inf, -np.inf, np.nan, -np.nan, 0.0, -0.0, 464.0, 61440.0]])
    outs = [cuda.device_array(d.size, dt) for dt in (E4M3, E5M2, np.uint8, np.uint8, E4M3, E5M2)]
    _launch(k, d.size, cuda.to_device(d), *outs)
    got = [o.copy_to_host().view(np.uint8) for o in outs]
    for arr, fmt, sat in zip(got[:4], ("e4m3", "e5m2") * 2, (True, True, False, False)):
        want = reference_encode64(d, fmt, sat)
        bad = np.nonzero(arr != want)[0]
        assert bad.size == 0, (fmt, sat, [(float(d[i]), hex(arr[i]), hex(want[i])) for i in bad[:5]])
    with np.errstate(over="ignore"):
        h = d.astype(np.float16).astype(np.float32)
        bf = d.astype(ml_dtypes.bfloat16).astype(np.float32)
    np.testing.assert_array_equal(got[4], reference_encode(h, "e4m3", True))
    np.testing.assert_array_equal(got[5], reference_encode(bf, "e5m2", True))


def test_e8m0_conversions(gpu):
    from cuda.bindings.runtime import cudaRoundMode as R

    from cudalite import cuda
    from cudalite.cuda.fp8 import (
        cvt_bfloat16raw_to_e8m0, cvt_double_to_e8m0, cvt_e8m0_to_bf16raw, cvt_float_to_e8m0, fp8_e8m0,
        saturation_t as S,
    )

    @cuda.jit
    def k(x, d, out, ctor, raw_bits, via_raw):
        i = cuda.grid(1)
        if i < x.size:
            out[0, i] = cvt_float_to_e8m0(x[i], S.NOSAT, R.cudaRoundZero)
            out[1, i] = cvt_float_to_e8m0(x[i], S.NOSAT, R.cudaRoundPosInf)
            out[2, i] = cvt_float_to_e8m0(x[i], S.SATFINITE, R.cudaRoundZero)
            out[3, i] = cvt_float_to_e8m0(x[i], S.SATFINITE, R.cudaRoundPosInf)
            out[4, i] = cvt_double_to_e8m0(d[i], S.NOSAT, R.cudaRoundPosInf)
            out[5, i] = cvt_double_to_e8m0(d[i], S.SATFINITE, R.cudaRoundZero)
            ctor[i] = fp8_e8m0(x[i])
            if i < 256:
                raw = cvt_e8m0_to_bf16raw(i)
                raw_bits[i] = raw.x
                via_raw[i] = cvt_bfloat16raw_to_e8m0(raw, S.NOSAT, R.cudaRoundZero)

    rng = np.random.default_rng(3)
    x = np.concatenate([rng.integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32).view(np.float32),
                        np.float32([2.0 ** -127, np.nextafter(np.float32(2.0 ** -127), np.float32(1)), 2.0 ** 127,
                                    np.nextafter(np.float32(2.0 ** 127), np.float32(np.inf)), 3.0, 4.0, 0.75,
                                    np.inf, -np.inf, np.nan, 0.0, -0.0, -6.0, 3.4e38])])
    d = x.astype(np.float64) * (1 + 2.0 ** -35)  # not a power of two even where x is: rounds up, truncates down
    out = cuda.device_array((6, x.size), np.uint8)
    ctor = cuda.device_array(x.size, E8M0)
    raw_bits = cuda.device_array(256, np.uint16)
    via_raw = cuda.device_array(256, np.uint8)
    _launch(k, x.size, cuda.to_device(x), cuda.to_device(d), out, ctor, raw_bits, via_raw)
    got = out.copy_to_host()
    cases = [(x, False, False), (x, False, True), (x, True, False), (x, True, True), (d, False, True),
             (d, True, False)]
    for row, (src, sat, up) in enumerate(cases):
        want = np.array([exact_e8m0(v, sat, up) for v in src], np.uint8)  # d < 2**128: exact as CUDA's
        bad = np.nonzero(got[row] != want)[0]
        assert bad.size == 0, (row, [(float(src[i]), int(got[row][i]), int(want[i])) for i in bad[:5]])
    np.testing.assert_array_equal(ctor.copy_to_host().view(np.uint8),
                                  [exact_e8m0(v, True, True) for v in x])  # the constructor: round up, saturate
    bits = raw_bits.copy_to_host()
    want_bits = np.arange(255, dtype=np.uint8).view(E8M0).astype(ml_dtypes.bfloat16).view(np.uint16)
    np.testing.assert_array_equal(bits[:255], want_bits)
    assert bits[0] == 0x0040 and bits[127] == 0x3F80 and bits[255] == 0x7FFF
    np.testing.assert_array_equal(via_raw.copy_to_host(), np.arange(256))


def test_all_codes_to_floats_and_integers(gpu):
    """Every byte of each format to float16/32/64, bfloat16 (exact; e8m0 to float16 rounds),
    the eight integer types (truncated, saturated, NaN -> 0 or 1 << 63) and bool."""
    from cudalite import cuda
    from cudalite.types import (
        bfloat16, float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    )

    @cuda.jit
    def k(a, f16, f32, f64, bf, ints, truth):
        i = cuda.grid(1)
        if i < a.size:
            v = a[i]
            f16[i] = float16(v)
            f32[i] = float32(v)
            f64[i] = float64(v)
            bf[i] = bfloat16(v)
            ints[0, i] = int8(v)
            ints[1, i] = uint8(v)
            ints[2, i] = int16(v)
            ints[3, i] = uint16(v)
            ints[4, i] = int32(v)
            ints[5, i] = uint32(v)
            ints[6, i] = int64(v)
            ints[7, i] = uint64(v)
            truth[i] = 1 if v else 0

    kinds = [(8, True), (8, False), (16, True), (16, False), (32, True), (32, False), (64, True), (64, False)]
    for fmt, dt in DTYPES.items():
        a = np.arange(256, dtype=np.uint8).view(dt)
        f16, f32, f64 = (cuda.device_array(256, t) for t in (np.float16, np.float32, np.float64))
        bf = cuda.device_array(256, ml_dtypes.bfloat16)
        ints = cuda.device_array((8, 256), np.int64)
        truth = cuda.device_array(256, np.int32)
        k[1, 256](a, f16, f32, f64, bf, ints, truth)
        ref = a.astype(np.float64)
        np.testing.assert_array_equal(f64.copy_to_host(), ref)
        np.testing.assert_array_equal(f32.copy_to_host(), ref.astype(np.float32))
        np.testing.assert_array_equal(f16.copy_to_host(), ref.astype(np.float16))
        np.testing.assert_array_equal(bf.copy_to_host().astype(np.float64), ref)
        got = ints.copy_to_host()
        mask = (1 << 64) - 1  # compared as 64-bit patterns: each result was widened into an int64
        for row, (bits, signed) in enumerate(kinds):
            want = [w & mask for w in reference_to_int(ref.tolist(), bits, signed)]
            assert [int(g) & mask for g in got[row]] == want, (fmt, bits, signed)
        zero = (np.arange(256) & 0x7F) != 0 if fmt != "e8m0" else np.ones(256, bool)
        np.testing.assert_array_equal(truth.copy_to_host(), zero.astype(np.int32))


def test_integer_sources(gpu):
    """Integers convert through float32 to e4m3/e5m2 (saturating) and to the power of two at
    or above their magnitude for e8m0."""
    from cudalite import cuda
    from cudalite.types import fp8_e4m3, fp8_e5m2, fp8_e8m0, int8, int16

    @cuda.jit
    def k(v, u, a, b, c, d, e):
        i = cuda.grid(1)
        if i < v.size:
            a[i] = fp8_e4m3(v[i])
            b[i] = fp8_e5m2(int16(v[i] % 30000))
            c[i] = fp8_e8m0(v[i])
            d[i] = fp8_e8m0(u[i])
            e[i] = fp8_e4m3(int8(v[i] % 100))

    rng = np.random.default_rng(2)
    v = np.concatenate([rng.integers(-(2**63), 2**63 - 1, 5000, dtype=np.int64), np.arange(-600, 600),
                        [0, 1, -1, 2**62 + 1, 2**63 - 1, -(2**63)]]).astype(np.int64)
    u = v.view(np.uint64)
    outs = [cuda.device_array(v.size, t) for t in (E4M3, E5M2, E8M0, E8M0, E4M3)]
    _launch(k, v.size, cuda.to_device(v), cuda.to_device(u), *outs)
    a, b, c, d, e = (o.copy_to_host().view(np.uint8) for o in outs)
    np.testing.assert_array_equal(a, reference_encode(v.astype(np.float32), "e4m3", True))
    b16 = np.array([int(x) % 30000 for x in v.tolist()], np.float32)  # Python's %, as numba
    np.testing.assert_array_equal(b, reference_encode(b16, "e5m2", True))
    np.testing.assert_array_equal(c, [0 if n == 0 else 127 + (abs(n) - 1).bit_length() for n in v.tolist()])
    np.testing.assert_array_equal(d, [127 + (n - 1).bit_length() if n else 0 for n in u.tolist()])
    np.testing.assert_array_equal(e, reference_encode(np.float32([int(x) % 100 for x in v.tolist()]), "e4m3", True))


def test_arrays_scalar_arguments_and_fp8_to_fp8(gpu):
    """ml_dtypes fp8 arrays in and out, an fp8 scalar argument (an ml_dtypes scalar, made
    by ml_dtypes or by the host constructor ``types.fp8_e4m3(x)``), and fp8 to another fp8
    format (exact through float32, then rounded once)."""
    from cudalite import cuda
    from cudalite.types import float32, fp8_e4m3, fp8_e5m2

    @cuda.jit("void(fp8_e4m3[:], fp8_e5m2[:], float32[:], fp8_e4m3)")
    def k(a, b, out, s):
        i = cuda.grid(1)
        if i < a.size:
            b[i] = fp8_e5m2(a[i])
            out[i] = float32(a[i]) * float32(s)

    a = np.arange(256, dtype=np.uint8).view(E4M3)
    b = np.zeros(256, E5M2)
    out = np.zeros(256, np.float32)
    k[1, 256](a, b, out, fp8_e4m3(1000.0))  # the host constructor saturates to 448, as the device one
    ref = a.astype(np.float32)
    np.testing.assert_array_equal(b.view(np.uint8), reference_encode(ref, "e5m2", True))
    np.testing.assert_array_equal(out, ref * np.float32(448.0))
    k[1, 256](a, b, out, E4M3(-2.5))
    np.testing.assert_array_equal(out, ref * np.float32(-2.5))

    @cuda.jit
    def lazy(a, s, out):
        out[0] = float32(a[3]) + float32(s)

    o = np.zeros(1, np.float32)
    lazy[1, 1](a, E5M2(1.5), o)
    assert o[0] == float(a[3]) + 1.5


def test_device_functions_shared_and_local_arrays(gpu):
    """fp8 values through a device function (argument and result), a shared and a local
    array and a tuple."""
    from cudalite import cuda
    from cudalite.types import float32, fp8_e4m3, fp8_e8m0

    @cuda.jit(device=True)
    def scale_of(v):
        return fp8_e8m0(float32(v) * 3)  # rounded up to a power of two

    @cuda.jit
    def k(a, out, scales):
        i = cuda.threadIdx.x
        sh = cuda.shared.array(64, fp8_e4m3)
        loc = cuda.local.array(2, fp8_e4m3)
        loc[0] = a[i]
        sh[63 - i] = loc[0]
        cuda.syncthreads()
        t = (sh[i], fp8_e4m3(0.5))
        out[i] = float32(t[0]) + float32(t[1])
        scales[i] = scale_of(t[0])

    a = np.linspace(-40, 40, 64).astype(np.float32).astype(E4M3)
    out = np.zeros(64, np.float32)
    scales = np.zeros(64, E8M0)
    k[1, 64](a, out, scales)
    rev = a[::-1].astype(np.float32)
    np.testing.assert_array_equal(out, rev + np.float32(0.5))
    np.testing.assert_array_equal(scales.view(np.uint8), [exact_e8m0(np.float32(v) * 3, True, True) for v in rev])


def test_numba_cuda_expectations(gpu):
    """numba-cuda's test_fp8_bindings cases: constructors from every numeric type, NaN, the
    cvt overflow codes, e8m0 <-> bfloat16_raw."""
    from cuda.bindings.runtime import cudaRoundMode

    from cudalite import cuda
    from cudalite.cuda._internal.cuda_fp8 import (
        cvt_bfloat16raw_to_fp8, cvt_e8m0_to_bf16raw, cvt_float_to_e8m0, cvt_float_to_fp8, fp8_e4m3, fp8_e5m2,
        fp8_e8m0, fp8_interpretation_t, saturation_t,
    )
    from cudalite.types import bfloat16, float16, float32, float64, int8, int16, int32, int64, uint8, uint64

    @cuda.jit
    def ctor(result):
        result[0] = float32(fp8_e5m2(float16(1.0)))
        result[1] = float32(fp8_e4m3(bfloat16(1.0)))
        result[2] = float32(fp8_e8m0(float64(2.0)))
        result[3] = float32(fp8_e4m3(int8(2)))
        result[4] = float32(fp8_e5m2(uint64(2)))
        result[5] = float32(fp8_e8m0(int16(4)))
        result[6] = float32(fp8_e4m3(float32(float("nan"))))
        result[7] = float32(fp8_e8m0(float32(float("nan"))))
        result[8] = float32(fp8_e4m3(float32(0.0)))
        result[9] = int64(fp8_e8m0(float32(0.0)))
        result[10] = int64(int32(fp8_e4m3(float32(-6.0))))
        result[11] = uint8(fp8_e5m2(float32(10.0)))

    r = np.zeros(12, np.float32)
    ctor[1, 1](r)
    assert r[:6].tolist() == [1.0, 1.0, 2.0, 2.0, 2.0, 4.0]
    assert math.isnan(r[6]) and math.isnan(r[7])
    assert r[8:].tolist() == [0.0, 0.0, -6.0, 10.0]

    @cuda.jit
    def cvt(result, x, e):
        result[0] = cvt_float_to_fp8(x[0], saturation_t.NOSAT, fp8_interpretation_t.E5M2)
        result[1] = cvt_float_to_fp8(x[0], saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        result[2] = cvt_float_to_fp8(x[0], saturation_t.NOSAT, fp8_interpretation_t.E4M3)
        result[3] = cvt_float_to_fp8(x[0], saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        raw = cvt_e8m0_to_bf16raw(e[0])
        result[4] = cvt_bfloat16raw_to_fp8(raw, saturation_t.NOSAT, fp8_interpretation_t.E5M2)
        result[5] = cvt_bfloat16raw_to_fp8(raw, saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        result[6] = cvt_float_to_e8m0(x[1], saturation_t.NOSAT, cudaRoundMode.cudaRoundPosInf)
        result[7] = cvt_float_to_e8m0(x[1], saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)

    out = np.zeros(8, np.uint8)
    cvt[1, 1](out, np.float32([1e20, np.nextafter(np.float32(2.0 ** 127), np.float32(np.inf))]), np.uint8([254]))
    assert out.tolist() == [0x7C, 0x7B, 0x7F, 0x7E, 0x7C, 0x7E, 0xFF, 0xFE]
