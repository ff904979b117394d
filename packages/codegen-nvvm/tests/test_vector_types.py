"""CUDA vector types (``cuda.float32x4``, ``cuda.int2``, ...), GPU-less: typing, the
NVVM IR and PTX, and the foreign-call ABI (CUDA C's ``float4`` by value with its
alignment, checked against NVRTC's own PTX and through an nvJitLink LTO link)."""

from __future__ import annotations

import re
import struct

import pytest

from cudalite import nvvm as cuda
from cudalite.core.errors import CompilerError, TypingError
from cudalite.core.ffi import declare_device
from cudalite.core.types import cuda_alignment, float32, parse_signature, vector_types
from cudalite.nvvm import compile_stages


def _stages(f, sig, device=False, **kw):
    """Each stage's output: text (str) or bytes."""
    return {k: a.data for k, a in compile_stages(f, sig, device=device, **kw).items()}


# -- names ---------------------------------------------------------------------------------------
def test_all_numba_names_and_aliases_are_the_same_objects():
    bases = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
    assert len(vector_types) == 40
    for b in bases:
        for n in (1, 2, 3, 4):
            ctor = getattr(cuda, f"{b}x{n}")
            assert ctor.vector_type == vector_types[f"{b}x{n}"]
            assert ctor.vector_type.num_elements == n and ctor.vector_type.attr_names == tuple("xyzw"[:n])
            for alias in ctor.aliases:
                assert getattr(cuda, alias) is ctor
    assert cuda.float4 is cuda.float32x4 and cuda.double2 is cuda.float64x2 and cuda.uchar4 is cuda.uint8x4
    assert cuda.short2 is cuda.int16x2 and cuda.longlong3 is cuda.int64x3 and cuda.char1 is cuda.int8x1
    assert cuda.long4 is cuda.int64x4 and cuda.ulong2 is cuda.uint64x2  # 64-bit Linux, as numba-cuda
    with pytest.raises(RuntimeError, match="only be used in device code"):
        cuda.float32x4(1, 2, 3, 4)


def test_cuda_alignment_is_vector_types_h():
    want = {"float32x4": 16, "float32x3": 4, "float32x2": 8, "float32x1": 4, "int8x4": 4, "int8x3": 1,
            "int16x2": 4, "int16x4": 8, "float64x4": 16, "float64x3": 8, "float64x2": 16, "int64x4": 16}
    assert {n: cuda_alignment(vector_types[n]) for n in want} == want


def test_signature_strings_accept_vector_names():
    assert parse_signature("float32(float4, int32x2)") == (float32, (vector_types["float32x4"],
                                                                    vector_types["int32x2"]))


# -- construction and components -----------------------------------------------------------------
def fancy(out, a, b):
    one = cuda.float32x1(a)
    v2 = cuda.float32x2(one, b)
    v3 = cuda.float32x3(b, v2)
    v4 = cuda.float32x4(v2, v2)
    w4 = cuda.float4(3, v3)
    out[0] = v4.x + v4.y * 10 + v4.z * 100 + v4.w * 1000
    out[1] = w4.x + w4.y * 10 + w4.z * 100 + w4.w * 1000
    out[2] = v3.z


def test_fancy_construction_types_and_lowers():
    r = _stages(fancy, "void(float64[::1], float32, float32)")
    typed = str(r["typed-ir"])
    assert "v3 = float32x3" in typed and "w4 = float32x4" in typed
    assert "cuda.float32x4 :: float32x4(float32x2, float32x2)" in typed
    assert "cuda.float32x4 :: float32x4(float32, float32x3)" in typed  # the int 3 converts to float32
    assert "{float, float, float, float}" in str(r["nvvm-ir"])


def consts(out):
    v = cuda.int2(7, 9)
    u = cuda.uchar4(1, 2, cuda.uchar2(3, 4))
    out[0] = v.x * 100 + v.y
    out[1] = u.x + u.y * 10 + u.z * 100 + u.w * 1000


def test_constants_fold_through_components():
    ptx = _stages(consts, "void(int64[::1])")["ptx"]
    assert "709" in ptx and "4321" in ptx


def swap(v):
    return cuda.double2(v.y, v.x)


def calls_device_function(out, a, b):
    r = swap(cuda.double2(a, b))
    out[0] = r.x
    out[1] = r.y


def test_passed_to_and_returned_from_device_functions():
    r = _stages(calls_device_function, "void(float64[::1], float64, float64)")
    assert "swap :: float64x2(float64x2)" in str(r["typed-ir"])
    assert "{double, double}" in str(r["nvvm-ir"])
    with pytest.raises(CompilerError, match="a float64x2 cannot be an argument of a kernel or an exported"):
        _stages(swap, (vector_types["float64x2"],), device=True)  # exported: flat C parameters only


def iterate(out):
    for v in (cuda.int2(1, 2), cuda.int2(3, 4)):
        out[0] += v.x * v.y


def test_tuples_of_vectors_iterate():
    ptx = _stages(iterate, "void(int64[::1])")["ptx"]
    assert "14" in ptx


# -- refusals (located, typed errors) -----------------------------------------------------------------
def too_few(out):
    out[0] = cuda.float32x4(1.0, 2.0, 3.0).x


def wrong_base(out):
    out[0] = cuda.float32x4(cuda.int2(1, 2), 3.0, 4.0).x


def store_component(out):
    v = cuda.float32x2(1.0, 2.0)
    v.y = 3.0
    out[0] = v.x


def missing_component(out):
    out[0] = cuda.float32x2(1.0, 2.0).z


