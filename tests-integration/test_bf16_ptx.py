"""bfloat16 (cuda.bf16) compiles GPU-less: types, conversions, every bf16 function."""

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
