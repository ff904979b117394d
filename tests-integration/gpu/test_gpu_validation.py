"""Issue 10 on the GPU: constant-folded shapes, a 48 KiB static shared array, and
tuples in their ``[n x T]`` representation (large literals, runtime indexing,
iteration, concatenation, tuple arguments, intrinsics returning tuples) compute
what CPython computes."""

from __future__ import annotations

import cmath
import linecache

import numpy as np
import pytest

from cudalite import types

pytestmark = pytest.mark.gpu

TPB = 16
N = 40
_KEEP: dict = {}


def _function(name, src):
    filename = f"<test_gpu_validation {name}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns: dict = {}
    exec(compile(src, filename, "exec"), ns)  # noqa: S102 - test-generated source
    _KEEP[filename] = ns
    return ns[name]


def test_folded_shapes(gpu):
    from cudalite import nvvm as cuda

    def k(a, out):
        s = cuda.shared.array(2**5, types.int64)
        t = cuda.shared.array((TPB * 2, TPB // 8), types.int64)  # (32, 2): one cell per thread
        u = cuda.local.array(-(-TPB // 3), types.int64)
        i = cuda.threadIdx.x
        s[i] = a[i]
        t[i, i % (TPB // 8)] = a[i] * 2
        for j in range(6):
            u[j] = j
        cuda.syncthreads()
        out[i] = s[31 - i] + t[31 - i, (31 - i) % (TPB // 8)] + u[i % 6]

    a = np.arange(32, dtype=np.int64) * 3
    out = np.zeros(32, np.int64)
    gpu.run(k, [a, out], block=32)
    i = np.arange(32)
    np.testing.assert_array_equal(out, a[31 - i] + 2 * a[31 - i] + i % 6)


def test_static_shared_array_of_48_kib(gpu):
    from cudalite import nvvm as cuda

    def k(a, out):
        s = cuda.shared.array(12288, types.float32)  # 48 KiB: the static limit
        t = cuda.threadIdx.x
        for j in range(t, 12288, cuda.blockDim.x):
            s[j] = a[j]
        cuda.syncthreads()
        for j in range(t, 12288, cuda.blockDim.x):
            out[j] = s[12287 - j]

    a = np.arange(12288, dtype=np.float32)
    out = np.zeros_like(a)
    gpu.run(k, [a, out], block=256)
    np.testing.assert_array_equal(out, a[::-1])


def test_a_3000_item_tuple_literal(gpu):
    items = ", ".join(str(i * 7 % 1000) for i in range(3000))
    k = _function("lit", f"def lit(idx, out):\n    t = ({items},)\n"
                         "    for j in range(idx.size):\n        out[j] = t[idx[j]]\n")
    ref = tuple(i * 7 % 1000 for i in range(3000))
    idx = np.array([0, 1, 2999, 1500, -1, -3000], np.int64)
    out = np.zeros(idx.size, np.int64)
    gpu.run(k, [idx, out])
    assert out.tolist() == [ref[i] for i in idx]


_OPS = f"""
def total(t):
    s = 0
    for x in t:
        s += x
    return s

def ops(a, k, out):
    t = ({", ".join(f"a[{i}]" for i in range(N))},)
    c = t + (7, 8)
    out[0] = t[a[0] % {N}] + c[{N} + 1]
    out[1] = total(t) + total(k)
    out[2] = len(c)
    out[3] = 1 if t == t else 0
    nested = (t, k)
    out[4] = nested[1][{N} - 1] + nested[0][3]
    i = 0
    for j, x in enumerate(k):
        i += j * x
    out[5] = i
"""


def test_operations_on_a_large_uniform_tuple(gpu):
    ops = _function("ops", _OPS)
    a = np.arange(N, dtype=np.int64) * 5 + 3
    k = tuple(range(100, 100 + N))
    out = np.zeros(6, np.int64)
    gpu.run(ops, [a, k, out], sig=f"void(int64[::1], UniTuple(int64, {N}), int64[::1])")
    t = tuple(int(x) for x in a)
    assert out.tolist() == [t[t[0] % N] + 8, sum(t) + sum(k), N + 2, 1, k[N - 1] + t[3],
                            sum(j * x for j, x in enumerate(k))]


def test_intrinsics_returning_small_uniform_tuples(gpu):
    from cudalite import nvvm as cuda

    def k(out, z):
        g = cuda.grid(2)
        s = cuda.gridsize(2)
        p = cmath.polar(z)
        if g[0] == 1 and g[1] == 2:
            out[0] = g[0] * 10 + g[1]
            out[1] = s[0] * 100 + s[1]
            out[2] = p[0]
            out[3] = p[1]

    out = np.zeros(4, np.float64)
    gpu.run(k, [out, 3 + 4j], grid=(2, 3), block=(2, 2))
    r, phi = cmath.polar(3 + 4j)
    np.testing.assert_allclose(out, [12, 4 * 100 + 6, r, phi])


def test_a_large_heterogeneous_tuple(gpu):
    # 40 items of three types: an identified struct type %"tuple.<hash>" in the IR
    items = ", ".join(f"a[{i % 8}] * {i}" if i % 2 else (f"i + {i}" if i % 4 else f"s - {i}") for i in range(40))
    src = ("def pick(t, j):\n    return t[1] + t[38] + t[39] + j\n\n"
           f"def het(a, i, s, out):\n    t = ({items},)\n"
           "    out[0] = pick(t, 1)\n    acc = 0.0\n    for x in t:\n        acc += x\n    out[1] = acc\n"
           "    out[2] = t[5] + t[12]\n")
    _function("pick", src)
    het = _function("het", src)
    a = np.arange(8, dtype=np.float64) + 0.5
    out = np.zeros(3, np.float64)
    gpu.run(het, [a, np.int64(1000), np.int32(-7), out], sig="void(float64[::1], int64, int32, float64[::1])")
    t = tuple(a[i % 8] * i if i % 2 else (1000 + i if i % 4 else -7 - i) for i in range(40))
    assert out.tolist() == [t[1] + t[38] + t[39] + 1, sum(t), t[5] + t[12]]