def arithmetic(out):
    v = cuda.float32x2(1.0, 2.0) + cuda.float32x2(1.0, 2.0)
    out[0] = v.x


@pytest.mark.parametrize("fn, message", [
    (too_few, r"cuda\.float32x4\(\): a float32x4 has 4 component\(s\), but \(float64, float64, float64\) give 3"),
    (wrong_base, r"cuda\.float32x4\(\): argument 1 is a int32x2; a float32x4 is built from float32 numbers"),
    (store_component, r"the components of a float32x2 are read-only .*cuda\.float32x2\(v\.x, <new y>\)"),
    (missing_component, r"float32x2 has no attribute 'z'"),
    (arithmetic, r"float32x2"),
])
def test_refusals_are_located_typing_errors(fn, message):
    with pytest.raises(TypingError, match=message) as e:
        _stages(fn, "void(float32[::1])")
    assert f"{__file__}:" in str(e.value)


def takes_vector(v):
    pass


def test_vector_kernel_arguments_are_refused():
    with pytest.raises(CompilerError, match=r"a float32x4 cannot be an argument of a kernel .*cuda\.float32x4"):
        _stages(takes_vector, "void(float32x4)")


# -- the foreign-call ABI --------------------------------------------------------------------------
dot4 = declare_device("dot4", "float32(float32x4, float32x4)", abi="c")
mk4 = declare_device("mk4", "float32x4(float32)", abi="c")
nb4 = declare_device("nb4", "float32x4(float32x4, short2, double3)")


def calls_foreign(out, a):
    v = mk4(a)
    w = nb4(cuda.float4(1, 2, 3, 4), cuda.short2(1, 2), cuda.double3(1.0, 2.0, 3.0))
    out[0] = dot4(v, w)


_NVRTC_SRC = r'''
extern "C" __device__ float dot4(float4 a, float4 b) { return a.x*b.x + a.y*b.y + a.z*b.z + a.w*b.w; }
extern "C" __device__ float4 mk4(float a) { return make_float4(a, 2*a, 3*a, 4*a); }
extern "C" __device__ int nb4(float4* ret, float4 a, short2 s, double3 d) {
    *ret = make_float4(a.x + s.x, a.y + s.y, a.z + d.z, a.w); return 0; }
'''


def _prototypes(ptx, name):
    """The ``.param`` declarations of ``.func name`` (definition or ``.extern``)."""
    m = re.search(r"\.func\s*(\([^)]*\))?\s*" + name + r"\s*\(([^)]*)\)", ptx)
    assert m, f"no .func {name} in the PTX"
    ret = re.sub(r"\w+(\[\d+\])", r"_\1", m.group(1) or "")
    params = [re.sub(r"[\w$]+(\[\d+\])", r"_\1", p.strip()) for p in m.group(2).split(",") if p.strip()]
    return re.sub(r"func_retval0|_", "_", ret), params


def test_foreign_vector_prototypes_match_nvrtc():
    from cudalite.linker import compile_cuda

    ours = _stages(calls_foreign, "void(float32[::1], float32)")
    ir_text = str(ours["nvvm-ir"])
    assert '%"cudalite.float32x4" = type {float, float, float, float}' in ir_text
    assert re.search(r'declare %"cudalite.float32x4" @"?mk4"?\(float', ir_text)
    theirs = compile_cuda(_NVRTC_SRC, arch="sm_90").data
    theirs = theirs.decode() if isinstance(theirs, bytes) else theirs
    for name in ("dot4", "mk4", "nb4"):
        assert _prototypes(ours["ptx"], name) == _prototypes(theirs, name), name
    # e.g. dot4: (.param .align 16 .b8 _[16], .param .align 16 .b8 _[16]), as NVCC declares float4
    assert _prototypes(ours["ptx"], "dot4")[1] == [".param .align 16 .b8 _[16]"] * 2
    # the call sites give their arguments the same alignment
    assert ours["ptx"].count(".param .align 16 .b8 param0[16];") >= 1


def test_foreign_vector_calls_inline_across_an_lto_link():
    """Our LTO-IR and NVRTC's agree on the IR-level types: nvJitLink inlines the
    foreign functions and folds the whole kernel to one constant."""
    from cudalite.linker import LTOIR, CUSource, Linker

    kernel_lto = _stages(const_caller, "void(float32[::1])", output="ltoir")["ltoir"]
    ptx = Linker("sm_90").add(CUSource(_NVRTC_SRC), LTOIR(kernel_lto)).link_ptx().data
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    entry = ptx[ptx.index(".entry"):]
    # mk4(1) = (1, 2, 3, 4); nb4 -> (1+1, 2+2, 3+3, 4) = (2, 4, 6, 4); dot = 2 + 8 + 18 + 16 = 44
    bits = struct.unpack("<I", struct.pack("<f", 44.0))[0]
    assert "callseq" not in entry  # inlined
    assert f"0f{bits:08X}" in entry or str(bits) in entry


def const_caller(out):
    calls_foreign(out, 1.0)


def test_user_facing_object_is_the_constructor_with_its_aliases():
    """numba-cuda's ``vtype.user_facing_object`` (its test_vector_type builds kernels from it)."""
    from cudalite import nvvm as jit_cuda
    from cudalite.core.types import VECTOR_ALIASES, vector_types

    for name, vty in vector_types.items():
        obj = vty.user_facing_object
        assert obj is getattr(jit_cuda, name) and obj.vector_type is vty
        assert set(obj.aliases) == {a for a, n in VECTOR_ALIASES.items() if n == name}
        for alias in obj.aliases:
            assert getattr(jit_cuda, alias) is obj
