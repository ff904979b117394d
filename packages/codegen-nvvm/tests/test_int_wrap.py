"""Integer arithmetic wraps as in numba-cuda: user ``+ - *`` carry no ``nsw``/``nuw``
unless the compiler proves the result cannot wrap (lower/_ranges.py; the rule is
in docs/language.md, "Integer arithmetic").  GPU-less: the NVVM IR is inspected;
tests-integration/gpu/test_gpu_int_semantics.py runs the values on a GPU."""

from __future__ import annotations

import re

from llvmlite import ir

from cudalite import nvvm as cuda
from cudalite import types
from cudalite.nvvm.lower._ranges import RangeHint, prove_no_wrap

TPB = 16


def _impl(fn, sig, device=False):
    """The lines of the user function's body in the NVVM IR (``$impl`` of a device
    function; a kernel's body is its entry point)."""
    text = cuda.compile_stages(fn, sig, device=device, cc=(9, 0))["nvvm-ir"].data
    head = r'define internal [^\n]*\$impl' if device else r'define void @'
    body = re.search(head + r'[^\n]*\n\{\n(.*?)\n\}', text, re.S)
    assert body is not None, text
    lines = body.group(1).splitlines()
    return lines if device else lines[lines.index("body:"):]  # not the arguments' rebuilding


def _ops(lines, op):
    """``(flags, operands)`` of each integer ``op`` (add/sub/mul) instruction."""
    out = []
    for line in lines:
        m = re.search(rf"= {op}((?: nuw| nsw)*) i(\d+) (.*)$", line)
        if m:
            out.append((m.group(1).split(), m.group(3)))
    return out


def _flags(lines):
    return [f for op in ("add", "sub", "mul") for f, _ in _ops(lines, op)]


# -- no flags on user arithmetic -----------------------------------------------------------
def hash_step(h, c):
    return (h ^ c) * 1099511628211 + h - c


def negate_shift(x, y):
    return -x + (y << 3) - abs(x) * y


def test_user_arithmetic_on_arguments_has_no_flags():
    lines = _impl(hash_step, "int64(int64, int64)", device=True)
    assert _ops(lines, "mul") and _ops(lines, "add") and _ops(lines, "sub")
    assert _flags(lines) == [[]] * len(_flags(lines)), "\n".join(lines)


def test_negation_shift_abs_have_no_flags():
    lines = _impl(negate_shift, "int64(int64, int64)", device=True)
    assert all(f == [] for f in _flags(lines)), "\n".join(lines)
    assert not any(" nsw " in ln or " nuw " in ln for ln in lines if " shl " in ln)


def int32_mix(x, y):
    return types.int32(x * y + 0x7FFFFFFF)


def test_int32_operands_in_64_bits_are_proved_and_truncation_wraps():
    # int32 * int32 is computed in 64 bits (numba's rule): |x * y| <= 2**62 fits, and
    # + 0x7FFFFFFF too; the cast back to int32 is a plain trunc (it wraps).
    lines = _impl(int32_mix, "int32(int32, int32)", device=True)
    assert _flags(lines) == [["nsw"], ["nsw"]], "\n".join(lines)
    assert any("trunc i64" in ln for ln in lines)
    lines = _impl(int32_mix, "int32(int64, int64)", device=True)
    assert _flags(lines) == [[], []], "\n".join(lines)


def counter(a, n):
    x = 0
    while x < n:
        x = x + 1  # grows without a bound the compiler can see
    a[0] = x * 3


def test_loop_carried_variable_is_not_proved():
    lines = _impl(counter, "void(int64[::1], int64)")
    muls = [f for f, ops in _ops(lines, "mul") if ", 3" in ops]
    assert muls == [[]], "\n".join(lines)


