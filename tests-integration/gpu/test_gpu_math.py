"""math, cmath and builtins on the GPU, compared with CPython (element by element).

Kernels run in one thread and loop over their inputs, so only the compiler is
under test.  Functions are passed to kernels through closure cells (frozen as
compile-time constants), so one kernel shape serves every function.  Each test
has at most one ``parametrize`` (the GPU-less compile check expands those).
"""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(20240607)
N = 64

# (function name, low, high) domains where the function is finite and well conditioned
UNARY_DOMAINS = {
    "acos": (-0.99, 0.99), "acosh": (1.0, 20.0), "asin": (-0.99, 0.99), "asinh": (-20.0, 20.0),
    "atan": (-20.0, 20.0), "atanh": (-0.99, 0.99), "cos": (-6.0, 6.0), "cosh": (-10.0, 10.0),
    "sin": (-6.0, 6.0), "sinh": (-10.0, 10.0), "tan": (-1.5, 1.5), "tanh": (-5.0, 5.0),
    "exp": (-20.0, 20.0), "expm1": (-2.0, 2.0), "exp2": (-20.0, 20.0), "log": (0.01, 100.0),
    "log10": (0.01, 100.0), "log1p": (-0.9, 10.0), "log2": (0.01, 100.0), "sqrt": (0.0, 100.0),
    "cbrt": (-100.0, 100.0), "erf": (-3.0, 3.0), "erfc": (-3.0, 3.0), "gamma": (0.1, 10.0),
    "lgamma": (2.5, 20.0), "fabs": (-10.0, 10.0), "degrees": (-7.0, 7.0),
    "radians": (-400.0, 400.0),
}
BINARY_DOMAINS = {
    "atan2": ((-5.0, 5.0), (-5.0, 5.0)), "copysign": ((-5.0, 5.0), (-5.0, 5.0)),
    "fmod": ((-50.0, 50.0), (0.5, 7.0)), "hypot": ((-50.0, 50.0), (-50.0, 50.0)),
    "pow": ((0.1, 10.0), (-3.0, 3.0)), "remainder": ((-50.0, 50.0), (0.5, 7.0)),
    "nextafter": ((-5.0, 5.0), (-5.0, 5.0)), "log": ((0.1, 100.0), (1.5, 10.0)),
}
# under the simulator (CUDALITE_ENABLE_CUDASIM=1) kernels call CPython's math/cmath on NumPy scalars
NOSIM_MATH = pytest.mark.nosim("compiled math semantics: CPython's math/cmath raise (domain, range, argument "
                               "type) where compiled code returns a value")
NOSIM_F32 = pytest.mark.nosim("compiled typing semantics: the simulator has no type inference")
TOL = {np.float32: dict(rtol=2e-6, atol=1e-6), np.float64: dict(rtol=1e-14, atol=1e-14)}


def _uniform(lo, hi, dtype=np.float64, n=N):
    return RNG.uniform(lo, hi, n).astype(dtype)


def _unary_kernel(fn):
    def k(x, out):
        for i in range(x.shape[0]):
            out[i] = fn(x[i])

    return k


def _binary_kernel(fn):
    def k(x, y, out):
        for i in range(x.shape[0]):
            out[i] = fn(x[i], y[i])

    return k


def _expect(fn, *cols):
    return np.array([fn(*(float(v) for v in vals)) for vals in zip(*cols)])


# -- math ------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", [(n, t) for n in UNARY_DOMAINS if hasattr(math, n)  # exp2, cbrt: 3.11+
                                  for t in (np.float32, np.float64)])
def test_math_unary(gpu, case):
    name, dtype = case
    fn = getattr(math, name)
    x = _uniform(*UNARY_DOMAINS[name], dtype=dtype)
    out = np.zeros(N, dtype)
    gpu.run(_unary_kernel(fn), [x, out])
    tol = dict(TOL[dtype])
    if dtype == np.float32 and name in ("gamma", "lgamma", "exp", "exp2", "cosh", "sinh"):
        tol["rtol"] = 1e-5  # float32 libdevice: a few ulps on large arguments
    np.testing.assert_allclose(out, _expect(fn, x).astype(dtype), **tol)


