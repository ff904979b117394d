"""Issue 5 without a GPU: what calls to foreign device functions compile to (PTX
prototypes of both ABIs), the link lists a kernel collects (own link=, declared
functions', device functions', transitively, deduplicated), every linkable kind
linked by nvJitLink into an sm_90 cubin the way the runtime links it, the
extension protocol's hooks, and the error types."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

import ffi_helpers as H
from cudalite import cuda
from cudalite.core.errors import SignatureError, TypingError
from cudalite.cuda._compiler.linking import linker_items as _linker_items
from cudalite.cuda._compiler.compile_code import compile_code
from cudalite.linker import CUSource, LinkerError, MissingFileError, compile_cuda

CC = (9, 0)
SIG = "void(float32[::1], float32[::1], float32[::1], float64[::1], int64)"


def _argtypes(sig):
    from cudalite.core.types import parse_signature

    return tuple(parse_signature(sig)[1])



def _func_decl(ptx, name):
    m = re.search(r"\.extern \.func\s+(\(.*?\))?\s*" + name + r"\s*\((.*?)\)\s*;", ptx, re.S)
    assert m, f"no .extern .func {name} in the PTX"
    params = re.findall(r"\.param \.(b\d+)", m.group(2))
    return m.group(1), params


# -- PTX ---------------------------------------------------------------------------------------
def test_ptx_declares_both_abis():
    ptx = H.both_abi_kernel("pp").compile_ptx_for(SIG, cc=CC)
    ret, params = _func_decl(ptx, "pp_mul")  # Numba ABI: int f(float* ret, float, float)
    assert "b32" in ret and params == ["b64", "b32", "b32"]
    ret, params = _func_decl(ptx, "pp_axpb")  # int f(double* ret, double, int)
    assert "b32" in ret and params == ["b64", "b64", "b32"]
    ret, params = _func_decl(ptx, "pp_add")  # C ABI: float f(float, float)
    assert "b32" in ret and params == ["b32", "b32"]
    for name in ("pp_mul", "pp_axpb", "pp_add"):
        assert re.search(r"call\.uni.*\n?.*" + name, ptx)


def test_ptx_of_pointers_bools_and_void():
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    flag = cuda.declare_device("pb_flag", "boolean(boolean, CPointer(float32))", abi="c")
    nothing = cuda.declare_device("pb_void", "void(int64)")

    @cuda.jit
    def k(x):
        i = cuda.grid(1)
        if flag(i > 3, ffi.from_buffer(x)):
            nothing(i)

    ptx = k.compile_ptx_for("void(float32[::1])", cc=CC)
    assert _func_decl(ptx, "pb_flag")[1] == ["b32", "b64"]  # u8 promoted, pointer
    assert _func_decl(ptx, "pb_void")[1] == ["b64", "b64"]  # the return slot and the int64


def test_from_buffer_is_a_pointer_typed_from_the_dtype():
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    seen = cuda.declare_device("pt_take", "int32(CPointer(float64))", abi="c")

    @cuda.jit
    def k(x, out):
        out[0] = seen(ffi.from_buffer(x))

    res = compile_code(k.py_func, _argtypes("void(float64[::1], int32[::1])"), k.options, CC, until="typed-ir")
    assert "float64*" in res.artifacts["typed-ir"].data or "CPointer(float64)" in res.artifacts["typed-ir"].data
    with pytest.raises(TypingError, match="CPointer\\(float64\\)"):
        compile_code(k.py_func, _argtypes("void(float32[::1], int32[::1])"), k.options, CC, until="typed-ir")


# -- link lists ----------------------------------------------------------------------------
def test_declared_link_reaches_the_kernel(tmp_path):
    path = tmp_path / "d.cu"
    path.write_text(H.both_abi_source("dl", 0))
    k = H.both_abi_kernel("dl", decl_link=str(path))
    res = compile_code(k.py_func, _argtypes(SIG), k.options, CC)
    assert res.link_items == (str(path),)  # three declarations, one file


def _transitive(tmp_path, lto):
    a = tmp_path / "a.cu"
    a.write_text(H.both_abi_source("ta", 1))
    if lto:
        b = tmp_path / "b.ltoir"
        b.write_bytes(compile_cuda(H.both_abi_source("tb", 2), name="b.cu", arch="sm_90", lto=True).data)
    else:
        b = tmp_path / "b.cu"
        b.write_text(H.both_abi_source("tb", 2))
    b_mul = cuda.declare_device("tb_mul", "float32(float32, float32)", link=[str(b)])
    a_add_linked = cuda.declare_device("ta_add", "float32(float32, float32)", abi="c", link=str(a))
    a_add = cuda.declare_device("ta_add", "float32(float32, float32)", abi="c")

    @cuda.jit(device=True)
    def level2(v):
        return b_mul(v, v)

    @cuda.jit(device=True, link=[str(a)])
    def level1(v):
        return a_add(level2(v), b_mul(v, 2.0))

    @cuda.jit(link=[CUSource(a.read_text(), name="same_as_a.cu")])  # the same content once more
    def kern(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = level1(x[i]) + b_mul(x[i], x[i]) + a_add_linked(x[i], 0.0)

    return kern, str(a), str(b)


@pytest.mark.parametrize("lto", [False, True], ids=["ptx", "lto"])
def test_links_propagate_transitively_and_deduplicate(tmp_path, lto):
    kern, a, b = _transitive(tmp_path, lto)
    res = compile_code(kern.py_func, _argtypes("void(float32[::1], float32[::1])"), kern.options, CC)
    assert sorted(res.link_items) == sorted([a, b])
    assert ("ltoir" in res.artifacts) == lto  # a callee's LTO-IR makes the whole link LTO
    items = _linker_items(tuple(kern.options.link) + tuple(res.link_items))
    assert len(items) == 2  # the kernel's CUSource has a.cu's content: linked once
    _res, cubin = H.link_kernel(kern, "void(float32[::1], float32[::1])", CC)  # no duplicate symbols
    assert res.entry_name in cubin.symbol_names()
    if not lto:
        assert {"ta_add", "tb_mul"} <= set(cubin.symbol_names())


# -- every kind linked (GPU-less) ------------------------------------------------------------
@pytest.mark.parametrize("kind", H.KINDS)
def test_each_kind_links_into_an_sm90_cubin(kind, tmp_path):
    if kind in H.NVCC_KINDS and H.nvcc() is None:
        pytest.skip("building this kind needs nvcc")
    prefix = H.prefix_of(kind)
    item = H.build(kind, H.both_abi_source(prefix, 1), tmp_path, CC)
    k = H.both_abi_kernel(prefix, link=[item])
    res, cubin = H.link_kernel(k, SIG, CC)
    symbols = cubin.symbol_names()
    assert res.entry_name in symbols  # the kernel survives an LTO link too (@llvm.used)
    if "ltoir" not in res.artifacts:
        assert {f"{prefix}_mul", f"{prefix}_axpb", f"{prefix}_add"} <= set(symbols)


@pytest.mark.parametrize("opts", [{"debug": True, "opt": False}, {"lineinfo": True}])
def test_debug_and_lineinfo_kernels_link_nvrtc_ltoir(opts):
    code = compile_cuda('extern "C" __device__ float dbg_id(float x) { return x; }', name="dbg.cu", arch="sm_90",
                        lto=True)
    ident = cuda.declare_device("dbg_id", "float32(float32)", abi="c")

    @cuda.jit(link=[code], **opts)
    def k(x):
        if x[0] < 0:
            raise ValueError("negative")
        x[0] = ident(x[0])

    res, cubin = H.link_kernel(k, "void(float32[::1])", CC)
    assert res.entry_name in cubin.symbol_names()
    if res.exc_symbol:
        assert res.exc_symbol in cubin.symbol_names()  # the host reads it back after launches


# -- the extension protocol ------------------------------------------------------------------
class _Ext:
    def __init__(self, hook="__cudalite_link__"):
        self.calls = []
        setattr(self, hook, self._link)

    def __cudalite_declare__(self, *argtypes):
        t = str(argtypes[0])
        return cuda.declare_device(f"ext_{t}", f"{t}({t})", abi="c")

    def _link(self, *argtypes):
        self.calls.append(tuple(map(str, argtypes)))
        t = str(argtypes[0])
        ct = {"float32": "float", "float64": "double"}[t]
        return [CUSource(f'extern "C" __device__ {ct} ext_{t}({ct} x) {{ return x + 1; }}', name=f"ext_{t}.cu")]


@pytest.mark.parametrize("hook", ["__cudalite_link__", "__numba_cuda_link__"])
def test_extension_link_hook_runs_once_per_argument_types(hook):
    ext = _Ext(hook)

    @cuda.jit
    def k(x):
        x[0] = ext(x[0]) + ext(x[1])

    for t in ("float32", "float64"):
        res = compile_code(k.py_func, _argtypes(f"void({t}[::1])"), k.options, CC)
        assert [i.name for i in res.link_items] == [f"ext_{t}.cu"]
        assert f"ext_{t}" in res.artifacts["ptx"].data
        _res, cubin = H.link_kernel(k, f"void({t}[::1])", CC)
        assert f"ext_{t}" in cubin.symbol_names()
    assert ext.calls.count(("float32",)) <= 2 and ext.calls.count(("float64",)) <= 2  # not once per typing pass


def test_extension_declare_must_return_a_declaration():
    class Bad:
        def __cudalite_declare__(self, *argtypes):
            return "nope"

    bad = Bad()

    @cuda.jit
    def k(x):
        x[0] = bad(x[0])

    with pytest.raises(SignatureError, match="__cudalite_declare__"):
        k.compile_ptx_for("void(float32[::1])", cc=CC)


# -- errors ------------------------------------------------------------------------------------
def test_wrong_argument_type_is_a_typing_error_at_the_call():
    f = cuda.declare_device("ty_fn", "float32(float32, int32)")

    @cuda.jit
    def k(x):
        x[0] = f(x[0], x)  # <- bad argument

    with pytest.raises(TypingError) as info:
        k.compile_ptx_for("void(float32[::1])", cc=CC)
    line = next(i for i, s in enumerate(open(__file__), 1) if "# <- bad argument" in s and "next(" not in s)
    assert f"{__file__}:{line}:" in str(info.value)
    assert "ty_fn" in str(info.value)


def test_wrong_argument_count_is_a_typing_error():
    f = cuda.declare_device("cnt_fn", "float32(float32, int32)")

    @cuda.jit
    def k(x):
        x[0] = f(x[0])

    with pytest.raises(TypingError, match="takes 2 argument"):
        k.compile_ptx_for("void(float32[::1])", cc=CC)


def test_undefined_symbol_is_a_linker_error_naming_it():
    missing = cuda.declare_device("undef_fn", "float32(float32)",
                                  link=CUSource('extern "C" __device__ float def_fn(float x) { return x; }'))

    @cuda.jit
    def kernel_undef(x):
        x[0] = missing(x[0])

    with pytest.raises(LinkerError) as info:
        H.link_kernel(kernel_undef, "void(float32[::1])", CC)
    assert "undef_fn" in str(info.value) and "kernel_undef" in str(info.value)


def test_missing_file_names_the_path(tmp_path):
    path = str(tmp_path / "gone.ltoir")
    g = cuda.declare_device("gone_fn", "float32(float32)", link=path)

    @cuda.jit
    def k(x):
        x[0] = g(x[0])

    res = compile_code(k.py_func, _argtypes("void(float32[::1])"), k.options, CC)
    with pytest.raises(MissingFileError) as info:
        _linker_items(tuple(res.link_items))
    assert path in str(info.value) and isinstance(info.value, FileNotFoundError)


@pytest.mark.parametrize("args,match", [
    (("bad name", "float32(float32)"), "not a valid C symbol"),
    (("f", "float32(float32)", None, False, "cpp"), "abi must be"),  # numba's order: use_cooperative, abi
    (("f", "(float32)"), "rettype|return type"),
])
def test_declare_device_validates(args, match):
    with pytest.raises(SignatureError, match=match):
        cuda.declare_device(*args)


def test_kernel_link_must_be_a_list():
    with pytest.raises(TypeError):
        cuda.jit(link="x.cu")
    with pytest.raises(TypeError):
        cuda.jit(link=[42])


def test_declared_function_is_not_callable_on_the_host():
    f = cuda.declare_device("host_fn", "float32(float32)")
    with pytest.raises(RuntimeError, match="device code"):
        f(np.float32(1))
    assert f.signature.args == _argtypes("void(float32)")
    assert "host_fn" in repr(f) and os.sep not in repr(f)
