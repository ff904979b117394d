"""fp8 (``cuda.fp8``, ``types.fp8_e4m3``...) compiles GPU-less: the PTX each target gets,
the located errors for what CUDA's fp8 types do not allow, and the host side (dtypes,
signatures, host constructors, numba-cuda's import path)."""

import inspect

import numpy as np
import pytest

from cudalite import cuda, types
from cudalite.core.errors import TypingError
from cudalite.cuda import fp8 as F
from cudalite.nvvm.api import compile_ptx

S, I = F.saturation_t, F.fp8_interpretation_t


def _convert(out, x, d, b):
    out[3] = types.float32(F.fp8_e5m2("inf"))  # a string float() parses, as float32("inf")
    out[0] = types.float32(F.fp8_e4m3(x[0]))
    out[1] = types.float32(F.fp8_e5m2(d[0]))
    out[2] = types.float32(F.fp8_e8m0(x[1]))
    b[0] = F.cvt_float_to_fp8(x[2], S.NOSAT, I.E4M3)


@pytest.mark.parametrize("cc", [(8, 0), (8, 9), (9, 0)])
def test_hardware_conversion_only_where_the_target_has_it(cc):
    ptx, _ = compile_ptx(_convert, "void(float32[::1], float32[::1], float64[::1], uint8[::1])", cc=cc)
    if cc >= (8, 9):
        assert "cvt.rn.satfinite.e4m3x2.f32" in ptx  # the saturating constructor: one instruction
        assert "cvt.rn.f16x2.e4m3x2" in ptx  # e4m3 -> float16x2 -> float32
    else:
        assert "e4m3" not in ptx and "e5m2" not in ptx  # integer arithmetic, valid PTX for sm_80
    assert "cvt.rz.f32.f64" in ptx  # float64 -> float32 rounded to odd (then one rounding to fp8)


def test_non_saturating_conversion_is_never_the_satfinite_instruction():
    def k(b, x):
        b[0] = F.cvt_float_to_fp8(x[0], S.NOSAT, I.E5M2)

    ptx, _ = compile_ptx(k, "void(uint8[::1], float32[::1])", cc=(9, 0))
    assert "cvt.rn.satfinite" not in ptx


def test_every_cvt_function_compiles():
    def k(r8, r16, x, d, e):
        r8[0] = F.cvt_float_to_fp8(x[0], S.NOSAT, I.E5M2)
        r8[1] = F.cvt_double_to_fp8(d[0], S.SATFINITE, I.E4M3)
        r8[2] = F.cvt_float_to_e8m0(x[0], S.NOSAT, 2)
        r8[3] = F.cvt_double_to_e8m0(d[0], S.SATFINITE, 1)
        raw = F.cvt_e8m0_to_bf16raw(e[0])
        r16[0] = raw.x
        r8[4] = F.cvt_bfloat16raw_to_fp8(raw, S.NOSAT, I.E4M3)
        r8[5] = F.cvt_bfloat16raw_to_e8m0(raw, S.NOSAT, 1)
        r16[1] = F.cvt_float2_to_fp8x2(cuda.float32x2(x[0], x[1]), S.SATFINITE, I.E4M3)
        r16[2] = F.cvt_double2_to_fp8x2(cuda.float64x2(d[0], d[1]), S.NOSAT, I.E5M2)
        r16[3] = F.cvt_float2_to_e8m0x2(cuda.float32x2(x[0], x[1]), S.SATFINITE, 2)
        r16[4] = F.cvt_double2_to_e8m0x2(cuda.float64x2(d[0], d[1]), S.SATFINITE, 2)

    ptx, _ = compile_ptx(k, "void(uint8[::1], uint16[::1], float32[::1], float64[::1], uint8[::1])", cc=(9, 0))
    assert "cvt.rn.satfinite.e4m3x2.f32" in ptx  # the float2 -> fp8x2 form: one instruction for both
    assert set(F.__all__) >= {"cvt_float2_to_e8m0x2", "fp8_e4m3", "saturation_t", "bfloat16_raw"}


def _line_of(fn, text):
    src, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(src) if text in line)


def _arith(out, a):
    out[0] = types.float32(a[0] + a[1])


def _compare(out, a):
    out[0] = a[0] < a[1]


def _store_float(a, x):
    a[0] = x[0]


def _store_fp8(x, a):
    x[0] = a[0]


def _runtime_mode(b, x, m):
    b[0] = F.cvt_float_to_fp8(x[0], m, I.E4M3)


def _bad_rounding(b, x):
    b[0] = F.cvt_float_to_e8m0(x[0], S.NOSAT, 3)


