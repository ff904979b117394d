"""fp8 conversions (``cudalite.nvvm.lower._fp8conv``), executed on the host.

The software paths are integer IR (what every GPU before sm_89 runs, and every
non-saturating conversion): llvmlite's host JIT runs them over 2**25 float32 values
spread across the whole range plus every rounding boundary of each format, and each
result is compared bit for bit with an independent reference -- ml_dtypes' round to
nearest even inside the range, CUDA's saturation rules outside it.  e8m0 is checked
against exact arithmetic, and the host encoder (scalar arguments, constants) against
the same reference.
"""

import ctypes
import math

import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")
from llvmlite import binding as llvm  # noqa: E402
from llvmlite import ir  # noqa: E402

from cudalite.core.types import fp8_decode, fp8_encode, int64, uint64  # noqa: E402
from fp8_reference import DTYPES, exact_e8m0, float32_sweep, reference_encode  # noqa: E402
from cudalite.nvvm.lower._fp8conv import decode_f32, encode_e8m0_f32, encode_e8m0_int, encode_f32  # noqa: E402

I8, I32, I64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)


def _loop(mod, name, in_ty, out_ty, body):
    """``void name(in_ty* src, out_ty* dst, i64 n)``: ``dst[i] = body(b, src[i])``."""
    fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), [in_ty.as_pointer(), out_ty.as_pointer(), I64]), name)
    entry, head, loop, done = (fn.append_basic_block(n) for n in ("entry", "head", "loop", "done"))
    b = ir.IRBuilder(entry)
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64)
    i.add_incoming(ir.Constant(I64, 0), entry)
    b.cbranch(b.icmp_signed("<", i, fn.args[2]), loop, done)
    b.position_at_end(loop)
    v = b.load(b.gep(fn.args[0], [i]))
    b.store(body(b, v), b.gep(fn.args[1], [i]))
    nxt = b.add(i, ir.Constant(I64, 1))
    i.add_incoming(nxt, loop)
    b.branch(head)
    b.position_at_end(done)
    b.ret_void()


@pytest.fixture(scope="module")
def jit():
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    mod = ir.Module("fp8")  # no target cc recorded: the software (integer) paths
    for fmt in ("e4m3", "e5m2"):
        for sat in (True, False):
            _loop(mod, f"enc_{fmt}_{int(sat)}", I32, I8,
                  lambda b, v, fmt=fmt, sat=sat: encode_f32(b, b.bitcast(v, ir.FloatType()), fmt, sat))
    _loop(mod, "dec_e4m3", I8, I32, lambda b, v: b.bitcast(decode_f32(b, v, "e4m3"), I32))
    _loop(mod, "dec_e8m0", I8, I32, lambda b, v: b.bitcast(decode_f32(b, v, "e8m0"), I32))
    for sat in (True, False):
        for up in (True, False):
            _loop(mod, f"e8m0_{int(sat)}{int(up)}", I32, I8,
                  lambda b, v, sat=sat, up=up: encode_e8m0_f32(b, b.bitcast(v, ir.FloatType()), sat, up))
    _loop(mod, "e8m0_i64", I64, I8, lambda b, v: encode_e8m0_int(b, v, int64))
    _loop(mod, "e8m0_u64", I64, I8, lambda b, v: encode_e8m0_int(b, v, uint64))
    target = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(str(mod)), target)
    engine.finalize_object()
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)

    def runner(name, out_dtype, address=engine.get_function_address):
        fn = proto(address(name))

        def run(src):
            src = np.ascontiguousarray(src)
            out = np.empty(src.shape, out_dtype)
            fn(src.ctypes.data, out.ctypes.data, src.size)
            return out

        return run

    names = [f"enc_{f}_{s}" for f in ("e4m3", "e5m2") for s in (0, 1)]
    names += [f"e8m0_{s}{u}" for s in (0, 1) for u in (0, 1)]
    fns = {n: runner(n, np.uint8) for n in names + ["e8m0_i64", "e8m0_u64"]}
    fns.update({n: runner(n, np.uint32) for n in ("dec_e4m3", "dec_e8m0")})
    yield fns
    del engine


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
@pytest.mark.parametrize("sat", [True, False])
def test_float32_to_fp8_matches_reference(jit, fmt, sat):
    x = float32_sweep()
    got = jit[f"enc_{fmt}_{int(sat)}"](x.view(np.uint32))
    want = reference_encode(x, fmt, sat)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, [(float(x[i]), hex(got[i]), hex(want[i])) for i in bad[:5]]


