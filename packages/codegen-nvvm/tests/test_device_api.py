"""The device-side API (``cuda.threadIdx``, ``shared.array``, atomics, warp
primitives, bit intrinsics, fp16) compiles to valid PTX without a GPU.

Each kernel is compiled for sm_90 and linked into a cubin with nvJitLink (the
``compile_and_assemble`` fixture), then the PTX is checked for the instruction
the feature must produce.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from cudalite import nvvm as cuda
from cudalite import types
from cudalite.core.errors import TypingError

i32, i64, u32, u64 = types.int32, types.int64, types.uint32, types.uint64
f16, f32, f64 = types.float16, types.float32, types.float64

CONST_TABLE = np.arange(16, dtype=np.float32) * 0.5


def _has(ptx, *patterns):
    for p in patterns:
        assert re.search(p, ptx), f"{p!r} not found in PTX:\n{ptx}"


# -- thread indexing -------------------------------------------------------------------------------
def test_special_registers(compile_and_assemble):
    def k(out):
        out[0] = cuda.threadIdx.x + cuda.threadIdx.y + cuda.threadIdx.z
        out[1] = cuda.blockIdx.x + cuda.blockIdx.y + cuda.blockIdx.z
        out[2] = cuda.blockDim.x + cuda.blockDim.y + cuda.blockDim.z
        out[3] = cuda.gridDim.x + cuda.gridDim.y + cuda.gridDim.z
        out[4] = cuda.laneid
        out[5] = cuda.warpsize

    ptx, _ = compile_and_assemble(k, (i32[::1],))
    for reg in ("tid", "ctaid", "ntid", "nctaid"):
        for a in "xyz":
            _has(ptx, rf"%{reg}\.{a}\b")
    _has(ptx, r"%laneid")
    # warpsize is 32 on every NVIDIA GPU: its value range lets the optimizer fold it
    assert re.search(r"WARP_SZ|\b32;", ptx), ptx


def test_device_value_types_follow_numba():
    def k(out):
        t = cuda.threadIdx.x
        w = cuda.warpsize
        i = cuda.grid(1)
        xy = cuda.grid(2)
        out[0] = t + w + i + xy[0]

    vartypes = _vartypes(k, (i64[::1],))
    assert vartypes["t"] == i32 and vartypes["w"] == i32
    assert vartypes["i"] == i64 and vartypes["xy"] == types.UniTuple(i64, 2)


def _vartypes(fn, argtypes):
    from cudalite.core.registry import registry
    from cudalite.core.typing import TypingContext, infer

    return infer(TypingContext(registry), fn, argtypes).vartypes


def test_grid_and_gridsize(compile_and_assemble):
    def k(out):
        i = cuda.grid(1)
        x, y = cuda.grid(2)
        a, b, c = cuda.grid(3)
        n = cuda.gridsize(1)
        nx, ny = cuda.gridsize(2)
        out[0] = i + x + y + a + b + c + n + nx + ny

    ptx, _ = compile_and_assemble(k, (i64[::1],))
    _has(ptx, r"%tid\.z", r"%ctaid\.y", r"%nctaid\.y")


def test_grid_needs_constant_dimension():
    def k(out, n):
        out[0] = cuda.grid(n)

    with pytest.raises(TypingError, match="compile-time constant"):
        cuda.compile_ptx(k, (i64[::1], i64), cc=(9, 0))


def test_grid_rejects_bad_dimension():
    def k(out):
        out[0] = cuda.grid(4)

    with pytest.raises(TypingError, match="1, 2 or 3"):
        cuda.compile_ptx(k, (i64[::1],), cc=(9, 0))


# -- barriers and fences -------------------------------------------------------------------------------
def test_barriers_and_fences(compile_and_assemble):
    def k(out, x):
        cuda.syncthreads()
        out[0] = cuda.syncthreads_count(x > 0)
        out[1] = cuda.syncthreads_and(x)
        out[2] = cuda.syncthreads_or(x > 1)
        cuda.syncwarp()
        cuda.syncwarp(0xFFFF)
        cuda.threadfence()
        cuda.threadfence_block()
        cuda.threadfence_system()

    ptx, _ = compile_and_assemble(k, (i32[::1], i32))
    _has(ptx, r"bar\.sync\s+0", r"bar\.red\.popc\.u32", r"bar\.red\.and\.pred", r"bar\.red\.or\.pred",
         r"bar\.warp\.sync", r"membar\.gl|fence\.(sc|acq_rel)\.gpu", r"membar\.cta|fence\.(sc|acq_rel)\.cta",
         r"membar\.sys|fence\.(sc|acq_rel)\.sys")


# -- memory spaces -------------------------------------------------------------------------------
def test_shared_array_static(compile_and_assemble):
    def k(out):
        s = cuda.shared.array((4, 8), dtype=types.float32)
        t = cuda.threadIdx.x
        s[t // 8, t % 8] = t
        cuda.syncthreads()
        out[t] = s[3 - t // 8, t % 8] + s.shape[1]

    ptx, _ = compile_and_assemble(k, (f32[::1],))
    _has(ptx, r"\.shared \.align 16 \.b8 [\w$]+\[128\]", r"st\.shared\.f32", r"ld\.shared\.f32")


def test_shared_array_numpy_dtype_and_two_arrays(compile_and_assemble):
    def k(out):
        a = cuda.shared.array(16, np.int32)
        b = cuda.shared.array(16, "float64")
        t = cuda.threadIdx.x
        a[t] = t
        b[t] = 2.0 * t
        cuda.syncthreads()
        out[t] = a[15 - t] + b[15 - t]

    ptx, _ = compile_and_assemble(k, (f64[::1],))
    assert len(re.findall(r"\.shared \.align \d+ \.b8 [\w$]+\[\d+\]", ptx)) == 2


def test_shared_array_dynamic(compile_and_assemble):
    def k(out):
        dyn = cuda.shared.array(0, dtype=types.float32)
        t = cuda.threadIdx.x
        dyn[t] = t
        cuda.syncthreads()
        out[t] = dyn[len(dyn) - 1 - t]

    ptx, _ = compile_and_assemble(k, (f32[::1],))
    _has(ptx, r"\.extern \.shared \.align 16 \.b8 [\w$]+\[\]", r"%dynamic_smem_size")


def test_shared_array_nonconstant_shape_is_a_located_typing_error():
    def k(out, n):
        s = cuda.shared.array(n, types.float32)  # the error must point here
        out[0] = s[0]

    with pytest.raises(TypingError) as exc:
        cuda.compile_ptx(k, (f32[::1], i32), cc=(9, 0))
    line = k.__code__.co_firstlineno + 1
    assert f"{__file__}:{line}:" in str(exc.value)
    assert "compile-time constant" in str(exc.value)


def test_shared_array_bad_dtype():
    def k(out):
        s = cuda.shared.array(4, "not-a-dtype")
        out[0] = s[0]

    with pytest.raises(TypingError, match=r"cuda.shared.array\(\): Invalid NumPy dtype specified: 'not-a-dtype' "
                                          r"\(NumPy has no dtype of that name\)"):
        cuda.compile_ptx(k, (f32[::1],), cc=(9, 0))


def test_local_array(compile_and_assemble):
    def k(out, n):
        tmp = cuda.local.array(8, types.int64)
        grid = cuda.local.array((2, 3), types.float32)
        for i in range(8):
            tmp[i] = i * n
        grid[1, 2] = 1.5
        acc = 0
        for i in range(n % 8):
            acc += tmp[i]
        out[0] = acc + grid[1, 2]

    ptx, _ = compile_and_assemble(k, (f64[::1], i64))
    assert ".shared" not in ptx


def test_const_array_like(compile_and_assemble):
    def k(out):
        table = cuda.const.array_like(CONST_TABLE)
        t = cuda.threadIdx.x
        out[t] = table[t % 16] + table.shape[0]

    ptx, _ = compile_and_assemble(k, (f32[::1],))
    _has(ptx, r"\.const \.align \d+ \.b8 [\w$]+\[64\]", r"ld\.const\.f32")


def test_const_array_like_is_read_only():
    def k(out):
        table = cuda.const.array_like(CONST_TABLE)
        table[0] = 1.0

    with pytest.raises(TypingError):
        cuda.compile_ptx(k, (f32[::1],), cc=(9, 0))


# -- atomics -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype, suffix", [(i32, r"(s|u)32"), (u32, r"u32"), (i64, r"(s|u)64"),
                                           (u64, r"u64"), (f32, r"f32"), (f64, r"f64")])
def test_atomic_add(compile_and_assemble, dtype, suffix):
    def k(ary, out, v):
        out[0] = cuda.atomic.add(ary, 0, v)

    ptx, _ = compile_and_assemble(k, (dtype[::1], dtype[::1], dtype))
    _has(ptx, rf"(atom|red)\.global(\.\w+)*\.add\.{suffix}")


def test_atomic_add_2d_tuple_index_and_shared(compile_and_assemble):
    def k(ary, v):
        s = cuda.shared.array(4, types.int32)
        cuda.atomic.add(s, 1, 1)
        cuda.atomic.add(ary, (1, 2), v)

    ptx, _ = compile_and_assemble(k, (f32[:, ::1], f32))
    _has(ptx, r"atom\.shared(\.\w+)*\.add\.u32|red\.shared(\.\w+)*\.add\.u32", r"\.add\.f32")


@pytest.mark.parametrize("op, instr", [("sub", r"add"), ("and_", r"and\.b32"), ("or_", r"or\.b32"),
                                       ("xor", r"xor\.b32"), ("exch", r"exch\.b32"),
                                       ("max", r"max\.s32"), ("min", r"min\.s32")])
def test_atomic_int_ops(compile_and_assemble, op, instr):
    fn = getattr(cuda.atomic, op)

    def k(ary, out, v):
        out[0] = fn(ary, 0, v)

    ptx, _ = compile_and_assemble(k, (i32[::1], i32[::1], i32))
    _has(ptx, rf"atom(\.global)?(\.\w+)*\.{instr}")


def test_atomic_unsigned_max_min(compile_and_assemble):
    def k(ary, v):
        cuda.atomic.max(ary, 0, v)
        cuda.atomic.min(ary, 1, v)

    ptx, _ = compile_and_assemble(k, (u64[::1], u64))
    _has(ptx, r"\.max\.u64", r"\.min\.u64")


@pytest.mark.parametrize("op", ["max", "min", "nanmax", "nanmin"])
@pytest.mark.parametrize("dtype", [f32, f64])
def test_atomic_float_cas_loops(compile_and_assemble, op, dtype):
    fn = getattr(cuda.atomic, op)

    def k(ary, out, v):
        out[0] = fn(ary, 0, v)

    ptx, _ = compile_and_assemble(k, (dtype[::1], dtype[::1], dtype))
    _has(ptx, rf"atom\.global(\.\w+)*\.cas\.b{dtype.bitwidth}")


@pytest.mark.parametrize("dtype", [f32, f64])
def test_atomic_float_exchange(compile_and_assemble, dtype):
    def k(ary, out, v):
        out[0] = cuda.atomic.exch(ary, 0, v)

    ptx, _ = compile_and_assemble(k, (dtype[::1], dtype[::1], dtype))
    _has(ptx, rf"atom\.global(\.\w+)*\.exch\.b{dtype.bitwidth}")


def test_atomic_inc_dec(compile_and_assemble):
    def k(a32, a64, out):
        out[0] = cuda.atomic.inc(a32, 0, 10)
        out[1] = cuda.atomic.dec(a32, 1, 10)
        out[2] = cuda.atomic.inc(a64, 0, 10)
        out[3] = cuda.atomic.dec(a64, 1, 10)

    ptx, _ = compile_and_assemble(k, (u32[::1], u64[::1], u64[::1]))
    _has(ptx, r"atom\.global(\.\w+)*\.inc\.u32", r"atom\.global(\.\w+)*\.dec\.u32",
         r"atom\.global(\.\w+)*\.cas\.b64")


def test_atomic_cas_and_compare_and_swap(compile_and_assemble):
    def k(ary, fary, out):
        out[0] = cuda.atomic.cas(ary, 1, 0, 5)
        out[1] = cuda.atomic.compare_and_swap(ary, 0, 7)
        out[2] = cuda.atomic.cas(fary, 0, 1.0, 2.0)

    ptx, _ = compile_and_assemble(k, (i32[::1], f32[::1], f64[::1]))
    assert len(re.findall(r"atom\.global(\.\w+)*\.cas\.b32", ptx)) == 3


def test_atomic_type_errors():
    def bad_dtype(ary):
        cuda.atomic.and_(ary, 0, 1.0)

    with pytest.raises(TypingError, match="not float32"):
        cuda.compile_ptx(bad_dtype, (f32[::1],), cc=(9, 0))

    def bad_index(ary):
        cuda.atomic.add(ary, 0, 1)

    with pytest.raises(TypingError, match="needs 2 indices"):
        cuda.compile_ptx(bad_index, (i32[:, ::1],), cc=(9, 0))

    def bad_inc(ary):
        cuda.atomic.inc(ary, 0, 1)

    with pytest.raises(TypingError, match="uint32"):
        cuda.compile_ptx(bad_inc, (i32[::1],), cc=(9, 0))


# -- warp primitives -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [i32, u32, f32, i64, f64])
def test_shuffles(compile_and_assemble, dtype):
    def k(out, v):
        m = cuda.activemask()
        a = cuda.shfl_sync(m, v, 0)
        b = cuda.shfl_up_sync(m, v, 1)
        c = cuda.shfl_down_sync(0xFFFFFFFF, v, 2)
        d = cuda.shfl_xor_sync(0xFFFFFFFF, v, 16)
        out[0] = a + b + c + d

    ptx, _ = compile_and_assemble(k, (dtype[::1], dtype))
    _has(ptx, r"shfl\.sync\.idx\.b32", r"shfl\.sync\.up\.b32", r"shfl\.sync\.down\.b32",
         r"shfl\.sync\.bfly\.b32", r"activemask\.b32")
    if dtype.bitwidth == 64:  # two 32-bit shuffles per 64-bit value
        assert len(re.findall(r"shfl\.sync\.down\.b32", ptx)) == 2


def test_votes_and_ballot(compile_and_assemble):
    def k(out, x):
        mask = 0xFFFFFFFF
        out[0] = cuda.all_sync(mask, x > 0)
        out[1] = cuda.any_sync(mask, x)
        out[2] = cuda.eq_sync(mask, x > 3)
        b = cuda.ballot_sync(mask, x % 2 == 0)
        out[3] = cuda.popc(b)
        out[4] = cuda.lanemask_lt()

    ptx, _ = compile_and_assemble(k, (u32[::1], i32))
    _has(ptx, r"vote\.sync\.all\.pred", r"vote\.sync\.any\.pred", r"vote\.sync\.uni\.pred",
         r"vote\.sync\.ballot\.b32", r"popc\.b32", r"%lanemask_lt")


def test_match(compile_and_assemble):
    def k(out, x, y):
        out[0] = cuda.match_any_sync(0xFFFFFFFF, x)
        m, pred = cuda.match_all_sync(0xFFFFFFFF, y)
        out[1] = m
        out[2] = pred

    ptx, _ = compile_and_assemble(k, (u32[::1], i32, f64))
    _has(ptx, r"match\.any\.sync\.b32", r"match\.all\.sync\.b64")


# -- bit and maths intrinsics -------------------------------------------------------------------------------
def test_bit_intrinsics(compile_and_assemble):
    def k(out, x, y):
        out[0] = cuda.popc(x)
        out[1] = cuda.brev(x)
        out[2] = cuda.clz(x)
        out[3] = cuda.ffs(x)
        out[4] = cuda.popc(y) + cuda.brev(y) + cuda.clz(y) + cuda.ffs(y)

    ptx, _ = compile_and_assemble(k, (u64[::1], u32, u64))
    _has(ptx, r"popc\.b32", r"popc\.b64", r"brev\.b32", r"brev\.b64", r"clz\.b32", r"clz\.b64")


def test_fma_cbrt_selp(compile_and_assemble):
    def k(out, a, b):
        out[0] = cuda.fma(a, b, a)
        out[1] = cuda.cbrt(a)
        out[2] = cuda.selp(a > b, a, b)

    ptx, _ = compile_and_assemble(k, (f32[::1], f32, f32))
    _has(ptx, r"fma\.rn\.f32", r"selp\.f32")


def test_fma_double(compile_and_assemble):
    def k(out, a, b):
        out[0] = cuda.fma(a, b, a)

    ptx, _ = compile_and_assemble(k, (f64[::1], f64, f64))
    _has(ptx, r"fma\.rn\.f64")


# -- half precision -------------------------------------------------------------------------------
def test_fp16_functions(compile_and_assemble):
    def k(out, flags, a, b):
        out[0] = cuda.fp16.hadd(a, b)
        out[1] = cuda.fp16.hsub(a, b)
        out[2] = cuda.fp16.hmul(a, b)
        out[3] = cuda.fp16.hdiv(a, b)
        out[4] = cuda.fp16.hneg(a)
        out[5] = cuda.fp16.habs(a)
        out[6] = cuda.fp16.hfma(a, b, a)
        out[7] = cuda.fp16.hmax(a, b)
        out[8] = cuda.fp16.hmin(a, b)
        flags[0] = cuda.fp16.heq(a, b)
        flags[1] = cuda.fp16.hne(a, b)
        flags[2] = cuda.fp16.hgt(a, b)
        flags[3] = cuda.fp16.hge(a, b)
        flags[4] = cuda.fp16.hlt(a, b)
        flags[5] = cuda.fp16.hle(a, b)

    ptx, _ = compile_and_assemble(k, (f16[::1], types.boolean[::1], f16, f16))
    _has(ptx, r"add(\.rn)?\.f16", r"sub(\.rn)?\.f16", r"mul(\.rn)?\.f16", r"fma\.rn\.f16")


def test_fp16_operators(compile_and_assemble):
    def k(out, a, b):
        out[0] = a + b
        out[1] = a * b - a

    ptx, _ = compile_and_assemble(k, (f16[::1], f16, f16))
    _has(ptx, r"add(\.rn)?\.f16", r"mul(\.rn)?\.f16")


# -- the stubs themselves -------------------------------------------------------------------------------
def test_stubs_refuse_to_run_in_python():
    with pytest.raises(RuntimeError, match="device code"):
        cuda.syncthreads()
    with pytest.raises(RuntimeError, match="device code"):
        cuda.atomic.add(np.zeros(1), 0, 1)
    with pytest.raises(RuntimeError, match="device code"):
        int(cuda.threadIdx.x)
    assert "threadIdx.x" in repr(cuda.threadIdx.x)
    assert "cuda.shared.array" in repr(cuda.shared.array)


def test_device_api_importable_from_nvvm():
    for name in ("threadIdx", "blockIdx", "blockDim", "gridDim", "grid", "gridsize", "syncthreads",
                 "shared", "local", "const", "atomic", "fp16", "shfl_sync", "ballot_sync", "popc"):
        assert name in cuda.__all__
        assert getattr(cuda, name) is not None
