"""Generated code that numba-cuda users rely on (GPU-less: PTX and NVVM IR text):
fastmath's approximate float32 math, operator-module functions, inline='always'
and forceinline, float16 <-> integer conversions, fp16 abs/neg."""

import math
import operator
import re

import numpy as np
import pytest

from cudalite import cuda
from cudalite.cuda import float16, float32, float64, types

CC = (7, 5)
_CALL = re.compile(r"call [a-zA-Z0-9]* @")


def _ptx(fn, sig, **kw):
    return cuda.compile_ptx(fn, sig, cc=CC, **kw)[0]


@pytest.mark.parametrize("op, fast", [
    (math.cos, ["cos.approx.ftz.f32 "]),
    (math.sin, ["sin.approx.ftz.f32 "]),
    (math.tan, ["sin.approx.ftz.f32 ", "cos.approx.ftz.f32 ", "div.approx.ftz.f32 "]),
    (math.tanh, ["tanh.approx.f32 "]),
    (math.log, ["lg2.approx.ftz.f32 ", "0f3F317218"]),
    (math.log10, ["lg2.approx.ftz.f32 ", "0f3E9A209B"]),
    (math.log2, ["lg2.approx.ftz.f32 "]),
])
def test_fastmath_unary_float32(op, fast):
    def k(r, x):
        r[0] = op(x)

    sig = (float32[::1], float32)
    fptx, pptx = _ptx(k, sig, fastmath=True), _ptx(k, sig)
    for instr in fast:
        assert instr in fptx
    assert fast[0] not in pptx


def test_fastmath_leaves_float64_precise():
    def k(r, x):
        r[0] = math.cos(x)

    assert "cos.approx" not in _ptx(k, (float64[::1], float64), fastmath=True)


@pytest.mark.parametrize("op", [operator.truediv, lambda x, y: x / y])
def test_fastmath_division(op):
    def k(r, x, y):
        r[0] = op(x, y)

    sig = (float32[::1], float32, float32)
    fptx, pptx = _ptx(k, sig, fastmath=True), _ptx(k, sig)
    assert "div.approx.ftz.f32 " in fptx and "div.rn.f32" not in fptx
    assert "div.rn.f32" in pptx and "div.approx.ftz.f32 " not in pptx


def test_fastmath_pow():
    def k(r, x, y):
        r[0] = math.pow(x, y)

    sig = (float32[::1], float32, float32)
    assert "lg2.approx.ftz.f32 " in _ptx(k, sig, fastmath=True)
    assert "lg2.approx.ftz.f32 " not in _ptx(k, sig)


def test_fastmath_flag_sets():
    def k(r, x):
        r[0] = math.cos(x)

    sig = (float32[::1], float32)
    assert "cos.approx.ftz.f32" in cuda.jit(sig, fastmath={"arcp", "contract"})(k).inspect_asm(sig)
    assert "cos.approx.ftz.f32" not in cuda.jit(sig, fastmath=set())(k).inspect_asm(sig)
    assert "cos.approx.ftz.f32" in cuda.jit(sig, fastmath={"afn": True})(k).inspect_asm(sig)
    with pytest.raises(ValueError, match="Unrecognized fastmath flags"):
        cuda.jit(fastmath={"bogus"})
    with pytest.raises(ValueError, match="bool, dict or set"):
        cuda.jit(fastmath="fast")


def test_debug_division_by_zero_is_recorded():
    """debug=True: x / y checks y == 0 (ZeroDivisionError); fastmath float32 does not."""
    def k(r, x, y):
        r[0] = x / y

    sig = (float32[::1], float32, float32)
    prec = cuda.jit(sig, debug=True, opt=False)(k).inspect_llvm(sig)
    fast = cuda.jit(sig, debug=True, opt=False, fastmath=True)(k).inspect_llvm(sig)
    assert "fcmp oeq float" in prec and "__cudalite_exc" in prec
    assert "__nv_fast_fdividef" in fast and "fcmp oeq float" not in fast


@pytest.mark.parametrize("op, a, b, expect", [
    (operator.add, 2, 3, 5), (operator.sub, 2, 3, -1), (operator.mul, 2, 3, 6),
    (operator.floordiv, -7, 2, -4), (operator.mod, -7, 2, 1), (operator.pow, 2, 10, 1024),
    (operator.lt, 2, 3, 1), (operator.ge, 2, 3, 0), (operator.lshift, 1, 4, 16),
])
def test_operator_functions_type_as_operators(op, a, b, expect):
    def f(x, y):
        return op(x, y)

    _, resty = cuda.compile_ptx(f, (types.int64, types.int64), device=True, cc=CC)
    assert resty == (types.boolean if op in (operator.lt, operator.ge) else types.int64)
    assert op(a, b) == expect  # the host meaning the device code follows


