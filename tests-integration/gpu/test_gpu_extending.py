"""The extension API on the GPU: numba's documented Interval example and the other
extension forms (overload, methods, properties, register_jitable, intrinsics with
LLVM IR and inline PTX, lower_constant, lower_cast) run and agree with Python."""

from __future__ import annotations

import math

import numpy as np
import pytest

from extensions import interval as X

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("the simulator runs kernels as Python: numba's simulator does "
                                                 "not support extension types either")]


@pytest.fixture
def cuda(gpu):
    from cudalite import cuda

    return cuda


def test_interval_built_and_read_in_a_kernel(cuda):
    @cuda.jit
    def f(r, x):
        iv = X.Interval(x[0], x[1])
        r[0] = iv.lo
        r[1] = iv.hi
        r[2] = iv.width
        r[3] = iv.contains(1.75)
        r[4] = iv.contains(9.0)

    x = np.array([1.5, 2.5])
    r = np.zeros(5)
    f[1, 1](r, x)
    np.testing.assert_equal(r, [1.5, 2.5, 1.0, 1.0, 0.0])


def test_interval_as_a_kernel_argument(cuda):
    @cuda.jit
    def f(r, iv, other):
        r[0] = iv.width + other.lo
        r[1] = iv.scaled().hi
        r[2] = iv.scaled(10.0).lo

    r = np.zeros(3)
    f[1, 1](r, X.Interval(2.0, 5.5), X.Interval(-1.0, 0.0))
    np.testing.assert_equal(r, [3.5 - 1.0, 11.0, 20.0])
    f[1, 1](r, X.Interval(0, 1), X.Interval(3, 4))  # ints in the members: converted to float64
    np.testing.assert_equal(r, [4.0, 2.0, 0.0])


def test_interval_through_a_device_function(cuda):
    @cuda.jit(device=True)
    def add(a, b):
        return X.Interval(a.lo + b.lo, a.hi + b.hi)

    @cuda.jit
    def f(r, a, b):
        s = add(a, b)
        r[0] = s.lo
        r[1] = s.hi

    r = np.zeros(2)
    f[1, 1](r, X.Interval(1.0, 2.0), X.Interval(10.0, 20.0))
    np.testing.assert_equal(r, [11.0, 22.0])


def test_overload_register_jitable_and_intrinsics(cuda):
    @cuda.jit
    def f(rf, ri, x, n):
        i = cuda.grid(1)
        if i < x.size:
            rf[i] = X.clamp(x[i], 0.0, 1.0) + X.hypot2(x[i], 2.0)
            ri[i, 0] = X.clamp(n[i], -3, 3)
            ri[i, 1] = X.popc_twice(n[i])
            ri[i, 2] = X.lane_id()

    x = np.linspace(-2, 2, 64)
    n = np.arange(-32, 32, dtype=np.int64)
    rf = np.zeros(64)
    ri = np.zeros((64, 3), dtype=np.int64)
    f[2, 32](rf, ri, x, n)
    np.testing.assert_allclose(rf, [X.clamp(v, 0.0, 1.0) + X.hypot2(v, 2.0) for v in x])
    np.testing.assert_equal(ri[:, 0], [X.clamp(int(v), -3, 3) for v in n])
    np.testing.assert_equal(ri[:, 1], [2 * bin(int(v) & (2**64 - 1)).count("1") for v in n])
    np.testing.assert_equal(ri[:, 2], np.arange(64) % 32)


def test_constant_and_cast(cuda):
    unit = X.Interval(0.25, 1.0)

    @cuda.jit
    def f(r, iv):
        r[0] = unit.width
        r[1] = unit.contains(0.5)
        r[2] = iv  # lower_cast: an Interval stored as a float is its width

    r = np.zeros(3)
    f[1, 1](r, X.Interval(1.0, 3.5))
    np.testing.assert_equal(r, [0.75, 1.0, 2.5])