# -- proved: grid indices, range loops, bounded variables -------------------------------------
def saxpy(out, x, y, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def test_grid_index_is_proved():
    lines = _impl(saxpy, "void(float32[::1], float32[::1], float32[::1], float32)")
    # cuda.grid(1) = tid.x + ctaid.x * ntid.x < 1024 + (2**31 - 2) * 1024 in 64 bits
    assert [["nuw", "nsw"]] == [f for f, _ in _ops(lines, "mul")][:1]
    assert ["nuw", "nsw"] in [f for f, _ in _ops(lines, "add")]


def manual_index(a):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    j = i + 1
    a[i] = j * 2


def test_hand_written_global_index_is_proved():
    lines = _impl(manual_index, "void(float32[::1])")
    muls = [f for f, _ in _ops(lines, "mul")]
    plus_one = [f for f, ops in _ops(lines, "add") if ops.endswith(", 1")]
    assert muls == [["nuw", "nsw"]] * 2 and plus_one == [["nuw", "nsw"]], "\n".join(lines)


def stencil(a, b):
    x, y = cuda.grid(2)
    if y > 0 and x > 0 and y < a.shape[0] - 1 and x < a.shape[1] - 1:
        b[y, x] = a[y - 1, x] + a[y + 1, x] + a[y, x - 1] + a[y, x + 1]


def test_neighbour_indices_of_grid_2d_are_proved():
    lines = _impl(stencil, "void(float32[:, ::1], float32[:, ::1])")
    for op in ("add", "sub"):
        minus_plus_one = [f for f, ops in _ops(lines, op) if ops.endswith(", 1")]
        proved = [f for f in minus_plus_one if "nsw" in f]
        assert len(proved) >= 2, (op, "\n".join(lines))
    # a.shape[0] - 1: shapes are not bounded by the analysis: no flag
    assert [] in [f for f, ops in _ops(lines, "sub") if ops.endswith(", 1")]


def matmul_tiles(A, B, C):
    tx = cuda.threadIdx.x
    acc = types.float32(0.0)
    for i in range(cuda.gridDim.x):
        acc += A[0, tx + i * TPB]
    C[0, tx] = acc


def test_range_variable_times_constant_is_proved():
    lines = _impl(matmul_tiles, "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])")
    assert ["nuw", "nsw"] in [f for f, ops in _ops(lines, "mul") if ops.endswith(", 16")], "\n".join(lines)


def range_plus_one(a, n):
    for k in range(n):
        a[k] = (k + 1) + k * 2


def test_range_value_bounded_by_its_limits():
    lines = _impl(range_plus_one, "void(int64[::1], int64)")
    # k in [0, n - 1] with n <= 2**63 - 1: k + 1 fits, k * 2 may not
    plus = [f for f, ops in _ops(lines, "add") if ops.endswith(", 1") and "nsw" in f]
    assert plus, "\n".join(lines)
    assert [[]] == [f for f, ops in _ops(lines, "mul") if ops.endswith(", 2")], "\n".join(lines)


def tree_reduce(s):
    tid = cuda.threadIdx.x
    step = 128
    while step > 0:
        if tid < step:
            s[tid] += s[tid + step]
        step //= 2


def test_halving_variable_is_bounded():
    lines = _impl(tree_reduce, "void(float32[::1])")
    # step in [0, 128] (a floor division by 2 of a value in that range), tid in [0, 1023]
    adds = [f for f, ops in _ops(lines, "add") if "nsw" in f and "nuw" in f]
    assert adds, "\n".join(lines)


def test_enumerate_of_range_step_two_has_no_flag_on_the_product():
    def f(a, n):
        for j, k in enumerate(range(0, n, 2)):
            a[j] = k

    lines = _impl(f, "void(int64[::1], int64)")
    assert all(f == [] for f, ops in _ops(lines, "mul") if ", 2" in ops or "2," in ops)


# -- the analysis on hand-made IR -------------------------------------------------------------
def _fn():
    m = ir.Module()
    i64 = ir.IntType(64)
    fn = ir.Function(m, ir.FunctionType(i64, [i64]), "f")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    return fn, b, i64


def test_constants_and_casts():
    fn, b, i64 = _fn()
    x = b.zext(b.trunc(fn.args[0], ir.IntType(8)), i64)   # [0, 255]
    y = b.mul(x, ir.Constant(i64, 1 << 54))             # < 2**62: fits
    z = b.mul(y, ir.Constant(i64, 4))                    # may reach 2**64: wraps
    w = b.sub(ir.Constant(i64, 0), x)                    # [-255, 0]
    b.ret(b.add(z, w))
    prove_no_wrap(fn, {})
    assert y.flags == ["nuw", "nsw"]
    assert z.flags == []
    assert w.flags == ["nsw"]


def test_hints_range_and_floordiv_and_mod():
    fn, b, i64 = _fn()
    n = b.and_(fn.args[0], ir.Constant(i64, 1023))       # [0, 1023]
    start = ir.Constant(i64, 5)
    i = b.add(start, ir.Constant(i64, 0))
    hints = {i: RangeHint("range", (start, n), 1)}
    q = b.select(b.icmp_signed("<", i, n), i, n)
    hints[q] = RangeHint("mod", (fn.args[0], ir.Constant(i64, 7)))
    r = b.mul(q, ir.Constant(i64, 1 << 60))              # q in [0, 6]: 6 * 2**60 < 2**63
    s = b.mul(i, ir.Constant(i64, 1 << 53))              # i in [5, 1022]
    b.ret(b.add(r, s))
    prove_no_wrap(fn, hints)
    assert r.flags == ["nuw", "nsw"] and s.flags == ["nuw", "nsw"]


def _cmp(x, y):
    return x > y


def test_uint64_against_signed_compares_in_float64():
    """numba-cuda's choice (its PTX: cvt.rn.f64.u64, setp.gt.f64): a uint64 against a
    signed integer converts both to float64 -- unsigned to float, not signed -- and a
    uint32 against an int32 compares exactly in int64."""
    lines = _impl(_cmp, (types.uint64, types.int64), device=True)
    text = "\n".join(lines)
    assert re.search(r"= uitofp i64 %[^ ]+ to double", text), text
    assert re.search(r"= sitofp i64 %[^ ]+ to double", text), text
    assert re.search(r"= fcmp ogt double", text), text
    assert "icmp" not in text
    lines = _impl(_cmp, (types.uint32, types.int32), device=True)
    text = "\n".join(lines)
    assert re.search(r"= zext i32 %[^ ]+ to i64", text) and re.search(r"= sext i32 %[^ ]+ to i64", text), text
    assert re.search(r"= icmp sgt i64", text), text
