"""numba.cuda host-API behaviours on the GPU (issue 11, compat-api): int launch
arguments converted as numba converts them, int addresses for CPointer parameters,
kernels called from kernels, numba's exception prefix, default streams before any
other GPU use, compile_all's linked code, inspect_lto_ptx."""

from __future__ import annotations

import os

import numpy as np
import pytest

from cudalite import cuda, types

pytestmark = pytest.mark.gpu


def test_default_streams_synchronize_first():
    for make in (cuda.default_stream, cuda.legacy_default_stream, cuda.per_thread_default_stream):
        s = make()
        s.synchronize()
        assert s.query() is True


@cuda.jit("void(int32[::1], int32)")
def _store_i32(out, v):
    out[0] = v


@pytest.mark.nosim("compiled typing semantics: the simulator has no type inference")
def test_python_int_wraps_to_an_int32_parameter_as_numba():
    out = np.zeros(1, dtype=np.int32)
    for value, expect in ((0xFFFFFFFF, -1), (0x80000000, -2**31), (0x00100000, 0x00100000), (-3, -3)):
        _store_i32[1, 1](out, value)
        assert out[0] == expect


@cuda.jit(types.void(types.CPointer(types.uint8), types.uint32))
def _add_one(x, n):
    i = cuda.grid(1)
    if i < n:
        x[i] += 1


@pytest.mark.nosim("raw device pointers: an int address passed for a CPointer parameter")
def test_int_address_for_a_cpointer_parameter():
    x = cuda.to_device(np.arange(10, dtype=np.uint8))
    _add_one[1, 32](x.__cuda_array_interface__["data"][0], len(x))
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(1, 11, dtype=np.uint8))


@cuda.jit
def _set_first(a):
    a[0] = 0


@cuda.jit
def _twice(v):
    return v * 2


@cuda.jit
def _calls_kernels(a):
    _set_first(a)
    a[1] = _twice(a[1])


def test_kernel_called_from_a_kernel_runs_as_a_device_function():
    a = np.array([5, 21, 7], dtype=np.int32)
    _calls_kernels[1, 1](a)
    np.testing.assert_array_equal(a, [0, 42, 7])


class _MyError(Exception):
    pass


@cuda.jit("void(int32)", debug=True, opt=False)
def _raises(x):
    if x == 2:
        raise _MyError("foo")


@pytest.mark.nosim("compiled-code error semantics: the simulated kernel raises Python's own errors")
def test_kernel_exception_has_numbas_location_prefix():
    _raises[1, 1](0)
    with pytest.raises(_MyError) as ei:
        _raises[1, 1](2)
    line = _raises.py_func.__code__.co_firstlineno + 3
    assert str(ei.value) == (f"In function '_raises', file {os.path.abspath(__file__)}, line {line}, "
                             "tid=[0, 0, 0] ctaid=[0, 0, 0]: foo")


@pytest.mark.nosim("linking CUDA C/C++, PTX, cubins or LTO-IR (FFI)")
def test_compile_all_code_links_and_runs(tmp_path):
    from cudalite.linker import Linker, PTXSource

    cu = tmp_path / "times3.cu"
    cu.write_text('extern "C" __device__ int times3(int *out, int x) { *out = x * 3; return 0; }\n')
    times3 = cuda.declare_device("times3", "int32(int32)", link=[str(cu)])

    def kern(r, x):
        r[0] = times3(x)

    cc = cuda.get_current_device().compute_capability
    codes, _ = cuda.compile_all(kern, "void(int32[::1], int32)", device=False, abi="numba", output="ptx", cc=cc)
    assert len(codes) == 2
    cubin = Linker(cc).add(PTXSource(codes[0]), PTXSource(codes[1])).link()
    assert bytes(cubin.data)[:4] == b"\x7fELF"


@pytest.mark.nosim("PTX/SASS inspection")
def test_inspect_lto_ptx_of_a_launched_kernel():
    sig = (types.float32[::1], types.float32)

    @cuda.jit(sig)
    def square(r, x):
        r[0] = x * x

    r = np.zeros(1, dtype=np.float32)
    square[1, 1](r, np.float32(3))
    assert r[0] == 9
    ptx = square.inspect_lto_ptx(sig)
    assert ".entry" in ptx and ("mul.f32" in ptx or "mul.rn.f32" in ptx)


_REC = np.dtype([("a", np.float64), ("b", np.int32)], align=True)


@cuda.jit
def _rec_update(r, v):
    r.b = v
    r.a = r.a * 2.0


def test_record_scalar_is_passed_by_reference_and_copied_back():
    arr = np.zeros(3, dtype=_REC)
    arr["a"] = [1.0, 2.5, 4.0]
    _rec_update[1, 1](arr[1], 7)
    np.testing.assert_array_equal(arr["a"], [1.0, 5.0, 4.0])
    np.testing.assert_array_equal(arr["b"], [0, 7, 0])
    rec = arr.view(np.recarray)[2]
    _rec_update[1, 1](rec, -1)
    assert arr[2]["a"] == 8.0 and arr[2]["b"] == -1
