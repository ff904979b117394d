"""bfloat16 (cuda.bf16) compiles GPU-less: types, conversions, every bf16 function."""

import math

import numpy as np
import pytest

from cudalite import types
from cudalite.cuda import bf16 as B
from cudalite.nvvm.api import compile_ptx


def test_type_and_dtype():
    ml = pytest.importorskip("ml_dtypes")
    assert types.bfloat16 is B.bfloat16
    assert types.from_dtype(np.dtype(ml.bfloat16)) is types.bfloat16
    assert str(types.bfloat16) == "bfloat16"


def _kernel(out, a16):
    a = B.bfloat16(1.25)
    b = B.bfloat16(-2.5)
    out[0] = types.float32(B.hadd(a, b))
    out[1] = types.float32(B.hfma_relu(a, b, b))
    out[2] = B.hisinf(a)
    out[3] = B.bfloat16_to_int16_rd(a)
    out[4] = types.float32(B.float32_to_bfloat16_ru(types.float32(1.7)))
    out[5] = types.float32(B.float64_to_bfloat16(1.7))
    out[6] = types.float32(B.hsin(a))
    a16[0] = B.int16_as_bfloat16(B.bfloat16_as_int16(a16[1]))


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_kernel_compiles(cc):
    ptx, _ = compile_ptx(_kernel, "void(float32[::1], bfloat16[::1])", cc=cc)
    assert "cvt.rz.f32.f64" in ptx  # float64 -> bfloat16 rounds to odd through float32
    assert "cvt.rmi.s32.f32" in ptx  # bfloat16_to_int16_rd
    assert ".u16" in ptx or ".b16" in ptx  # bfloat16 arrays hold 16-bit values


@pytest.mark.parametrize("op", sorted(set(B.__all__) - {"bfloat16"}))
def test_every_function_types_and_lowers(op):
    fn = getattr(B, op)
    from cudalite.core.typing.rules.bf16 import bf16_signature

    name = next(n for n in dir(B.__dict__.get("_api").bf16) if getattr(B._api.bf16, n, None) is fn)
    sig = bf16_signature(name)
    nargs = len(sig.args)
    src = "def f({0}):\n    return fn({0})\n".format(", ".join("abc"[:nargs]))
    ns = {"fn": fn}
    exec(src, ns)
    ptx, resty = compile_ptx(ns["f"], sig, device=True, cc=(8, 0))
    assert resty == sig.return_type


def test_operator_and_unify_types():
    from cudalite.core.typing.rules.arithmetic import binop_signature, compare_signature, unary_signature
    from cudalite.core.typing.rules.casts import can_convert, unify

    bf = types.bfloat16
    assert binop_signature("+", bf, bf).return_type is bf
    assert binop_signature("*", types.int64, bf).return_type is bf
    assert binop_signature("-", bf, types.float16).return_type == types.float32
    assert binop_signature("/", bf, types.float64).return_type == types.float64
    assert binop_signature("&", bf, bf) is None
    assert compare_signature("<", bf, types.float32).args == (types.float32, types.float32)
    assert compare_signature("<", bf, types.complex64) is None
    assert unary_signature("-", bf).return_type is bf
    assert unary_signature("~", bf) is None
    assert unify(bf, types.int32) is bf and unify(types.float32, bf) == types.float32
    assert can_convert(bf, types.int8) and can_convert(types.float64, bf)
    assert not can_convert(bf, types.complex64)


def _ops(a, out, flags):
    x = a[0]
    y = a[1]
    a[2] = x * y - x / y + 2
    a[3] = -x
    out[0] = math.sin(x)
    out[1] = x ** 2
    flags[0] = x < y
    flags[1] = math.isnan(x)
    flags[2] = not x
    print(x, y)


def test_operators_math_print_compile():
    ptx, _ = compile_ptx(_ops, "void(bfloat16[::1], float32[::1], b1[::1])", cc=(8, 0))
    assert "__nv_sinf" not in ptx and "sin.approx" not in ptx  # libdevice's accurate sinf, inlined
    assert "vprintf" in ptx
    assert "xor.b16" in ptx or "xor.b32" in ptx  # -x flips the sign bit


def test_constant_and_scalar_argument():
    ml = pytest.importorskip("ml_dtypes")
    from cudalite.core.abi import kernel_abi
    from cudalite.core.types import bfloat16_bits as bf16_bits

    c = ml.bfloat16(1.5)

    def k(out):
        out[0] = c + c

    ptx, _ = compile_ptx(k, "void(float32[::1])", cc=(8, 0))
    assert "1077936128" in ptx  # 3.0f folded from the constant's bits
    slot = kernel_abi([types.bfloat16]).slots[0]
    assert (slot.llvm_type, slot.code) == ("i16", "H")
    assert bf16_bits(1.5) == 0x3FC0 and bf16_bits(ml.bfloat16(-2.0)) == 0xC000


def test_dlpack_dtype_code():
    ml = pytest.importorskip("ml_dtypes")
    from cudalite.cuda._memory.dlpack import dlpack_dtype

    assert dlpack_dtype(np.dtype(ml.bfloat16)) == (4, 16, 1)


def test_float_of_a_string_constant_folds():
    def k(out):
        out[0] = float("inf")
        out[1] = types.float32("-1.5")
        out[2] = B.hisnan(B.bfloat16(float("nan")))

    ptx, _ = compile_ptx(k, "void(float32[::1])", cc=(8, 0))
    assert "2139095040" in ptx or "0f7F800000" in ptx  # +inf
    from cudalite.core.errors import TypingError

    def bad(out):
        out[0] = float("one")

    with pytest.raises(TypingError, match="cannot convert str"):
        compile_ptx(bad, "void(float32[::1])", cc=(8, 0))