def _bad_source(b, x):
    b[0] = F.cvt_float2_to_fp8x2(x[0], S.NOSAT, I.E4M3)


@pytest.mark.parametrize("fn, sig, line_text, message", [
    (_arith, "void(float32[:], fp8_e4m3[:])", "a[0] + a[1]",
     "unsupported operand types for +: fp8_e4m3 and fp8_e4m3 (fp8_e4m3 has no arithmetic"),
    (_compare, "void(boolean[:], fp8_e5m2[:])", "a[0] < a[1]", "cannot compare fp8_e5m2 < fp8_e5m2"),
    (_store_float, "void(fp8_e4m3[:], float32[:])", "a[0] = x[0]",
     "cannot store a float32 into an array of fp8_e4m3 (fp8_e4m3 has no"),
    (_store_fp8, "void(float32[:], fp8_e8m0[:])", "x[0] = a[0]", "cannot store a fp8_e8m0 into an array of float32"),
    (_runtime_mode, "void(uint8[:], float32[:], int32)", "cvt_float_to_fp8",
     "the saturation mode must be a compile-time constant, not a runtime int32"),
    (_bad_rounding, "void(uint8[:], float32[:])", "cvt_float_to_e8m0",
     "the rounding mode must be cudaRoundMode.cudaRoundZero or cudaRoundMode.cudaRoundPosInf, not 3"),
    (_bad_source, "void(uint8[:], float32[:])", "cvt_float2_to_fp8x2", "the value must be a float32x2, not float32"),
])
def test_located_errors(fn, sig, line_text, message):
    with pytest.raises(TypingError) as info:
        compile_ptx(fn, sig, cc=(9, 0))
    assert message in str(info.value)
    assert info.value.loc.line == _line_of(fn, line_text)


def test_host_side():
    ml = pytest.importorskip("ml_dtypes")
    assert types.from_dtype(np.dtype(ml.float8_e4m3fn)) is types.fp8_e4m3
    assert types.from_dtype(ml.float8_e5m2) is types.fp8_e5m2
    assert types.from_dtype(ml.float8_e8m0fnu) is types.fp8_e8m0
    assert types.as_dtype(types.fp8_e5m2) == np.dtype(ml.float8_e5m2)
    v = types.fp8_e4m3(1000.0)  # the device constructor's rounding: saturates (ml_dtypes' own gives NaN)
    assert isinstance(v, ml.float8_e4m3fn) and float(v) == 448.0
    assert int(np.asarray(types.fp8_e8m0(3)).view(np.uint8)) == 129  # rounds up to 4
    from cudalite.core.types import parse_signature

    ret, args = parse_signature("void(fp8_e4m3[:], fp8_e8m0)")
    assert str(ret) == "void" and [str(a) for a in args] == ["array(fp8_e4m3, 1d, A)", "fp8_e8m0"]
    from cudalite.cuda import typeof

    assert str(typeof(np.zeros(3, ml.float8_e5m2))) == "array(fp8_e5m2, 1d, C)"


def test_numba_internal_import_path():
    """numba-cuda's own path, numba.cuda._internal.cuda_fp8, ports by renaming the package."""
    from cudalite.cuda._internal import cuda_fp8

    for name in ("fp8_e4m3", "fp8_e5m2", "fp8_e8m0", "cvt_float_to_fp8", "cvt_e8m0_to_bf16raw", "saturation_t",
                 "fp8_interpretation_t"):
        assert getattr(cuda_fp8, name) is getattr(F, name)
    assert (int(cuda_fp8.saturation_t.SATFINITE), int(cuda_fp8.fp8_interpretation_t.E5M2)) == (1, 1)


@cuda.jit(device=True)
def _scale_up(v):
    return F.fp8_e8m0(types.float32(v) * 2)


def _everywhere(out, a):
    v = a[0]
    print(v, F.fp8_e8m0(3.0))  # printed as their values
    loc = cuda.local.array(4, types.fp8_e4m3)
    sh = cuda.shared.array(8, types.fp8_e4m3)
    loc[0] = v
    sh[cuda.threadIdx.x] = loc[0]
    t = (v, F.fp8_e4m3(1.5))
    out[0] = types.float32(t[1]) + types.float32(_scale_up(sh[0]))


def test_fp8_values_in_local_and_shared_arrays_tuples_device_functions_and_print():
    ptx, _ = compile_ptx(_everywhere, "void(float32[:], fp8_e4m3[:])", cc=(9, 0))
    assert "vprintf" in ptx and ".shared" in ptx
