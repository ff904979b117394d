"""GPU-less: a device function's ``inspect_asm`` / ``inspect_llvm`` (numba-cuda's
test_optimization device cases).  Its overloads are typed only (they are compiled into
their callers), so the later stages run on demand instead of raising an internal
``KeyError``; ``opt`` decides whether the multiply-add is fused."""

from __future__ import annotations

import pytest

from cudalite import cuda
from cudalite.cuda import float64


def mul_add(x, y, z):
    return x * y + z


SIG = (float64, float64, float64)


def test_device_inspect_asm_compiles_the_ptx_on_demand():
    dev = cuda.jit(SIG, device=True)(mul_add)
    ptx = dev.inspect_asm(SIG)
    assert ".func" in ptx and "fma.rn.f64" in ptx
    assert list(dev.inspect_asm()) == [SIG]
    assert "fmul" in dev.inspect_llvm(SIG) or "fma" in dev.inspect_llvm(SIG)


def test_device_inspect_asm_without_optimization_does_not_fuse():
    dev = cuda.jit(SIG, device=True, opt=False)(mul_add)
    assert "fma.rn.f64" not in dev.inspect_asm(SIG)


def bit_count(out, x):
    out[0] = x.bit_count()


@pytest.mark.parametrize("t, width", [("uint8", 32), ("uint16", 32), ("int32", 32), ("uint64", 64)])
def test_int_bit_count_is_popc(t, width):
    ptx, _ = cuda.compile_ptx(bit_count, f"void(int32[:], {t})")
    assert f"popc.b{width}" in ptx