def test_operator_truediv_of_ints_is_float64():
    def f(x, y):
        return operator.truediv(x, y)

    assert cuda.compile_ptx(f, (types.int32, types.int32), device=True, cc=CC)[1] == float64


def test_operator_neg():
    def f(x):
        return operator.neg(x)

    ptx, resty = cuda.compile_ptx(f, (types.int32,), device=True, cc=CC)
    assert resty == types.int64


def _call_set_zero(**opts):
    sig = (types.int32[::1],)

    @cuda.jit(**opts)
    def set_zero(a):
        a[0] = 0

    @cuda.jit(sig)
    def call_set_zero(a):
        set_zero(a)

    return call_set_zero.inspect_llvm(sig)


@pytest.mark.parametrize("inline, inlined", [
    ("always", True), (True, True), ("never", False), (False, False),
    (lambda call, caller, callee: True, True), (lambda call, caller, callee: False, False),
])
def test_inline_option(inline, inlined):
    llvm = _call_set_zero(inline=inline)
    assert (_CALL.search(llvm) is None) == inlined
    assert "alwaysinline" not in llvm


def test_inline_cost_model_sees_the_call():
    seen = []

    def cost_model(call, caller_ir, callee_ir):
        seen.append((caller_ir.name, callee_ir.name))
        return False

    _call_set_zero(inline=cost_model)
    assert seen == [("call_set_zero", "set_zero")]


def test_inline_rejects_other_values():
    with pytest.raises(ValueError, match="inline must be"):
        cuda.jit(inline="sometimes")


@pytest.mark.parametrize("force", [True, False])
def test_forceinline_marks_the_callee(force):
    llvm = _call_set_zero(forceinline=force)
    assert _CALL.search(llvm) is not None
    callee = re.search(r"define.*[^_]set_zero.*", llvm).group()
    assert ("alwaysinline" in callee) == force
    assert "alwaysinline" not in re.search(r"define.*call_set_zero.*", llvm).group()


def test_inline_always_keeps_results_returns_and_recursion():
    @cuda.jit(device=True, inline="always")
    def f(x, y):
        if x > y:
            return x - y
        for i in range(3):
            x += i
        return x * y

    @cuda.jit(device=True, inline="always")
    def rec(n):
        if n <= 0:
            return 0
        return n + rec(n - 1)

    def k(r, x, y, n):
        r[0] = f(x, y) + rec(n)

    sig = (float64[::1], float64, float64, types.int64)
    llvm = cuda.jit(sig)(k).inspect_llvm(sig)
    # f and the first level of rec are inlined; rec's recursion stays a call
    assert re.search(r"define internal i64 @.*rec", llvm) and not re.search(r"define .*[^_]f\$impl", llvm)
    assert _ptx(k, sig)  # valid NVVM IR


def test_kernel_body_is_the_entry_point():
    def k(a):
        a[0] = 1

    sig = (types.int32[::1],)
    assert _CALL.search(cuda.jit(sig)(k).inspect_llvm(sig)) is None


@pytest.mark.parametrize("ty", [types.int8, types.int16, types.int32, types.int64,
                                types.uint8, types.uint16, types.uint32, types.uint64])
def test_float16_integer_conversions_are_single_cvt(ty):
    dt = np.dtype(str(ty))
    sign = "s" if dt.kind == "i" else "u"

    def to_int(x):
        return dt.type(x)

    def to_half(x):
        return np.float16(x)

    assert f"cvt.rni.{sign}{ty.bitwidth}.f16" in _ptx(to_int, (float16,), device=True)
    assert f"cvt.rn.f16.{sign}{ty.bitwidth}" in _ptx(to_half, (ty,), device=True)


def test_float_of_a_float_keeps_its_width():
    def native_cast(x):
        return float(x)

    assert cuda.compile_ptx(native_cast, (float32,), device=True, cc=CC)[1] == float32
    assert re.search(r"st\.[bf]32", _ptx(native_cast, (float32,), device=True))
    assert cuda.compile_ptx(native_cast, (types.int32,), device=True, cc=CC)[1] == float64


@pytest.mark.parametrize("fn, instr", [(cuda.fp16.habs, "abs.f16"), (cuda.fp16.hneg, "neg.f16")])
def test_fp16_abs_neg_native(fn, instr):
    def k(r, x):
        r[0] = fn(x)

    assert instr in _ptx(k, (float16[:], float16))