def test_e4m3_decode_is_exact(jit):
    codes = np.arange(256, dtype=np.uint8)
    got = jit["dec_e4m3"](codes).view(np.float32)
    want = codes.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    np.testing.assert_array_equal(got, want)  # NaN where NaN (0x7f, 0xff), -0.0 for 0x80
    assert np.array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)]))


def test_e8m0_decode(jit):
    codes = np.arange(256, dtype=np.uint8)
    got = jit["dec_e8m0"](codes).view(np.float32)
    assert math.isnan(got[255])
    assert got[0] == np.float32(2.0 ** -127)  # a float32 subnormal, not flushed
    np.testing.assert_array_equal(got[:255], [2.0 ** (c - 127) for c in range(255)])


@pytest.mark.parametrize("sat", [True, False])
@pytest.mark.parametrize("up", [True, False])
def test_float32_to_e8m0(jit, sat, up):
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32),
                        np.float32([2.0 ** -127, np.nextafter(np.float32(2.0 ** -127), np.float32(1)), 2.0 ** 127,
                                    np.nextafter(np.float32(2.0 ** 127), np.float32(np.inf)), 3.0, 4.0, 0.75,
                                    np.inf, -np.inf, np.nan, 0.0, -0.0, -6.0, 3.4e38])])
    got = jit[f"e8m0_{int(sat)}{int(up)}"](x.view(np.uint32))
    want = np.array([exact_e8m0(v, sat, up) for v in x], np.uint8)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, [(float(x[i]), int(got[i]), int(want[i])) for i in bad[:5]]


def test_integers_to_e8m0_round_up_to_a_power_of_two(jit):
    """127 + ceil(log2 |n|): the smallest power of two at or above the magnitude; 0 -> code 0."""
    v = [0, 1, 2, 3, 4, 5, 1023, 1024, 1025, -1, -3, -4, 2**62 + 1, 2**63 - 1, -(2**63)]
    want = [0 if n == 0 else 127 + (abs(n) - 1).bit_length() for n in v]
    assert jit["e8m0_i64"](np.array(v, np.int64)).tolist() == want
    assert want[:9] == [0, 127, 128, 129, 129, 130, 137, 137, 138]
    u = np.array([2**64 - 1, 2**63, 2**63 + 1], np.uint64)
    assert jit["e8m0_u64"](u).tolist() == [127 + 64, 127 + 63, 127 + 64]


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_host_encoder_matches_reference(fmt):
    x = float32_sweep()[::97]
    for sat in (True, False):
        want = reference_encode(x, fmt, sat)
        got = np.array([fp8_encode(float(v), fmt, sat) for v in x], np.uint8)
        nan = np.isnan(x)  # the host follows CUDA's float64 path: a NaN keeps its sign
        assert np.array_equal(got[~nan], want[~nan])
        assert all(math.isnan(fp8_decode(c, fmt)) for c in got[nan])


def test_host_e8m0_and_decoder():
    for c in range(256):
        for fmt, dt in DTYPES.items():
            want = float(np.uint8(c).view(dt))
            got = fp8_decode(c, fmt)
            assert (math.isnan(got) and math.isnan(want)) or got == want, (fmt, c, got, want)
    rng = np.random.default_rng(5)
    with np.errstate(over="ignore"):
        xs = (rng.standard_normal(3000) * 10.0 ** rng.integers(-40, 39, 3000)).astype(np.float32)
    for v in np.concatenate([xs, np.float32([0.0, np.inf, 2.0 ** 127, 2.0 ** -127])]):
        for sat in (True, False):
            for up in (True, False):
                assert fp8_encode(float(v), "e8m0", sat, up) == exact_e8m0(v, sat, up), (v, sat, up)