@pytest.mark.parametrize("name", ["sin", "exp", "sqrt", "log", "fabs", "tanh"])
def test_math_unary_float16(gpu, name):
    fn = getattr(math, name)
    lo, hi = UNARY_DOMAINS[name]
    x = _uniform(max(lo, -4.0), min(hi, 4.0), dtype=np.float16)
    out = np.zeros(N, np.float16)
    gpu.run(_unary_kernel(fn), [x, out])
    np.testing.assert_allclose(out.astype(np.float64), _expect(fn, x), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("name", ["sin", "sqrt", "exp", "log1p", "erf"])
def test_math_of_int_is_float64(gpu, name):
    fn = getattr(math, name)
    x = RNG.integers(0, 10, N).astype(np.int32)
    out = np.zeros(N, np.float64)
    gpu.run(_unary_kernel(fn), [x, out])
    np.testing.assert_allclose(out, _expect(fn, x), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("case", [pytest.param((n, t), marks=NOSIM_F32) if (n, t) == ("nextafter", np.float32)
                                  else (n, t) for n in BINARY_DOMAINS for t in (np.float32, np.float64)])
def test_math_binary(gpu, case):
    name, dtype = case
    fn = getattr(math, name)
    (xl, xh), (yl, yh) = BINARY_DOMAINS[name]
    x, y = _uniform(xl, xh, dtype), _uniform(yl, yh, dtype)
    out = np.zeros(N, dtype)
    gpu.run(_binary_kernel(fn), [x, y, out])
    if name == "nextafter":  # exact, in the argument's precision
        np.testing.assert_array_equal(out, np.nextafter(x, y))
        return
    tol = dict(TOL[dtype])
    if dtype == np.float32 and name in ("pow", "log"):
        tol["rtol"] = 1e-5
    np.testing.assert_allclose(out, _expect(fn, x, y).astype(dtype), **tol)


def test_math_fmod_remainder_copysign_signs(gpu):
    x = np.array([5.5, -5.5, 5.5, -5.5, 0.0, -0.0, 7.0, -7.0])
    y = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 2.0, 2.0])
    outs = [np.zeros(8) for _ in range(3)]

    def k(x, y, a, b, c):
        for i in range(x.shape[0]):
            a[i] = math.fmod(x[i], y[i])
            b[i] = math.remainder(x[i], y[i])
            c[i] = math.copysign(3.0, x[i])

    gpu.run(k, [x, y, *outs])
    for out, fn in zip(outs, (math.fmod, math.remainder, lambda a, b: math.copysign(3.0, a))):
        exp = _expect(fn, x, y)
        np.testing.assert_array_equal(out, exp)
        np.testing.assert_array_equal(np.signbit(out), np.signbit(exp))


@pytest.mark.parametrize("name", ["floor", "ceil", pytest.param("trunc", marks=NOSIM_MATH)])
def test_math_floor_ceil_trunc_return_int64(gpu, name):
    fn = getattr(math, name)
    x = np.concatenate([_uniform(-100.0, 100.0), [-2.5, -2.0, -0.5, -0.0, 0.5, 2.0, 2.5, 1e15]])
    x32 = x.astype(np.float32)
    out, out32 = np.zeros(x.size, np.int64), np.zeros(x.size, np.int64)
    xi = RNG.integers(-1000, 1000, x.size).astype(np.int32)
    outi = np.zeros(x.size, np.int64)

    def k(x, x32, xi, out, out32, outi):
        for i in range(x.shape[0]):
            out[i] = fn(x[i])
            out32[i] = fn(x32[i])
            outi[i] = fn(xi[i])

    gpu.run(k, [x, x32, xi, out, out32, outi])
    assert out.tolist() == [fn(float(v)) for v in x]
    assert out32.tolist() == [fn(float(v)) for v in x32]
    assert outi.tolist() == [fn(int(v)) for v in xi]


def test_math_predicates(gpu):
    x = np.array([0.0, -1.5, np.inf, -np.inf, np.nan, 1e308, 5e-324, -0.0])
    xi = np.array([0, 1, -5, 7, 2**40, -1, 3, 4], np.int64)
    outs = [np.zeros(x.size, np.bool_) for _ in range(9)]

    def k(x, xi, a, b, c, d, e, f, g, h, j):
        for i in range(x.shape[0]):
            x32 = np.float32(x[i])
            a[i] = math.isnan(x[i])
            b[i] = math.isinf(x[i])
            c[i] = math.isfinite(x[i])
            d[i] = math.isnan(x32)
            e[i] = math.isinf(x32)
            f[i] = math.isfinite(x32)
            g[i] = math.isnan(xi[i])
            h[i] = math.isinf(xi[i])
            j[i] = math.isfinite(xi[i])

    gpu.run(k, [x, xi, *outs])
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32)  # 1e308 -> inf, as np.float32() does in the kernel
    fns = (math.isnan, math.isinf, math.isfinite)
    exp = [[f(float(v)) for v in x] for f in fns] + [[f(float(v)) for v in x32] for f in fns] \
        + [[f(int(v)) for v in xi] for f in fns]
    assert [o.tolist() for o in outs] == exp


