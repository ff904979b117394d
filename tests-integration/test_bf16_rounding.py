"""bfloat16 rounding (``cudalite.nvvm.lower._bf16conv``), executed on the host: the
float32 -> bfloat16 conversion is integer IR, so llvmlite's host JIT runs it and
every mode is checked against ml_dtypes (round to nearest even) and exact arithmetic."""

import ctypes
import math

import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")
from llvmlite import binding as llvm  # noqa: E402
from llvmlite import ir  # noqa: E402

from cudalite.nvvm.lower._bf16conv import bf16_to_f32, f32_to_bf16  # noqa: E402

MODES = ("rn", "rz", "rd", "ru")


@pytest.fixture(scope="module")
def jit():
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    mod = ir.Module("bf16")
    for mode in MODES:
        fn = ir.Function(mod, ir.FunctionType(ir.IntType(16), [ir.FloatType()]), f"to_{mode}")
        b = ir.IRBuilder(fn.append_basic_block())
        b.ret(f32_to_bf16(b, fn.args[0], mode))
    fn = ir.Function(mod, ir.FunctionType(ir.FloatType(), [ir.IntType(16)]), "to_f32")
    b = ir.IRBuilder(fn.append_basic_block())
    b.ret(bf16_to_f32(b, fn.args[0]))
    target = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(str(mod)), target)
    engine.finalize_object()
    fns = {m: ctypes.CFUNCTYPE(ctypes.c_uint16, ctypes.c_float)(engine.get_function_address(f"to_{m}"))
           for m in MODES}
    fns["f32"] = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_uint16)(engine.get_function_address("to_f32"))
    yield fns
    del engine


def _values():
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**32, 4000, dtype=np.uint64).astype(np.uint32)
    special = np.array([0.0, -0.0, 1.0, 1.5, 1.7, -1.7, 3.14, 789.0, 3.3961e38, 3.4e38, -3.4e38,
                        np.inf, -np.inf, 1e-40, -1e-40, 2.0**-133, 1.00390625, 1.01171875], np.float32)
    return np.concatenate([bits.view(np.float32), special])


def _bf16_value(bits):
    return float(np.uint16(bits).view(ml_dtypes.bfloat16))


def test_round_to_nearest_matches_ml_dtypes(jit):
    for x in _values():
        got = jit["rn"](float(x))
        if math.isnan(x):
            assert got == 0x7FFF
            continue
        want = int(np.float32(x).astype(ml_dtypes.bfloat16).view(np.uint16))
        assert got == want, (x, hex(got), hex(want))


def test_directed_modes_bracket_the_value(jit):
    for x in _values():
        if math.isnan(x):
            assert all(jit[m](float(x)) == 0x7FFF for m in ("rz", "rd", "ru"))
            continue
        x = float(x)
        rz, rd, ru = (_bf16_value(jit[m](x)) for m in ("rz", "rd", "ru"))
        assert rd <= x <= ru, (x, rd, ru)
        assert abs(rz) <= abs(x)
        assert rz == (rd if x >= 0 else ru)
        if rd == x:
            assert ru == x


def test_bf16_to_f32_is_exact(jit):
    for bits in range(0, 0x10000, 7):
        want = _bf16_value(bits)
        got = jit["f32"](bits)
        assert (math.isnan(got) and math.isnan(want)) or got == want


def test_host_bits_match_ml_dtypes():
    """Host-side rounding (constants, scalar arguments) agrees with ml_dtypes on
    float32 values, and rounds float64 values once (ml_dtypes goes through float32)."""
    from cudalite.core.types import bfloat16_bits

    rng = np.random.default_rng(3)
    vals = list(_values()) + list((rng.standard_normal(2000) * 10.0 ** rng.integers(-45, 39, 2000))
                                  .astype(np.float32))
    for x in vals:
        got = bfloat16_bits(x)
        if math.isnan(x):
            assert got == 0x7FFF
            continue
        want = int(np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).view(np.uint16))
        assert got == want, (x, hex(got), hex(want))
    assert bfloat16_bits(ml_dtypes.bfloat16(1.5)) == 0x3FC0
    assert bfloat16_bits(1.00390625) == 0x3F80  # a tie: to even
    assert bfloat16_bits(1.00390625 + 2.0**-40) == 0x3F81  # just above: up (float32 would make it a tie)
    assert bfloat16_bits(-1e300) == 0xFF80 and bfloat16_bits(1e-300) == 0 and bfloat16_bits(-0.0) == 0x8000
    assert bfloat16_bits(2.0**-133) == 1 and bfloat16_bits(2.0**-134) == 0  # smallest subnormal; tie to 0
