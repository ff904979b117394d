"""numba.cuda's device-side names (issue 11): ``cuda.libdevice.*``, the
``cuda.fp16`` math functions, ``cuda.nanosleep``, the cache-hint loads and
stores (``cuda.ldcg`` ...) and ``cuda.literal_unroll``: their types follow
numba-cuda 0.30.4 and they compile to the expected PTX without a GPU."""

from __future__ import annotations

import importlib.util
import re

import pytest

from cudalite import nvvm as cuda
from cudalite import types
from cudalite.core.errors import TypingError
from cudalite.core.libdevice_table import EXCLUDED, FUNCTIONS
from cudalite.nvvm import fp16, libdevice

i16, i32, i64 = types.int16, types.int32, types.int64
f16, f32, f64 = types.float16, types.float32, types.float64

_LLVM = {"i16": "int16", "i32": "int32", "i64": "int64", "float": "float32", "double": "float64",
         "void": "void"}


def _vartypes(fn, argtypes):
    from cudalite.core.registry import registry
    from cudalite.core.typing import TypingContext, infer

    return infer(TypingContext(registry), fn, argtypes).vartypes


# -- the libdevice table ----------------------------------------------------------------------------
def test_libdevice_table_matches_the_bitcode():
    """Every entry is a libdevice function with exactly these parameter types; every
    libdevice function is in the table or excluded with a reason."""
    llvm = pytest.importorskip("llvmlite.binding")
    from cudalite.nvvm.libnvvm import libdevice_path

    with open(libdevice_path(), "rb") as f:
        mod = llvm.parse_bitcode(f.read())
    declared = {}
    for fn in mod.functions:
        if fn.name.startswith("__nv_"):
            ret = str(fn.global_value_type).split(" ", 1)[0]
            declared[fn.name[5:]] = (_LLVM[ret], [str(a.type) for a in fn.arguments])
    assert set(FUNCTIONS) | set(EXCLUDED) == set(declared)
    assert not set(FUNCTIONS) & set(EXCLUDED)
    for name, (ret, ins, outs) in FUNCTIONS.items():
        want_ret, params = declared[name]
        assert ret == want_ret, name
        assert [_LLVM[p] for p in params[: len(ins)]] == list(ins), name
        # out-parameters are pointers: "ptr" (opaque, LLVM >= 15 as llvmlite >= 0.45 prints
        # them) or "float*"-style (llvmlite 0.44 reads libdevice with typed pointers)
        assert len(params) == len(ins) + len(outs), name
        assert all(p == "ptr" or p.endswith("*") for p in params[len(ins):]), name
    assert len(FUNCTIONS) >= 317  # numba-cuda 0.30.4 wraps 317


def test_libdevice_names_follow_numba():
    for name in ("sinf", "sin", "fast_sinf", "sincos", "sincosf", "popc", "brev", "frexpf", "modf",
                 "remquof", "float2half_rn", "umulhi", "byte_perm", "llabs"):
        assert getattr(libdevice, name).__qualname__ == f"cuda.libdevice.{name}"
    assert not hasattr(libdevice, "nan") and not hasattr(libdevice, "__nv_sinf")


def test_libdevice_signatures_follow_numba():
    def k(out, x32, x64, n):
        a = libdevice.sinf(x32[0])
        b = libdevice.sin(x64[0])
        sc = libdevice.sincosf(x32[0])
        fr = libdevice.frexpf(x32[0])
        md = libdevice.modf(x64[0])
        rq = libdevice.remquo(x64[0], x64[1])
        p = libdevice.popc(n[0])
        h = libdevice.float2half_rn(x32[0])
        u = libdevice.umulhi(n[0], n[1])
        out[0] = a + b + sc[0] + fr[0] + md[1] + rq[0] + p + h + u

    vt = _vartypes(k, (f64[::1], f32[::1], f64[::1], i32[::1]))
    assert vt["a"] == f32 and vt["b"] == f64
    assert vt["sc"] == types.UniTuple(f32, 2)
    assert vt["fr"] == types.Tuple((f32, i32))
    assert vt["md"] == types.UniTuple(f64, 2)
    assert vt["rq"] == types.Tuple((f64, i32))
    assert vt["p"] == i32 and vt["h"] == i16 and vt["u"] == i32


def test_libdevice_arguments_convert_to_the_declared_types(compile_and_assemble):
    def k(out, x):
        out[0] = libdevice.sinf(x[0])  # float64 -> float32, as numba's single signature

    assert _vartypes(k, (f64[::1], f64[::1])) is not None
    ptx, _ = compile_and_assemble(k, (f64[::1], f64[::1]))
    assert "cvt.rn.f32.f64" in ptx


def test_libdevice_errors_are_located():
    def arity(out):
        out[0] = libdevice.atan2f(out[0])

    def not_a_number(out):
        out[0] = libdevice.sinf(out)

    with pytest.raises(TypingError, match=r"cuda\.libdevice\.atan2f\(\): takes 2 argument\(s\)"):
        _vartypes(arity, (f32[::1],))
    with pytest.raises(TypingError, match=r"cuda\.libdevice\.sinf\(\): expects \(float32\)"):
        _vartypes(not_a_number, (f32[::1],))