@NOSIM_MATH
def test_math_ldexp_frexp_modf(gpu):
    x = np.concatenate([_uniform(-1000.0, 1000.0, n=16), [0.0, 1.0, -0.75, 1e-300, 3.5]])
    e = RNG.integers(-10, 10, x.size).astype(np.int32)
    ld, fm, fe, mf, mi = (np.zeros(x.size), np.zeros(x.size), np.zeros(x.size, np.int32),
                          np.zeros(x.size), np.zeros(x.size))

    def k(x, e, ld, fm, fe, mf, mi):
        for i in range(x.shape[0]):
            ld[i] = math.ldexp(x[i], e[i])
            m, p = math.frexp(x[i])
            fm[i] = m
            fe[i] = p
            f, w = math.modf(x[i])
            mf[i] = f
            mi[i] = w

    gpu.run(k, [x, e, ld, fm, fe, mf, mi])
    assert ld.tolist() == [math.ldexp(float(a), int(b)) for a, b in zip(x, e)]
    assert list(zip(fm.tolist(), fe.tolist())) == [math.frexp(float(a)) for a in x]
    assert list(zip(mf.tolist(), mi.tolist())) == [math.modf(float(a)) for a in x]


def test_math_gcd(gpu):
    a = np.concatenate([RNG.integers(-500, 500, 40), [0, 0, 12, -12, 7, 2**40]]).astype(np.int64)
    b = np.concatenate([RNG.integers(-500, 500, 40), [0, 5, -18, -18, 0, 2**20 * 3]]).astype(np.int64)
    out, out3 = np.zeros(a.size, np.int64), np.zeros(a.size, np.int64)

    def k(a, b, out, out3):
        for i in range(a.shape[0]):
            out[i] = math.gcd(a[i], b[i])
            out3[i] = math.gcd(a[i], b[i], 30)

    gpu.run(k, [a, b, out, out3])
    assert out.tolist() == [math.gcd(int(x), int(y)) for x, y in zip(a, b)]
    assert out3.tolist() == [math.gcd(math.gcd(int(x), int(y)), 30) for x, y in zip(a, b)]


# -- cmath -----------------------------------------------------------------------------------
CMATH_UNARY = ("sqrt exp log log10 sin cos tan sinh cosh tanh asin acos atan asinh acosh "
               "atanh").split()


def _complex_inputs(dtype, n=N):
    z = RNG.uniform(-2.0, 2.0, n) + 1j * RNG.uniform(-2.0, 2.0, n)
    extra = [0.5, -0.5, 0.5j, -2j, 2.0 + 0j, -4.0 + 0j, 0.3 - 0.0j, 1e-3 + 1e-3j]
    return np.concatenate([z, extra]).astype(dtype)