def test_bad_member_value_is_a_clear_launch_error(cuda):
    @cuda.jit
    def f(r, iv):
        r[0] = iv.lo

    with pytest.raises(TypeError, match=r"member Interval.lo \(float64\)"):
        f[1, 1](np.zeros(1), X.Interval("a", 1.0))


def test_math_in_an_overload_matches_python(cuda):
    from cudalite.cuda.extending import overload

    def softplus(x):
        return math.log1p(math.exp(x))

    @overload(softplus)
    def ol_softplus(x):
        return lambda x: math.log1p(math.exp(x))

    @cuda.jit
    def f(r, x):
        i = cuda.grid(1)
        if i < x.size:
            r[i] = softplus(x[i])

    x = np.linspace(-5, 5, 100)
    r = np.zeros_like(x)
    f[1, 128](r, x)
    np.testing.assert_allclose(r, [softplus(v) for v in x], rtol=1e-14)


def test_operator_overload(cuda):
    @cuda.jit
    def f(r, a, b):
        s = a + b
        r[0] = s.lo
        r[1] = s.hi

    r = np.zeros(2)
    f[1, 1](r, X.Interval(1.0, 2.0), X.Interval(0.5, 4.0))
    np.testing.assert_equal(r, [1.5, 6.0])


def test_templates_keywords_and_targets(cuda):
    @cuda.jit
    def f(r, out, x, n, iv, a, b):
        r[0] = iv.middle  # AttributeTemplate + lower_getattr
        r[1] = X.fma3(x[0], x[1], 1.0)  # ConcreteTemplate + lower_builtin
        r[2] = X.first_of(n, x[0])  # AbstractTemplate
        r[3] = X.by_target()  # the CUDA-target overload, not the generic one
        X.defaults_and_kwargs(out, a, z=b)  # y: the overload's default

    r = np.zeros(4)
    out = np.zeros(2, dtype=np.int64)
    f[1, 1](r, out, np.array([2.0, 3.0]), np.int32(7), X.Interval(1.0, 4.0), 1, 2)
    np.testing.assert_equal(r, [2.5, 7.0, 7.0, 29.0])
    np.testing.assert_equal(out, [6, 2])  # numba-cuda's test_default_values_and_kwargs


def test_struct_model_local_array(cuda):
    from cudalite.cuda import types

    @cuda.jit("void(int32[::1], int32[::1])")
    def f(outx, outy):  # numba-cuda's test_localmem test_struct_model_type_arr
        arr = cuda.local.array(10, dtype=X.struct_model_type)
        for i in range(len(arr)):
            arr[i] = X.MyStruct(types.int32(i), types.int32(i * 2))
        for i in range(len(arr)):
            outx[i] = arr[i].x
            outy[i] = arr[i].y

    x = np.zeros(10, np.int32)
    y = np.zeros(10, np.int32)
    f[1, 1](x, y)
    np.testing.assert_equal(x, np.arange(10))
    np.testing.assert_equal(y, np.arange(10) * 2)


def test_comparison_and_unary_overloads(cuda):
    @cuda.jit
    def f(r, a, b):
        m = -a
        r[0] = m.lo
        r[1] = m.hi
        r[2] = a == b
        r[3] = a == a

    r = np.zeros(4)
    f[1, 1](r, X.Interval(1.0, 2.5), X.Interval(1.0, 3.0))
    np.testing.assert_equal(r, [-2.5, -1.0, 0.0, 1.0])


def test_template_methods(cuda):
    @cuda.jit
    def f(r, iv, x):
        s = iv.shifted(0.5)  # @bound_function + lower_builtin("Interval.shifted", ...)
        r[0] = s.lo
        r[1] = s.hi
        r[2] = iv.clamped(x[0])  # types.BoundFunction(ConcreteTemplate, ...)
        r[3] = iv.clamped(x[1])

    r = np.zeros(4)
    f[1, 1](r, X.Interval(1.0, 2.0), np.array([5.0, 1.25]))
    np.testing.assert_equal(r, [1.5, 2.5, 2.0, 1.25])
