"""Core-language semantics on the GPU, compared with CPython/NumPy.

Each kernel runs in one thread (the loops do the work) so that only the
compiler is under test, not the device API.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(1234)
TABLE = np.array([3.0, 1.5, -2.0, 8.25], dtype=np.float64)
OFFSETS = (10, 20, 30)


def _ints(n=64, lo=-50, hi=50, dtype=np.int64):
    a = RNG.integers(lo, hi, n).astype(dtype)
    return a


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_int_floordiv_mod_python_semantics(gpu, dtype):
    def k(a, b, q, r):
        for i in range(a.shape[0]):
            q[i] = a[i] // b[i]
            r[i] = a[i] % b[i]

    a = _ints(dtype=dtype)
    b = _ints(dtype=dtype)
    b[b == 0] = 7
    q = np.zeros(a.shape, np.int64)
    r = np.zeros(a.shape, np.int64)
    gpu.run(k, [a, b, q, r])
    assert q.tolist() == [int(x) // int(y) for x, y in zip(a, b)]
    assert r.tolist() == [int(x) % int(y) for x, y in zip(a, b)]


def test_int_division_by_zero_gives_zero(gpu):
    def k(a, out):
        for i in range(a.shape[0]):
            out[i] = a[i] // 0 + a[i] % 0

    a = _ints(8)
    out = np.ones(8, np.int64)
    gpu.run(k, [a, out])
    assert (out == 0).all()


def test_float_floordiv_mod_and_true_div(gpu):
    def k(a, b, q, r, d):
        for i in range(a.shape[0]):
            q[i] = a[i] // b[i]
            r[i] = a[i] % b[i]
            d[i] = a[i] / b[i]

    a = RNG.uniform(-10, 10, 64)
    b = RNG.uniform(-3, 3, 64)
    b[np.abs(b) < 0.1] = 0.5
    q, r, d = (np.zeros(64) for _ in range(3))
    gpu.run(k, [a, b, q, r, d])
    np.testing.assert_array_equal(q, [x // y for x, y in zip(a, b)])
    np.testing.assert_allclose(r, [x % y for x, y in zip(a, b)], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(d, a / b, rtol=1e-15)


def test_power(gpu):
    def k(a, n, ip, fp, ff):
        for i in range(a.shape[0]):
            ip[i] = n[i] ** 3 + 2 ** n[i]
            fp[i] = a[i] ** n[i]
            ff[i] = abs(a[i]) ** 0.5

    a = RNG.uniform(-2, 2, 32)
    n = RNG.integers(0, 12, 32).astype(np.int64)
    ip = np.zeros(32, np.int64)
    fp, ff = np.zeros(32), np.zeros(32)
    gpu.run(k, [a, n, ip, fp, ff])
    assert ip.tolist() == [int(x) ** 3 + 2 ** int(x) for x in n]
    np.testing.assert_allclose(fp, a ** n, rtol=1e-12)
    np.testing.assert_allclose(ff, np.abs(a) ** 0.5, rtol=1e-14)


@pytest.mark.nosim("compiled typing semantics: the simulator has no type inference")
def test_negative_int_exponent(gpu):
    def k(base, out):
        for i in range(base.shape[0]):
            out[i] = base[i] ** -3

    base = np.array([1, -1, 2, -5], np.int64)
    out = np.full(4, 99, np.int64)
    gpu.run(k, [base, out])
    assert out.tolist() == [1, -1, 0, 0]


def test_control_flow(gpu):
    def collatz_steps(n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
            if steps > 1000:
                break
        return steps

    def k(a, out):
        for i in range(a.shape[0]):
            out[i] = collatz_steps(a[i])

    def ref(n):
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    a = np.arange(1, 65, dtype=np.int64)
    out = np.zeros(64, np.int64)
    gpu.run(k, [a, out])
    assert out.tolist() == [ref(int(x)) for x in a]


def test_range_forms_and_continue(gpu):
    def k(out, step):
        s = 0
        for i in range(10, 0, -3):
            s += i
        out[0] = s
        t = 0
        for i in range(0, 20, step):
            if i % 3 == 0:
                continue
            t += i
        out[1] = t
        u = 0
        for i in range(5):
            for j in range(i):
                if j == 3:
                    break
                u += j
        out[2] = u
        last = -1
        for i in range(4):
            last = i
        out[3] = last

    out = np.zeros(4, np.int64)
    gpu.run(k, [out, np.int64(-2)])
    ref_t = sum(i for i in range(0, 20, -2) if i % 3)
    assert out.tolist() == [10 + 7 + 4 + 1, ref_t, sum(j for i in range(5) for j in range(min(i, 3))), 3]
    gpu.run(k, [out, np.int64(3)])
    assert out[1] == sum(i for i in range(0, 20, 3) if i % 3)


def test_tuples_and_device_functions(gpu):
    def stats(x, y):
        return x + y, x * y, (x > y)

    def pick(t, i):
        return t[i]

    def k(a, b, out):
        for i in range(a.shape[0]):
            s, p, gt = stats(a[i], b[i])
            t = (s, p, 7)
            out[i, 0] = s
            out[i, 1] = p
            out[i, 2] = 1 if gt else 0
            out[i, 3] = pick(t, i % 3) + OFFSETS[1]

    a = _ints(16)
    b = _ints(16)
    out = np.zeros((16, 4), np.int64)
    gpu.run(k, [a, b, out])
    for i in range(16):
        x, y = int(a[i]), int(b[i])
        t = (x + y, x * y, 7)
        assert out[i].tolist() == [x + y, x * y, int(x > y), t[i % 3] + 20]


def test_array_layouts_and_attributes(gpu):
    def k(c, f, s, out):
        out[0] = c[1, 2] + f[1, 2] + s[1, 2]
        out[1] = c[-1, -1] + f[-1, 0] + s[0, -1]
        out[2] = c.size + f.shape[0] * 100 + s.shape[1] * 10000
        out[3] = s.strides[0] + s.strides[1] * 1000
        row = c[2]
        out[4] = row[3] + len(row) + c.ndim * 1000
        acc = 0.0
        for i in range(s.shape[0]):
            for j in range(s.shape[1]):
                acc += s[i, j]
        out[5] = acc

    base = np.arange(48, dtype=np.float64).reshape(6, 8)
    c = base.copy()
    f = np.asfortranarray(base)
    s = base[::2, 1::3]  # non-contiguous: layout 'A'
    out = np.zeros(6)
    gpu.run(k, [c, f, s, out])
    assert out[0] == c[1, 2] + f[1, 2] + s[1, 2]
    assert out[1] == c[-1, -1] + f[-1, 0] + s[0, -1]
    assert out[2] == c.size + f.shape[0] * 100 + s.shape[1] * 10000
    assert out[3] == s.strides[0] + s.strides[1] * 1000
    assert out[4] == c[2][3] + len(c[2]) + 2000
    assert out[5] == s.sum()


def test_stores_convert_like_numba(gpu):
    def k(x, i8, u8, f32, b):
        for i in range(x.shape[0]):
            i8[i] = int(x[i])
            u8[i] = i
            f32[i] = x[i] * 2
            b[i] = x[i] > 0

    x = RNG.uniform(-100, 100, 32)
    i8 = np.zeros(32, np.int8)
    u8 = np.zeros(32, np.uint8)
    f32 = np.zeros(32, np.float32)
    b = np.zeros(32, np.bool_)
    gpu.run(k, [x, i8, u8, f32, b])
    assert i8.tolist() == [int(v) for v in x.astype(np.int64).astype(np.int8)]
    assert u8.tolist() == list(range(32))
    np.testing.assert_array_equal(f32, (x * 2).astype(np.float32))
    assert b.tolist() == (x > 0).tolist()


def test_globals_closures_and_constant_arrays(gpu):
    scale = 2.5

    def k(out):
        for i in range(TABLE.shape[0]):
            out[i] = TABLE[i] * scale + OFFSETS[i % 3] + math.pi

    out = np.zeros(4)
    gpu.run(k, [out])
    np.testing.assert_allclose(out, TABLE * 2.5 + np.array([10, 20, 30, 10]) + math.pi)


def test_bool_ops_chained_comparisons_ternary(gpu):
    def k(a, out):
        for i in range(a.shape[0]):
            x = a[i]
            r = 0
            if 0 < x <= 10 and not (x == 5):
                r += 1
            if x < -20 or x > 20:
                r += 10
            r += 100 if x % 2 == 0 else 1000
            v = x and 7
            out[i] = r + v * 10000

    a = np.arange(-30, 30, dtype=np.int64)
    out = np.zeros(60, np.int64)
    gpu.run(k, [a, out])
    ref = []
    for x in a.tolist():
        r = (1 if 0 < x <= 10 and x != 5 else 0) + (10 if x < -20 or x > 20 else 0)
        r += 100 if x % 2 == 0 else 1000
        ref.append(r + (x and 7) * 10000)
    assert out.tolist() == ref


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_arithmetic(gpu, dtype):
    def k(a, b, out):
        for i in range(a.shape[0]):
            out[i, 0] = a[i] + b[i]
            out[i, 1] = a[i] - b[i]
            out[i, 2] = a[i] * b[i]
            out[i, 3] = a[i] / b[i]
            out[i, 4] = -a[i]

    n = 16
    a = (RNG.normal(size=n) + 1j * RNG.normal(size=n)).astype(dtype)
    b = (RNG.normal(size=n) + 1j * RNG.normal(size=n)).astype(dtype)
    out = np.zeros((n, 5), dtype)
    gpu.run(k, [a, b, out])
    rtol = 1e-5 if dtype == np.complex64 else 1e-13
    np.testing.assert_allclose(out[:, 0], a + b, rtol=rtol)
    np.testing.assert_allclose(out[:, 1], a - b, rtol=rtol)
    np.testing.assert_allclose(out[:, 2], a * b, rtol=rtol)
    np.testing.assert_allclose(out[:, 3], a / b, rtol=rtol)
    np.testing.assert_allclose(out[:, 4], -a, rtol=rtol)


def test_unsigned_and_bitwise(gpu):
    def k(a, b, out):
        for i in range(a.shape[0]):
            out[i, 0] = a[i] & b[i]
            out[i, 1] = a[i] | b[i]
            out[i, 2] = a[i] ^ b[i]
            out[i, 3] = a[i] >> 3
            out[i, 4] = (a[i] << 2) & 0xFFFF
            out[i, 5] = ~a[i] & 0xFF

    a = RNG.integers(0, 1 << 30, 16).astype(np.uint32)
    b = RNG.integers(0, 1 << 30, 16).astype(np.uint32)
    out = np.zeros((16, 6), np.uint64)
    gpu.run(k, [a, b, out])
    for i in range(16):
        x, y = int(a[i]), int(b[i])
        assert out[i].tolist() == [x & y, x | y, x ^ y, x >> 3, (x << 2) & 0xFFFF, ~x & 0xFF]


def test_record_arrays(gpu):
    rec = np.dtype([("x", np.float32), ("n", np.int32), ("w", np.float64)])

    def k(r, out):
        for i in range(r.shape[0]):
            out[i] = r[i].x * r[i].n + r[i]["w"]
            r[i].n = i * 2

    r = np.zeros(8, rec)
    r["x"] = np.arange(8)
    r["n"] = 3
    r["w"] = 0.5
    out = np.zeros(8)
    gpu.run(k, [r, out])
    np.testing.assert_allclose(out, np.arange(8) * 3 + 0.5)
    assert r["n"].tolist() == [2 * i for i in range(8)]


def test_lambda_device_function(gpu):
    sq = lambda v: v * v  # noqa: E731

    def k(a, out):
        for i in range(a.shape[0]):
            out[i] = sq(a[i]) + 1

    a = np.arange(10, dtype=np.float32)
    out = np.zeros(10, np.float32)
    gpu.run(k, [a, out])
    np.testing.assert_array_equal(out, a * a + 1)


@pytest.mark.nosim("compiled print formatting (vprintf renders floats as %f)")
def test_print_through_vprintf(gpu, capfd):
    def k(a, n):
        print("value", n, a[0], n > 2, "100%")

    gpu.run(k, [np.array([2.5], np.float32), np.int32(7)])
    out = capfd.readouterr().out
    assert "value 7 2.500000 True 100%" in out


def test_complex_constructor_two_args(gpu):
    def k(re, im, out):
        for i in range(re.shape[0]):
            out[i] = complex(re[i], im[i]) * 1j

    re = RNG.normal(size=8).astype(np.float32)
    im = RNG.normal(size=8).astype(np.float32)
    out = np.zeros(8, np.complex128)
    gpu.run(k, [re, im, out])
    np.testing.assert_allclose(out, (re.astype(np.float64) + 1j * im.astype(np.float64)) * 1j, rtol=1e-12)


@pytest.mark.parametrize("lo,hi,step", [(None, None, None), (2, 9, None), (-5, None, None), (None, None, 3),
                                        (8, 1, -2), (None, None, -1), (1, 100, 4), (7, 2, None)])
def test_slicing_1d_matches_python(gpu, lo, hi, step):
    src = {
        (False, False, False): "a[:]", (True, True, False): "a[lo:hi]", (True, False, False): "a[lo:]",
        (False, False, True): "a[::step]", (True, True, True): "a[lo:hi:step]",
    }[(lo is not None, hi is not None, step is not None)]
    a = np.arange(10, dtype=np.int64) * 10
    out = np.full(16, -1, np.int64)
    gpu.run(_from_source(src), [a, out, np.int64(lo or 0), np.int64(hi or 0), np.int64(step or 1)])
    ref = a[lo:hi:step]
    assert out[0] == len(ref)
    assert out[1:1 + len(ref)].tolist() == ref.tolist()


_SLICE_KERNELS = {}


def _from_source(expr):
    """A kernel ``v = <expr>`` defined from real source lines (compiled code needs source)."""
    import linecache

    fn = _SLICE_KERNELS.get(expr)
    if fn is None:
        name = f"<slice-kernel {expr}>"
        text = (f"def k(a, out, lo, hi, step):\n    v = {expr}\n    out[0] = len(v)\n"
                "    for i in range(v.shape[0]):\n        out[i + 1] = v[i]\n")
        linecache.cache[name] = (len(text), None, text.splitlines(True), name)
        ns = {}
        exec(compile(text, name, "exec"), ns)
        fn = _SLICE_KERNELS[expr] = ns["k"]
    return fn


def test_slicing_2d_rows_columns_and_views(gpu):
    def k(m, out):
        row = m[2, :]
        col = m[:, 3]
        sub = m[1:4, ::2]
        out[0] = row.shape[0] + col.shape[0] * 100 + sub.shape[0] * 10000 + sub.shape[1] * 1000000
        acc = 0.0
        for i in range(sub.shape[0]):
            for j in range(sub.shape[1]):
                acc += sub[i, j]
        out[1] = acc
        out[2] = row[-1] + col[-1]
        rev = m[::-1, 0]
        out[3] = rev[0] - rev[rev.shape[0] - 1]

    m = np.arange(30, dtype=np.float64).reshape(5, 6)
    out = np.zeros(4)
    gpu.run(k, [m, out])
    assert out[0] == 6 + 5 * 100 + 3 * 10000 + 3 * 1000000
    assert out[1] == m[1:4, ::2].sum()
    assert out[2] == m[2, -1] + m[-1, 3]
    assert out[3] == m[::-1, 0][0] - m[::-1, 0][-1]


def test_numpy_math_in_kernels(gpu):
    def k(x, out):
        for i in range(x.shape[0]):
            v = x[i]
            out[i, 0] = np.sqrt(np.abs(v)) + np.exp(v / 4)
            out[i, 1] = np.floor(v) + np.ceil(v) + np.trunc(v) + np.rint(v)
            out[i, 2] = np.arctan2(v, 2.0) + np.hypot(v, 3.0) + np.power(np.abs(v), 0.5)
            out[i, 3] = np.maximum(v, 0.5) + np.minimum(v, -0.5) + np.square(v)
            out[i, 4] = 1.0 if np.isnan(v) or np.isinf(v) else np.sin(v) + np.log1p(np.abs(v))

    x = np.linspace(-3.3, 3.3, 41).astype(np.float32)
    out = np.zeros((41, 5), np.float32)
    gpu.run(k, [x, out])
    v = x.astype(np.float32)
    ref = np.stack([
        np.sqrt(np.abs(v)) + np.exp(v / 4),
        np.floor(v) + np.ceil(v) + np.trunc(v) + np.rint(v),
        np.arctan2(v, np.float32(2.0)) + np.hypot(v, np.float32(3.0)) + np.power(np.abs(v), np.float32(0.5)),
        np.maximum(v, np.float32(0.5)) + np.minimum(v, np.float32(-0.5)) + np.square(v),
        np.sin(v) + np.log1p(np.abs(v)),
    ], axis=1)
    np.testing.assert_allclose(out, ref, rtol=2e-6, atol=2e-6)


WEIGHTS = (0.5, 2, 3.25)


def test_iteration_over_arrays_tuples_enumerate_zip(gpu):
    def k(a, m, out):
        s = 0.0
        for v in a:
            s += v
        out[0] = s
        t = 0.0
        for w in WEIGHTS:
            t += w
        out[1] = t
        acc = 0.0
        for i, v in enumerate(a, 1):
            acc += i * v
        out[2] = acc
        z = 0.0
        for x, y, j in zip(a, m[0], range(10, 0, -1)):
            z += x * y + j
        out[3] = z
        r = 0.0
        for row in m:
            for v in row:
                r += v
            if r > 1000.0:
                break
        out[4] = r
        n = 1
        for extent in m.shape:
            n *= extent
        out[5] = n

    a = np.arange(1, 8, dtype=np.float64)
    m = np.arange(20, dtype=np.float64).reshape(4, 5)
    out = np.zeros(6)
    gpu.run(k, [a, m, out])
    r = 0.0
    for row in m:
        r += row.sum()
        if r > 1000.0:
            break
    ref = [a.sum(), sum(WEIGHTS), sum(i * v for i, v in enumerate(a, 1)),
           sum(x * y + j for x, y, j in zip(a, m[0], range(10, 0, -1))), r, m.size]
    np.testing.assert_allclose(out, ref)


def test_slice_and_row_stores(gpu):
    def k(a, m, src):
        a[1:3] = 0
        a[-2:] = a[0]
        m[1] = src
        m[:, 0] = 7
        m[2:, 1:] = 1.5
        m[0, ::2] = src[:3]

    a = np.arange(10, dtype=np.float32)
    m = np.zeros((4, 5))
    src = np.arange(5, dtype=np.int32) * 10
    ra, rm = a.copy(), m.copy()
    ra[1:3] = 0
    ra[-2:] = ra[0]
    rm[1] = src
    rm[:, 0] = 7
    rm[2:, 1:] = 1.5
    rm[0, ::2] = src[:3]
    gpu.run(k, [a, m, src])
    np.testing.assert_array_equal(a, ra)
    np.testing.assert_array_equal(m, rm)
