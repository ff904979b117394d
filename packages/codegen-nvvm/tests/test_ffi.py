"""Foreign device functions: declarations, ABIs, link-list propagation, the
extension protocol and cffi pointers (GPU-less: PTX and typing only)."""

from __future__ import annotations

import re

import cffi
import pytest

from cudalite import nvvm as cuda
from cudalite.core.errors import SignatureError, TypingError
from cudalite.core.ffi import declare_device
from cudalite.nvvm.api import make_options
from cudalite.nvvm.pipeline import EntrySpec, run_pipeline

ffi = cffi.FFI()
mul = declare_device("mul_f32", "float32(float32, float32)", link="mul.cu")
cadd = declare_device("cadd", "float32(float32, float32)", abi="c", link=["cadd.cu", "common.cu"])
reduce_sum = declare_device("sum_reduce", "float32(CPointer(float32), int64)", link="sum.ptx")
also_common = declare_device("other", "int32(int32)", abi="c", link="common.cu")


def level2(x):
    return mul(x, 2.0)


def level1(x):
    return level2(x) + 1


class Scaler:
    """An extension object: typing and link code depend on the argument type."""

    def __cudalite_declare__(self, *argtypes):
        t = argtypes[0]
        return declare_device(f"scale_{t}", f"{t}({t})", abi="c")

    def __numba_cuda_link__(self, *argtypes):
        return [f"scale_{argtypes[0]}.cu"]


scaler = Scaler()


def kernel(a, out):
    i = cuda.grid(1)
    out[i] = level1(a[i]) + cadd(a[i], 1) + reduce_sum(ffi.from_buffer(a), a.size) + scaler(a[i])
    out[0] += also_common(3)


def _compile(fn, sig):
    return run_pipeline(fn, sig, EntrySpec(device=False), make_options(cc=(9, 0)))


def test_links_propagate_through_device_functions_and_deduplicate(assemble):
    res = _compile(kernel, "void(float32[::1], float32[::1])")
    assert res.link_items == ("mul.cu", "cadd.cu", "common.cu", "sum.ptx", "scale_float32.cu")


def test_abis_of_foreign_calls():
    ptx = re.sub(r"\s+", " ", _compile(kernel, "void(float32[::1], float32[::1])")["ptx"].data)
    # numba ABI: status code returned, value through the first (pointer) parameter
    assert re.search(r"\.extern \.func \(\.param \.b32 func_retval0\) mul_f32 \( \.param \.b64 \w+, "
                     r"\.param \.b32 \w+, \.param \.b32 \w+ \)", ptx)
    # C ABI: the value is returned directly
    assert re.search(r"\.extern \.func \(\.param \.b32 func_retval0\) cadd \( \.param \.b32 \w+, "
                     r"\.param \.b32 \w+ \)", ptx)
    assert "scale_float32" in ptx and "sum_reduce" in ptx


def test_extension_specialises_per_argument_type():
    def k(a):
        a[0] = scaler(a[0])

    res = _compile(k, "void(float64[::1])")
    assert res.link_items == ("scale_float64.cu",)
    assert "scale_float64" in res["ptx"].data


def test_wrong_argument_types_point_at_the_call():
    def bad(a):
        a[0] = cadd(a, 1)

    with pytest.raises(TypingError) as ei:
        _compile(bad, "void(float32[::1])")
    msg = str(ei.value)
    assert "argument 1 of 'cadd' must be float32, not array(float32, 1d, C)" in msg
    assert f":{bad.__code__.co_firstlineno + 1}:" in msg


def test_wrong_argument_count():
    def bad(a):
        a[0] = mul(a[0])

    with pytest.raises(TypingError, match=r"takes 2 argument\(s\)"):
        _compile(bad, "void(float32[::1])")


def test_bad_declarations():
    with pytest.raises(SignatureError, match="return type"):
        declare_device("f", "(float32,)")
    with pytest.raises(SignatureError, match="abi"):
        declare_device("f", "float32(float32)", abi="fortran")
    with pytest.raises(SignatureError, match="not a valid C symbol"):
        declare_device("my func", "float32(float32)")


def test_from_buffer_gives_a_typed_pointer():
    def k(a, out):
        p = ffi.from_buffer(a)
        out[0] = p[3] + p[0]

    res = _compile(k, "void(float64[::1], float64[::1])")
    assert "ld.global.f64" in res["ptx"].data or "ld.f64" in res["ptx"].data
