"""GPU-less tests of ``cuda.reduce`` / ``cuda.Reduce``: construction (lambdas,
decorated functions, device functions), argument validation before any device
work, and the generated reduction kernels compiling to PTX for each dtype."""

import numpy as np
import pytest

from cudalite import cuda
from cudalite.cuda._dispatch.device import DeviceDispatcher
from cudalite.cuda import Reduce

SIG = "void({t}[{lay}], int64, {t}[::1], {t}, int64)"


@cuda.reduce
def sum_reduce(a, b):
    """Adds two numbers."""
    return a + b


@cuda.jit(device=True)
def dev_min(a, b):
    return min(a, b)


def test_exports_and_alias():
    assert cuda.reduce is cuda.Reduce is Reduce
    assert isinstance(sum_reduce, Reduce)
    assert sum_reduce.__name__ == "sum_reduce"
    assert "Adds two numbers" in sum_reduce.__doc__
    assert "sum_reduce" in repr(sum_reduce)


def test_lambda_and_device_function():
    r = cuda.reduce(lambda a, b: a * b)
    assert isinstance(r._device_fn, DeviceDispatcher)
    m = cuda.Reduce(dev_min)
    assert m._device_fn is dev_min


@pytest.mark.parametrize("bad", [1, "a + b", None])
def test_rejects_non_functions(bad):
    with pytest.raises(TypeError, match="cuda.reduce"):
        cuda.reduce(bad)


def test_rejects_wrong_arity_and_kernels():
    with pytest.raises(TypeError, match="two arguments"):
        cuda.reduce(lambda a: a)
    with pytest.raises(TypeError, match="two arguments"):
        cuda.reduce(lambda a, b, c: a)

    @cuda.jit
    def kern(a, b):
        pass

    with pytest.raises(TypeError, match="not a kernel"):
        cuda.reduce(kern)


def test_argument_validation_before_device_work():
    a = np.arange(10, dtype=np.float32)
    with pytest.raises(ValueError, match="1-d"):
        sum_reduce(np.ones((2, 3)))
    with pytest.raises(ValueError, match="exceeds"):
        sum_reduce(a, size=11)
    with pytest.raises(ValueError, match="negative"):
        sum_reduce(a, size=-1)
    with pytest.raises(TypeError, match="size"):
        sum_reduce(a, size=2.5)
    with pytest.raises(TypeError, match="res must be a device array"):
        sum_reduce(a, res=np.zeros(1, np.float32))


def test_empty_input_gives_init_without_a_device():
    a = np.arange(10, dtype=np.int32)
    got = sum_reduce(a, size=0, init=7)
    assert got == 7 and got.dtype == np.int32
    got = sum_reduce(np.zeros(0, np.float64))
    assert got == 0.0 and got.dtype == np.float64


def test_kernels_cached_per_dtype():
    r = cuda.reduce(lambda a, b: a + b)
    k32 = r._kernel(np.float32)
    assert r._kernel(np.dtype("float32")) is k32
    assert r._kernel(np.float64) is not k32


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("layout", ["::1", ":"])
def test_kernels_compile_to_ptx(dtype, layout):
    ptx = sum_reduce._kernel(np.dtype(dtype)).compile_ptx_for(SIG.format(t=dtype, lay=layout), cc=(9, 0))
    assert ".entry" in ptx and "bar.sync" in ptx and ".shared" in ptx


def test_different_functors_give_different_kernels():
    sig = SIG.format(t="float32", lay="::1")
    add = cuda.reduce(lambda a, b: a + b)._kernel(np.float32).compile_ptx_for(sig, cc=(9, 0))
    mul = cuda.reduce(lambda a, b: a * b)._kernel(np.float32).compile_ptx_for(sig, cc=(9, 0))
    assert "mul.f32" in mul or "mul.rn.f32" in mul
    assert "mul.f32" not in add and "mul.rn.f32" not in add


def test_minimum_device_function_compiles():
    sig = SIG.format(t="int64", lay="::1")
    ptx = cuda.Reduce(dev_min)._kernel(np.int64).compile_ptx_for(sig, cc=(9, 0))
    assert "min.s64" in ptx or "setp" in ptx
