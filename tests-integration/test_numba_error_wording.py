"""numba-cuda's exception types and wording where a program ported from numba checks
them, kept inside cudalite's own messages (GPU-less: the compile API and the launch
configuration, no device needed).

- ``compile``/``compile_ptx``/``compile_all``: ``NotImplementedError`` for an unknown
  ABI or output and for the C ABI asked of a kernel; numba's ``(major, minor, suffix)``
  compute capability (``(9, 0, "a")``: sm_90a) compiles for that target.
- ``cuda.shared.array``/``cuda.local.array`` arguments that do not type: cudalite's
  located message, then numba's "No implementation of function ... found for
  signature"; an unknown dtype string is numba's "Invalid NumPy dtype specified".
- ``kernel[griddim, blockdim]``: numba's "must be a sequence of 1, 2 or 3 integers".
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("llvmlite")

from cudalite import cuda  # noqa: E402
from cudalite.core.errors import TypingError  # noqa: E402
from cudalite.types import complex128, float32, int32, uint32, void  # noqa: E402


def _add(x, y):
    return x + y


def _targets(ptx):
    return [line.strip() for line in ptx.splitlines() if line.startswith(".target")]


# -- the compile API -------------------------------------------------------------------
@pytest.mark.parametrize("compile_fn", [
    lambda **kw: cuda.compile_ptx(_add, (int32, int32), **kw),
    lambda **kw: cuda.compile(_add, (int32, int32), **kw),
    lambda **kw: cuda.compile_all(_add, (int32, int32), output="ptx", **kw),
], ids=["compile_ptx", "compile", "compile_all"])
def test_unsupported_abi_is_not_implemented(compile_fn):
    with pytest.raises(NotImplementedError, match=r"^Unsupported ABI: fastcall \(the ABI is 'numba' or 'c'\)$"):
        compile_fn(abi="fastcall")


@pytest.mark.parametrize("compile_fn", [
    lambda **kw: cuda.compile_ptx(_add, (int32, int32), **kw),
    lambda **kw: cuda.compile(_add, (int32, int32), **kw),
    lambda **kw: cuda.compile_all(_add, (int32, int32), output="ptx", **kw),
], ids=["compile_ptx", "compile", "compile_all"])
def test_c_abi_kernel_is_not_implemented(compile_fn):
    with pytest.raises(NotImplementedError, match=r"^The C ABI is not supported for kernels: the C ABI is for "
                                                  r"device functions only; compile kernels with abi='numba'$"):
        compile_fn(abi="c", device=False)


@pytest.mark.parametrize("compile_fn", [cuda.compile, cuda.compile_all], ids=["compile", "compile_all"])
def test_unknown_output_is_not_implemented(compile_fn):
    with pytest.raises(NotImplementedError,
                       match=r"^Unsupported output type: illegal \(the output is 'ptx' or 'ltoir'\)$"):
        compile_fn(_add, int32(int32, int32), device=True, abi="c", output="illegal")


@pytest.mark.parametrize("cc, target", [((9, 0, "a"), "sm_90a"), ([9, 0, "a"], "sm_90a"),
                                        ((10, 0, "f"), "sm_100f"), ((9, 0, ""), "sm_90")])
def test_arch_specific_cc_tuple_compiles_for_that_target(cc, target):
    ptx, resty = cuda.compile_ptx(lambda: None, (), cc=cc)
    assert _targets(ptx) == [f".target {target}"] and resty == void
    ptx, _ = cuda.compile(_add, (int32, int32), cc=cc, abi="numba")
    assert _targets(ptx) == [f".target {target}"]
    codes, _ = cuda.compile_all(_add, (int32, int32), cc=cc, abi="numba", output="ptx")
    assert _targets(codes[0]) == [f".target {target}"]
    code, _ = cuda.compile(_add, (int32, int32), cc=cc, abi="numba", output="ltoir")
    assert isinstance(code, bytes) and code


@pytest.mark.parametrize("cc, why", [
    ((8, 0, "a"), r"the arch-specific suffix 'a' needs compute capability 9\.0 or newer"),
    ((9, 0, "f"), r"the family-specific suffix 'f' needs compute capability 10\.0 or newer"),
    ((9, 0, "x"), r"the suffix is '', 'a' \(arch-specific\) or 'f' \(family-specific\)"),
    ((9.0, 0, "a"), r"major and minor must be ints"),
])
def test_bad_arch_specific_cc_tuple(cc, why):
    with pytest.raises(ValueError, match=rf"^invalid compute capability .*: {why}$"):
        cuda.compile_ptx(lambda: None, (), cc=cc)




# -- shared and local arrays -------------------------------------------------------------
def _shared_scalar_shape(a):
    s = cuda.shared.array(shape=a[0], dtype=float32)  # noqa: F841


def _shared_tuple_shape(a):
    s = cuda.shared.array(shape=(1, a[0]), dtype=float32)  # noqa: F841


def _shared_int33(x):
    s = cuda.shared.array(10, dtype="int33")
    s[0] = x[0]


def _local_int33(x):
    s = cuda.local.array(10, dtype="int33")
    s[0] = x[0]


def _local_object(x):
    s = cuda.local.array(10, dtype="O")
    s[0] = x[0]


def _compile_error(fn, sig):
    with pytest.raises(TypingError) as info:
        cuda.compile_ptx(fn, sig, cc=(9, 0))
    return str(info.value)


@pytest.mark.parametrize("sig, shown", [((float32[:],), "float32"), ((int32[:],), "int32")])
def test_shared_array_runtime_scalar_shape(sig, shown):
    msg = _compile_error(_shared_scalar_shape, sig)
    assert msg.endswith(
        f"TypingError: cuda.shared.array(): the shape must be a compile-time constant int or tuple of ints, not a "
        f"runtime {shown}\n"
        "No implementation of function Function(<function shared.array>) found for signature:\n \n"
        f" >>> array(shape={shown}, dtype=class(float32))")
    assert "cuda.shared.array(shape=a[0], dtype=float32)" in msg  # located at the call


def test_shared_array_runtime_tuple_shape():
    msg = _compile_error(_shared_tuple_shape, (int32[:],))
    assert msg.endswith(" >>> array(shape=Tuple(int64, int32), dtype=class(float32))")
    assert "not a runtime Tuple(int64, int32)" in msg


@pytest.mark.parametrize("fn, name", [(_shared_int33, "shared"), (_local_int33, "local")])
def test_invalid_dtype_string(fn, name):
    msg = _compile_error(fn, (int32[::1],))
    assert msg.endswith(
        f"TypingError: cuda.{name}.array(): Invalid NumPy dtype specified: 'int33' (NumPy has no dtype of that "
        f"name)\nNo implementation of function Function(<function {name}.array>) found for signature:\n \n"
        " >>> array(shape=Literal[int](10), dtype=Literal[str](int33))")


def test_numpy_dtype_cudalite_cannot_hold():
    assert np.dtype("O") == object  # NumPy knows it: not "Invalid NumPy dtype", but not an array element either
    msg = _compile_error(_local_object, (int32[::1],))
    assert "cuda.local.array(): 'O' is not a supported array dtype\n" in msg
    assert "Invalid NumPy dtype" not in msg


# -- launch configurations -------------------------------------------------------------
def _noop(x):
    pass


@pytest.mark.parametrize("config, exc, msg", [
    (((1, 2, 3, 4), (5, 6)), ValueError,
     "griddim must be a sequence of 1, 2 or 3 integers, got [1, 2, 3, 4] (4 dimensions)"),
    (((1, 2), (3, 4, 5, 6)), ValueError,
     "blockdim must be a sequence of 1, 2 or 3 integers, got [3, 4, 5, 6] (4 dimensions)"),
    ((2.0, 3), TypeError, "griddim must be a sequence of integers, got [2.0] (2.0 is a float, not an int)"),
    ((2, 3.0), TypeError, "blockdim must be a sequence of integers, got [3.0] (3.0 is a float, not an int)"),
    ((2, [3, None]), TypeError,
     "blockdim must be a sequence of integers, got [3, None] (None is a NoneType, not an int)"),
])
def test_launch_dimension_messages(config, exc, msg):
    k = cuda.jit(_noop)
    with pytest.raises(exc) as info:
        k[config]
    assert str(info.value) == msg


def test_kernel_returning_a_value_is_a_type_error():
    def f(x, y):
        return x[0] + y[0]

    for compile_fn in (lambda: cuda.compile_ptx(f, (uint32[::1], uint32[::1])),
                       lambda: cuda.compile_all(f, (uint32[::1], uint32[::1]), device=False, abi="numba",
                                                output="ptx")):
        with pytest.raises(TypeError, match="must have void return type") as info:
            compile_fn()
        assert isinstance(info.value, TypingError)
        assert str(info.value).endswith(
            "TypingError: kernel test_kernel_returning_a_value_is_a_type_error.<locals>.f returns a uint64 value; "
            "kernels must return None (to return a value, make it a device function: @cuda.jit(device=True), "
            "called from a kernel); a CUDA kernel must have void return type")


def test_eager_device_function_without_a_fitting_signature():
    def add(x, y):
        return x + y

    add_device = cuda.jit(["(int64, int64)", "(float64, float64)"], device=True)(add)

    def k(r, x, y):
        r[0] = add_device(x, y)

    msg = _compile_error(k, (complex128[::1], complex128, complex128))
    assert "TypingError: Invalid use of type(<function " in msg
    assert msg.endswith(") with parameters (complex128, complex128): No matching definition for argument type(s) "
                        "complex128, complex128 of device function "
                        "test_eager_device_function_without_a_fitting_signature.<locals>.add; its signatures are: "
                        "(int64, int64); (float64, float64)")