def test_libdevice_instructions(compile_and_assemble):
    def k(out, x, n):
        s, c = libdevice.sincosf(x[0])
        out[0] = s + c
        out[1] = libdevice.fast_sinf(x[1])
        out[2] = libdevice.popc(n[0])
        out[3] = libdevice.brev(n[1])
        m, e = libdevice.frexpf(x[2])
        out[4] = m + e

    ptx, _ = compile_and_assemble(k, (f32[::1], f32[::1], i32[::1]))
    assert "sin.approx.f32" in ptx and "popc.b32" in ptx and "brev.b32" in ptx


_ARGS = {"float32": "f32[0]", "float64": "f64[0]", "int32": "i32v[0]", "int64": "i64v[0]",
         "int16": "i16v[0]"}


def _declared_in_bitcode():
    """{name: 'ret (params)'} of every libdevice function, in LLVM 7 typed-pointer spelling
    (the pointee types of outputs, absent from opaque-pointer bitcode, from the table)."""
    llvm = pytest.importorskip("llvmlite.binding")
    from cudalite.nvvm.libnvvm import libdevice_path

    with open(libdevice_path(), "rb") as f:
        mod = llvm.parse_bitcode(f.read())
    llvm_of = {v: k for k, v in _LLVM.items()}
    out = {}
    for fn in mod.functions:
        name = fn.name[5:]
        if name in FUNCTIONS:
            outs = iter(FUNCTIONS[name][2])
            params = [f"{llvm_of[next(outs)]}*" if str(a.type) == "ptr" else str(a.type) for a in fn.arguments]
            out[name] = f"{str(fn.global_value_type).split(' ', 1)[0]} ({', '.join(params)})"
    return out


def test_every_libdevice_function_lowers_to_the_bitcode_declaration(tmp_path):
    """One kernel calls every function of the table (written to a real file so its
    source is found); each ``declare`` it emits is the libdevice definition's type."""
    from cudalite.nvvm import make_options
    from cudalite.nvvm.pipeline import EntrySpec, run_pipeline

    lines = ["from cudalite.nvvm import libdevice", "",
             "def k(out, f32, f64, i32v, i64v, i16v):"]
    for j, (name, (ret, ins, outs)) in enumerate(sorted(FUNCTIONS.items())):
        call = f"libdevice.{name}({', '.join(_ARGS[t] for t in ins)})"
        n_results = (ret != "void") + len(outs)
        lines.append(f"    out[{j}] = {call}{'[0]' if n_results > 1 else ''}")
    src = tmp_path / "all_libdevice.py"
    src.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location("all_libdevice", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sig = (f64[::1], f32[::1], f64[::1], i32[::1], i64[::1], i16[::1])
    res = run_pipeline(mod.k, sig, EntrySpec(device=False), make_options(cc=(9, 0)), until="nvvm-ir")
    text = res.stage("nvvm-ir")
    emitted = {}
    for m in re.finditer(r'declare (\S+) @"?__nv_(\w+)"?\(([^)]*)\)', text):
        params = [p.split(" %")[0].strip() for p in m.group(3).split(",")] if m.group(3) else []
        emitted[m.group(2)] = f"{m.group(1)} ({', '.join(params)})"
    assert emitted == _declared_in_bitcode()


# -- cuda.fp16 math -----------------------------------------------------------------------------------
FP16_MATH = ("hsin", "hcos", "hlog", "hlog10", "hlog2", "hexp", "hexp10", "hexp2", "hsqrt", "hrsqrt",
             "hceil", "hfloor", "hrint", "htrunc", "hrcp", "htanh", "htanh_approx")


def test_fp16_math_names_and_types(compile_and_assemble):
    for name in FP16_MATH:
        assert getattr(fp16, name).__qualname__ == f"cuda.fp16.{name}"

    def k(h):
        r = fp16.hsin(h[0])
        h[1] = r + fp16.hcos(h[1]) + fp16.hlog(h[2]) + fp16.hlog10(h[3]) + fp16.hlog2(h[4])
        h[2] = fp16.hexp(h[0]) + fp16.hexp10(h[1]) + fp16.hexp2(h[2]) + fp16.hsqrt(h[3])
        h[3] = fp16.hrsqrt(h[0]) + fp16.hceil(h[1]) + fp16.hfloor(h[2]) + fp16.hrint(h[3])
        h[4] = fp16.htrunc(h[0]) + fp16.hrcp(h[1]) + fp16.htanh(h[2]) + fp16.htanh_approx(h[3])

    assert _vartypes(k, (f16[::1],))["r"] == f16
    ptx, _ = compile_and_assemble(k, (f16[::1],))
    assert "cvt.f32.f16" in ptx and re.search(r"cvt\.rn\.f16\.f32", ptx)


def test_fp16_math_rejects_non_numbers():
    def k(h):
        h[0] = fp16.hsin(h)

    with pytest.raises(TypingError, match=r"cuda\.fp16\.hsin\(\): expects a float16 argument"):
        _vartypes(k, (f16[::1],))


# -- nanosleep ----------------------------------------------------------------------------------------
def test_nanosleep(compile_and_assemble):
    def k(n):
        cuda.nanosleep(100)
        cuda.nanosleep(n[0])

    ptx, _ = compile_and_assemble(k, (i64[::1],))
    assert len(re.findall(r"nanosleep\.u32", ptx)) == 2


def test_nanosleep_needs_an_integer():
    def k(x):
        cuda.nanosleep(x[0])

    with pytest.raises(TypingError, match=r"cuda\.nanosleep\(\): the duration must be an integer"):
        _vartypes(k, (f32[::1],))


# -- cache-hint loads and stores ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype, bits", [(types.int8, 8), (types.uint16, 16), (f16, 16), (f32, 32),
                                          (types.int32, 32), (f64, 64), (types.uint64, 64)])