@pytest.mark.parametrize("case", [(n, t) for n in CMATH_UNARY for t in (np.complex64, np.complex128)])
def test_cmath_unary(gpu, case):
    name, dtype = case
    fn = getattr(cmath, name)
    z = _complex_inputs(dtype)
    out = np.zeros(z.size, dtype)
    gpu.run(_unary_kernel(fn), [z, out])
    exp = np.array([fn(complex(v)) for v in z])
    if dtype == np.complex128:
        np.testing.assert_allclose(out, exp, rtol=1e-13, atol=1e-14)
    else:
        np.testing.assert_allclose(out, exp, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("name", [pytest.param(n, marks=NOSIM_MATH) if n in ("exp", "sin", "cos", "sinh", "cosh")
                                  else n for n in CMATH_UNARY])
def test_cmath_extreme_arguments(gpu, name):
    """Huge, tiny and near-unit-circle arguments take CPython's overflow-safe branches."""
    fn = getattr(cmath, name)
    z = np.array([1e200 + 1e200j, -1e200 + 3j, 3 - 1e200j, -1e160 - 1e160j, 1e-200 + 1e-200j,
                  1e-310 - 2e-310j, 0.9 + 0.3j, -0.6 - 0.8j, 700.5 + 1j, -705 - 2j, 400 + 0.5j,
                  -30 + 1e-5j, 1e-8 + 1e-8j, 0.999999 + 1e-9j])
    out = np.zeros(z.size, np.complex128)
    gpu.run(_unary_kernel(fn), [z, out])
    exp = []
    for v in z:
        try:
            exp.append(fn(complex(v)))
        except (OverflowError, ValueError):  # CPython raises where the value is +-inf
            exp.append(complex(math.nan, math.nan))
    exp = np.array(exp)
    ok = ~np.isnan(exp)
    np.testing.assert_allclose(out[ok], exp[ok], rtol=1e-13, atol=0)


@NOSIM_MATH
def test_cmath_sqrt_exp_special_values(gpu):
    z = np.array([-4 + 0j, complex(-4, -0.0), 0j, complex(0.0, -0.0), complex(math.inf, 0.0),
                  complex(3.0, math.inf), complex(-math.inf, 1.0), complex(-9.0, 0.0)])
    sq, ex = np.zeros(z.size, np.complex128), np.zeros(z.size, np.complex128)

    def k(z, sq, ex):
        for i in range(z.shape[0]):
            sq[i] = cmath.sqrt(z[i])
            ex[i] = cmath.exp(z[i])

    gpu.run(k, [z, sq, ex])
    exp_sq = np.array([cmath.sqrt(complex(v)) for v in z])
    np.testing.assert_array_equal(sq, exp_sq)
    np.testing.assert_array_equal(np.signbit(sq.imag), np.signbit(exp_sq.imag))
    assert ex[4] == complex(math.inf, 0.0)  # exp(inf + 0j) keeps the zero imaginary part
    np.testing.assert_allclose(ex[[0, 1, 2, 7]], [cmath.exp(complex(v)) for v in z[[0, 1, 2, 7]]],
                               rtol=1e-15)


def test_cmath_phase_polar_rect_log_base_predicates(gpu):
    z = _complex_inputs(np.complex128)
    w = _complex_inputs(np.complex128) + 3.0
    ph, pr, pp, rc, lb = (np.zeros(z.size), np.zeros(z.size), np.zeros(z.size),
                          np.zeros(z.size, np.complex128), np.zeros(z.size, np.complex128))

    def k(z, w, ph, pr, pp, rc, lb):
        for i in range(z.shape[0]):
            ph[i] = cmath.phase(z[i])
            r, p = cmath.polar(z[i])
            pr[i] = r
            pp[i] = p
            rc[i] = cmath.rect(r, p)
            lb[i] = cmath.log(z[i], w[i])

    gpu.run(k, [z, w, ph, pr, pp, rc, lb])
    np.testing.assert_allclose(ph, [cmath.phase(complex(v)) for v in z], rtol=1e-15)
    np.testing.assert_allclose(pr, [abs(complex(v)) for v in z], rtol=1e-15)
    np.testing.assert_allclose(pp, [cmath.polar(complex(v))[1] for v in z], rtol=1e-15)
    np.testing.assert_allclose(rc, z, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(lb, [cmath.log(complex(a), complex(b)) for a, b in zip(z, w)],
                               rtol=1e-13, atol=1e-14)


def test_cmath_predicates(gpu):
    z = np.array([1 + 1j, complex(math.nan, 0), complex(0, math.inf), complex(-math.inf, math.nan),
                  0j, complex(1e308, 1e308)])
    outs = [np.zeros(z.size, np.bool_) for _ in range(3)]

    def k(z, a, b, c):
        for i in range(z.shape[0]):
            a[i] = cmath.isnan(z[i])
            b[i] = cmath.isinf(z[i])
            c[i] = cmath.isfinite(z[i])

    gpu.run(k, [z, *outs])
    assert [o.tolist() for o in outs] == [[f(complex(v)) for v in z]
                                          for f in (cmath.isnan, cmath.isinf, cmath.isfinite)]


def test_complex_power(gpu):
    z = _complex_inputs(np.complex128)
    w = np.array([complex(RNG.uniform(-2, 2), RNG.uniform(-2, 2)) for _ in range(z.size)])
    w[:8] = [2, 3, -1, 0.5, 0, 1j, 2 + 0j, -2]
    out, out_f = np.zeros(z.size, np.complex128), np.zeros(z.size, np.complex128)

    def k(z, w, out, out_f):
        for i in range(z.shape[0]):
            out[i] = z[i] ** w[i]
            out_f[i] = z[i] ** 2.5

    gpu.run(k, [z, w, out, out_f])
    np.testing.assert_allclose(out, [complex(a) ** complex(b) for a, b in zip(z, w)],
                               rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(out_f, [complex(a) ** 2.5 for a in z], rtol=1e-13, atol=1e-13)


# -- builtins --------------------------------------------------------------------------------
def test_casts(gpu):
    x = np.array([-2.7, -0.5, 0.5, 2.7, 1e10, -0.0, np.nan, 3.0])
    ix, fx, bx, cx = (np.zeros(8, np.int64), np.zeros(8), np.zeros(8, np.bool_),
                      np.zeros(8, np.complex128))

    def k(x, ix, fx, bx, cx):
        for i in range(x.shape[0]):
            if not math.isnan(x[i]):
                ix[i] = int(x[i])
            fx[i] = float(ix[i])
            bx[i] = bool(x[i])
            cx[i] = complex(x[i])

    gpu.run(k, [x, ix, fx, bx, cx])
    assert ix.tolist() == [int(v) if v == v else 0 for v in x]
    assert fx.tolist() == [float(int(v)) if v == v else 0.0 for v in x]
    assert bx.tolist() == [bool(v) for v in x]
    np.testing.assert_array_equal(cx, x.astype(np.complex128))


def test_abs(gpu):
    i = np.array([-5, 0, 7, -(2**40), 3, -1, 1, -9], np.int64)
    i32 = i.astype(np.int32)
    f = np.array([-1.5, -0.0, 0.0, np.inf, -np.inf, 2.5, -1e-300, np.nan])
    z = np.array([3 + 4j, -3 - 4j, 0j, 1e200 + 1e200j, -1j, 2, 1e-200 + 1e-200j, -5 + 12j])
    oi, oi32, of, oz = np.zeros(8, np.int64), np.zeros(8, np.int32), np.zeros(8), np.zeros(8)

    def k(i, i32, f, z, oi, oi32, of, oz):
        for j in range(i.shape[0]):
            oi[j] = abs(i[j])
            oi32[j] = abs(i32[j])
            of[j] = abs(f[j])
            oz[j] = abs(z[j])

    gpu.run(k, [i, i32, f, z, oi, oi32, of, oz])
    assert oi.tolist() == [abs(int(v)) for v in i]
    assert oi32.tolist() == [abs(int(v)) for v in i32]
    np.testing.assert_array_equal(of, [abs(float(v)) for v in f])
    assert not np.signbit(of[1])
    np.testing.assert_allclose(oz, [abs(complex(v)) for v in z], rtol=1e-15)


def _fmin(x, y):
    """numba-cuda's two-float min: libdevice fmin (PTX min.f64): a NaN loses, -0.0 < 0.0."""
    if math.isnan(x) or math.isnan(y):
        return y if math.isnan(x) else x
    if x == y == 0.0:
        return -0.0 if math.copysign(1, x) < 0 or math.copysign(1, y) < 0 else 0.0
    return min(x, y)


def _fmax(x, y):
    if math.isnan(x) or math.isnan(y):
        return y if math.isnan(x) else x
    if x == y == 0.0:
        return 0.0 if math.copysign(1, x) > 0 or math.copysign(1, y) > 0 else -0.0
    return max(x, y)


@NOSIM_F32
def test_min_max_numba_semantics(gpu):
    """Two floats: numba-cuda's fmin/fmax (NaN-ignoring); three or more, or a tuple:
    Python's left-to-right comparisons (a NaN first stays)."""
    nan = math.nan
    a = np.array([1.0, nan, 2.0, nan, -0.0, 0.0, 3.0, -5.0])
    b = np.array([nan, 1.0, 1.0, nan, 0.0, -0.0, 3.0, 7.0])
    c = np.array([0.5, 0.5, nan, 1.0, 1.0, -1.0, 2.0, nan])
    outs = [np.zeros(8) for _ in range(6)]

    def k(a, b, c, mn, mx, mn3, mx3, mnt, mxt):
        for i in range(a.shape[0]):
            mn[i] = min(a[i], b[i])
            mx[i] = max(a[i], b[i])
            mn3[i] = min(a[i], b[i], c[i])
            mx3[i] = max(a[i], b[i], c[i])
            t = (a[i], b[i], c[i])
            mnt[i] = min(t)
            mxt[i] = max(t)

    gpu.run(k, [a, b, c, *outs])
    rows = list(zip(a.tolist(), b.tolist(), c.tolist()))
    exp = [[_fmin(x, y) for x, y, _ in rows], [_fmax(x, y) for x, y, _ in rows],
           [min(x, y, z) for x, y, z in rows], [max(x, y, z) for x, y, z in rows],
           [min((x, y, z)) for x, y, z in rows], [max((x, y, z)) for x, y, z in rows]]
    for out, e in zip(outs, exp):
        np.testing.assert_array_equal(out, e)
        np.testing.assert_array_equal(np.signbit(out), np.signbit(e))  # -0.0 vs 0.0 order


def test_min_max_ints(gpu):
    a, b = RNG.integers(-100, 100, N), RNG.integers(-100, 100, N).astype(np.int32)
    mn, mx = np.zeros(N, np.int64), np.zeros(N, np.int64)

    def k(a, b, mn, mx):
        for i in range(a.shape[0]):
            mn[i] = min(a[i], b[i])
            mx[i] = max(a[i], b[i], 0)

    gpu.run(k, [a, b, mn, mx])
    assert mn.tolist() == [min(int(x), int(y)) for x, y in zip(a, b)]
    assert mx.tolist() == [max(int(x), int(y), 0) for x, y in zip(a, b)]


def test_round_half_even(gpu):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 2.675, 0.49999999999999994, -7.3,
                  1e15 + 0.5, 123.456])
    x32 = x.astype(np.float32)
    r, r32 = np.zeros(x.size, np.int64), np.zeros(x.size, np.int64)
    r2, rm1, r2_32 = np.zeros(x.size), np.zeros(x.size), np.zeros(x.size, np.float32)

    def k(x, x32, r, r32, r2, rm1, r2_32):
        for i in range(x.shape[0]):
            r[i] = round(x[i])
            r32[i] = round(x32[i])
            r2[i] = round(x[i], 2)
            rm1[i] = round(x[i], -1)
            r2_32[i] = round(x32[i], 1)

    gpu.run(k, [x, x32, r, r32, r2, rm1, r2_32])
    assert r.tolist() == [round(float(v)) for v in x]
    assert r32.tolist() == [round(float(v)) for v in x32]
    np.testing.assert_allclose(r2, np.round(x, 2), rtol=1e-15)
    np.testing.assert_allclose(rm1, np.round(x, -1), rtol=1e-15)
    np.testing.assert_allclose(r2_32, np.round(x32.astype(np.float64), 1).astype(np.float32),
                               rtol=1e-6)


def test_round_int_ndigits(gpu):
    a = np.array([150, 250, -150, -250, 149, 151, 12345, -12355, 0, 7, 50, -50], np.int64)
    out, out0 = np.zeros(a.size, np.int64), np.zeros(a.size, np.int64)

    def k(a, out, out0):
        for i in range(a.shape[0]):
            out[i] = round(a[i], -2)
            out0[i] = round(a[i], 1)

    gpu.run(k, [a, out, out0])
    assert out.tolist() == [round(int(v), -2) for v in a]
    assert out0.tolist() == a.tolist()


def test_pow_builtin_and_operator(gpu):
    base = np.array([2, -3, 0, 1, -1, 5, 7, -2], np.int64)
    ex = np.array([10, 3, 0, 50, 7, 0, 5, 11], np.int64)
    fb = np.array([1.5, -2.0, 0.5, 10.0, -0.5, 3.0, 1.1, 2.0])
    fe = np.array([3, -2, 10, -3, 5, 0, 20, -1], np.int64)
    oi, op, of, of32 = np.zeros(8, np.int64), np.zeros(8, np.int64), np.zeros(8), \
        np.zeros(8, np.float32)

    def k(base, ex, fb, fe, oi, op, of, of32):
        for i in range(base.shape[0]):
            oi[i] = base[i] ** ex[i]
            op[i] = pow(base[i], ex[i])
            of[i] = fb[i] ** fe[i]
            of32[i] = np.float32(fb[i]) ** 3

    gpu.run(k, [base, ex, fb, fe, oi, op, of, of32])
    exp_i = [int(b) ** int(e) for b, e in zip(base, ex)]
    assert oi.tolist() == exp_i and op.tolist() == exp_i
    np.testing.assert_allclose(of, [float(b) ** int(e) for b, e in zip(fb, fe)], rtol=1e-15)
    np.testing.assert_allclose(of32, fb.astype(np.float32).astype(np.float64) ** 3, rtol=1e-6)


def test_float_pow_float(gpu):
    a, b = _uniform(0.1, 10.0), _uniform(-3.0, 3.0)
    out, outb = np.zeros(N), np.zeros(N)

    def k(a, b, out, outb):
        for i in range(a.shape[0]):
            out[i] = a[i] ** b[i]
            outb[i] = pow(a[i], b[i])

    gpu.run(k, [a, b, out, outb])
    exp = [float(x) ** float(y) for x, y in zip(a, b)]
    np.testing.assert_allclose(out, exp, rtol=1e-15)
    np.testing.assert_allclose(outb, exp, rtol=1e-15)


def test_floordiv_mod_divmod_negative_operands(gpu):
    ia = np.array([7, -7, 7, -7, 0, 13, -13, 6], np.int64)
    ib = np.array([2, 2, -2, -2, 3, -4, 4, -3], np.int64)
    fa = np.array([7.5, -7.5, 7.5, -7.5, 0.0, -0.0, 1.0, -1e-300])
    fb = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, -0.3, 5.0])
    iq, ir, dq, dr = (np.zeros(8, np.int64) for _ in range(4))
    fq, fr, gq, gr = (np.zeros(8) for _ in range(4))

    def k(ia, ib, fa, fb, iq, ir, dq, dr, fq, fr, gq, gr):
        for i in range(ia.shape[0]):
            iq[i] = ia[i] // ib[i]
            ir[i] = ia[i] % ib[i]
            q, r = divmod(ia[i], ib[i])
            dq[i] = q
            dr[i] = r
            fq[i] = fa[i] // fb[i]
            fr[i] = fa[i] % fb[i]
            s, t = divmod(fa[i], fb[i])
            gq[i] = s
            gr[i] = t

    gpu.run(k, [ia, ib, fa, fb, iq, ir, dq, dr, fq, fr, gq, gr])
    ints = list(zip(ia.tolist(), ib.tolist()))
    floats = list(zip(fa.tolist(), fb.tolist()))
    assert iq.tolist() == [a // b for a, b in ints] == dq.tolist()
    assert ir.tolist() == [a % b for a, b in ints] == dr.tolist()
    for out, e in ((fq, [a // b for a, b in floats]), (fr, [a % b for a, b in floats]),
                   (gq, [divmod(a, b)[0] for a, b in floats]),
                   (gr, [divmod(a, b)[1] for a, b in floats])):
        np.testing.assert_array_equal(out, e)
        np.testing.assert_array_equal(np.signbit(out), np.signbit(e))


def test_real_imag_conjugate(gpu):
    z = _complex_inputs(np.complex64, n=8)
    x = _uniform(-3, 3, n=z.size)
    i = RNG.integers(-9, 9, z.size).astype(np.int32)
    re, im, cj = np.zeros(z.size, np.float32), np.zeros(z.size, np.float32), \
        np.zeros(z.size, np.complex64)
    xr, xi, xc, ir_, ii = (np.ones(z.size), np.ones(z.size), np.ones(z.size),
                           np.ones(z.size, np.int64), np.ones(z.size, np.int64))

    def k(z, x, i, re, im, cj, xr, xi, xc, ir_, ii):
        for j in range(z.shape[0]):
            re[j] = z[j].real
            im[j] = z[j].imag
            cj[j] = z[j].conjugate()
            xr[j] = x[j].real
            xi[j] = x[j].imag
            xc[j] = x[j].conjugate()
            ir_[j] = i[j].real
            ii[j] = i[j].imag

    gpu.run(k, [z, x, i, re, im, cj, xr, xi, xc, ir_, ii])
    np.testing.assert_array_equal(re, z.real)
    np.testing.assert_array_equal(im, z.imag)
    np.testing.assert_array_equal(cj, np.conj(z))
    np.testing.assert_array_equal(xr, x)
    assert (xi == 0).all() and (ii == 0).all()
    np.testing.assert_array_equal(xc, x)
    assert ir_.tolist() == i.tolist()