def test_cache_hint_loads_and_stores(compile_and_assemble, dtype, bits):
    def k(a, b):
        x = cuda.ldca(a, 0) + cuda.ldcg(a, 1) + cuda.ldcs(a, 2) + cuda.ldlu(a, 3) + cuda.ldcv(a, -1)
        b[0] = x
        cuda.stcg(b, 1, x)
        cuda.stcs(b, 2, x)
        cuda.stwb(b, 3, x)
        cuda.stwt(b, -1, x)

    vt = _vartypes(k, (dtype[::1], f64[::1]))
    assert vt["x"] is not None
    ptx, _ = compile_and_assemble(k, (dtype[::1], dtype[::1]))
    for op in ("ca", "cg", "cs", "lu", "cv"):
        assert f"ld.global.{op}.b{bits} " in ptx, op
    for op in ("cg", "cs", "wb", "wt"):
        assert f"st.global.{op}.b{bits} " in ptx, op


def test_cache_hint_load_type_is_the_element_type():
    def k(a, out):
        v = cuda.ldcg(a, 0)
        out[0] = v

    assert _vartypes(k, (f32[::1], f64[::1]))["v"] == f32
    assert _vartypes(k, (types.uint8[::1], f64[::1]))["v"] == types.uint8


def test_cache_hint_2d_index(compile_and_assemble):
    def k(a):
        cuda.stcs(a, (1, 2), cuda.ldcg(a, (0, 1)))

    ptx, _ = compile_and_assemble(k, (f32[:, ::1],))
    assert "ld.global.cg.b32" in ptx and "st.global.cs.b32" in ptx


@pytest.mark.parametrize("sig, call, message", [
    ((f32[:, ::1],), "scalar", r"cuda\.ldcg\(\): Expected 2 indices, got a scalar"),
    ((f32[::1],), "pair", r"cuda\.ldcg\(\): Expected 1 indices, got 2"),
    ((types.boolean[::1],), "scalar", r"cuda\.ldcg\(\): ldcg requires array of integer or float type"),
    ((types.complex64[::1],), "scalar", r"cuda\.ldcg\(\): ldcg requires array of integer or float type"),
    ((f32[::1],), "float", r"cuda\.ldcg\(\): float64 is not a valid index"),
])
def test_cache_hint_errors(sig, call, message):
    def scalar(a):
        cuda.ldcg(a, 0)

    def pair(a):
        cuda.ldcg(a, (0, 1))

    def float_index(a):
        cuda.ldcg(a, 0.5)

    fn = {"scalar": scalar, "pair": pair, "float": float_index}[call]
    with pytest.raises(TypingError, match=message):
        _vartypes(fn, sig)


def test_cache_hint_store_needs_an_array():
    def k(x):
        cuda.stcg(x, 0, 1.0)

    with pytest.raises(TypingError, match=r"cuda\.stcg\(\): operates on arrays and pointers, not float32"):
        _vartypes(k, (f32,))


# -- literal_unroll -----------------------------------------------------------------------------------
def test_literal_unroll_over_a_mixed_tuple(compile_and_assemble):
    def k(out):
        acc = 0.0
        for v in cuda.literal_unroll((1, 2.5, True)):
            acc += v
        out[0] = acc

    ptx, _ = compile_and_assemble(k, (f64[::1],))
    assert "4.5" in ptx or "4616752568008179712" in ptx  # folded: 1 + 2.5 + 1


def test_literal_unroll_types_items_that_do_not_unify_one_by_one():
    def k(a, out):
        for v in cuda.literal_unroll((a, 1)):
            out[0] = 1

    _vartypes(k, (f32[::1], f64[::1]))  # the body is copied per item (typing/_unroll.py)

    def plain(a, out):
        for v in (a, 1):
            out[0] = 1

    with pytest.raises(TypingError, match="do not unify"):
        _vartypes(plain, (f32[::1], f64[::1]))


def test_literal_unroll_needs_a_tuple():
    def k(out):
        for v in cuda.literal_unroll(3):
            out[0] = v

    with pytest.raises(TypingError, match=r"cuda\.literal_unroll\(\): expects a tuple"):
        _vartypes(k, (f64[::1],))

