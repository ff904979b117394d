"""ABI contracts of compiled entry points (exact strings where the contract is exact)."""

from __future__ import annotations

import re

import pytest

from cudalite import types
from cudalite.nvvm import compile, compile_ptx
from cudalite.nvvm.lower import mangle


def add(x, y):
    return x + y


def _header(ptx, name):
    """The declaration of ``name`` with whitespace runs collapsed."""
    m = re.search(r"\.visible\s+\.(?:func|entry)[^{]*?" + re.escape(name) + r"\([^)]*\)", ptx)
    assert m, f"{name} not found in PTX"
    return re.sub(r"\s+", " ", m.group(0))


def test_numba_abi_prototype(compile_and_assemble):
    ptx, resty = compile_and_assemble(add, types.int32(types.int32, types.int32), device=True)
    assert resty == types.int32
    name = mangle("test_abi", "add", (types.int32, types.int32))
    assert name.startswith("_Z")
    head = _header(ptx, name)
    assert head == (
        f".visible .func (.param .b32 func_retval0) {name}( .param .b64 {name}_param_0, "
        f".param .b32 {name}_param_1, .param .b32 {name}_param_2 )"
    )
    # status code 0 returned; value stored through the pointer
    assert "st.param.b32 [func_retval0+0]" in re.sub(r"\s+", " ", ptx)


def test_numba_abi_mangling_distinguishes_signatures():
    a = mangle("m", "f", (types.int32, types.int32))
    b = mangle("m", "f", (types.float32, types.float32))
    c = mangle("m", "g.<locals>.f", (types.int32, types.int32))
    assert len({a, b, c}) == 3
    assert a == "_ZN1m1fEii"
    assert b == "_ZN1m1fEff"
    assert c == "_ZN1m1g12_3clocals_3e1fEii"


def test_c_abi_prototype(compile_and_assemble):
    ptx, resty = compile_and_assemble(add, "int32(int32, int32)", device=True, abi="c")
    assert resty == types.int32
    assert _header(ptx, "add") == (
        ".visible .func (.param .b32 func_retval0) add( .param .b32 add_param_0, .param .b32 add_param_1 )"
    )


def test_c_abi_name_override(compile_and_assemble):
    ptx, _ = compile_and_assemble(add, "float32(float32, float32)", device=True, abi="c",
                                  abi_info={"abi_name": "add_f32"})
    assert _header(ptx, "add_f32").startswith(".visible .func (.param .b32 func_retval0) add_f32(")
    assert "add_f32_param_1" in ptx and "add_f32_param_2" not in ptx


def test_c_abi_uses_name_not_qualname():
    def outer():
        def inner(x):
            return x * 2
        return inner

    ptx, _ = compile_ptx(outer(), "float64(float64)", device=True, abi="c")
    assert "inner(" in ptx and "outer" not in ptx


def test_c_abi_rejects_kernels():
    def k(a):
        a[0] = 1

    with pytest.raises(Exception, match="C ABI is for device functions only"):
        compile_ptx(k, "void(float32[:])", device=False, abi="c")


def test_c_abi_invalid_symbol_for_lambda():
    with pytest.raises(Exception, match="abi_name"):
        compile_ptx(lambda x: x, "int32(int32)", device=True, abi="c")


def test_kernel_is_entry_and_void():
    def k(a, x):
        a[0] = x

    ptx, resty = compile_ptx(k, "void(float32[::1], float32)")
    assert resty == types.void
    assert re.search(r"\.visible\s+\.entry\s+_ZN", ptx)
    # C-contiguous 1-d array: data pointer + one extent, no strides; then the float
    name = mangle("test_abi", "test_kernel_is_entry_and_void.<locals>.k",
                  (types.float32[::1], types.float32))
    params = re.findall(rf"\.param \.(\w+) {re.escape(name)}_param_\d+", ptx)
    assert params == ["u64", "u64", "f32"]


def test_kernel_array_layout_A_passes_strides():
    def k(a):
        a[0, 0] = 1

    ptx, _ = compile_ptx(k, "void(float32[:, :])")
    assert len(re.findall(r"_param_\d+[,\n)]", ptx)) == 1 + 2 + 2


def test_kernel_returning_value_is_an_error():
    def k(a):
        return a[0]

    with pytest.raises(Exception, match="kernels must return"):
        compile_ptx(k, (types.float32[:],))


def test_kernel_signature_with_return_type_is_an_error():
    def k(a):
        a[0] = 1

    with pytest.raises(TypeError, match="kernels must return void"):
        compile_ptx(k, "int32(float32[:])")


def test_compile_ltoir_default_c_abi():
    code, resty = compile(add, "float32(float32, float32)", device=True, output="ltoir")
    assert isinstance(code, bytes) and len(code) > 100
    assert resty == types.float32


def test_compile_ptx_with_tuple_signature_infers_return():
    ptx, resty = compile_ptx(add, (types.float64, types.int32), device=True)
    assert resty == types.float64


def test_options_fastmath_and_lineinfo(compile_and_assemble):
    def f(x, y):
        return x / y + x ** 0.5

    fast, _ = compile_and_assemble(f, "float32(float32, float32)", device=True, fastmath=True)
    slow, _ = compile_and_assemble(f, "float32(float32, float32)", device=True)
    assert "div.approx" in fast or "div.full" in fast
    assert "div.rn.f32" in slow
    lined, _ = compile_and_assemble(f, "float32(float32, float32)", device=True, lineinfo=True)
    assert ".loc" in lined and ".loc" not in slow


def test_launch_bounds_annotation():
    def k(a):
        a[0] = 1

    ptx, _ = compile_ptx(k, "void(float32[:])", launch_bounds=(128, 2))
    assert ".maxntid 128" in ptx
    assert ".minnctapersm 2" in ptx


def test_launch_bounds_max_cluster_rank():
    def k(a):
        a[0] = 1

    ptx, _ = compile_ptx(k, "void(float32[:])", launch_bounds=(128, 2, 4), cc=(9, 0))
    assert ".maxntid 128, 1, 1" in ptx and ".minnctapersm 2" in ptx and ".maxclusterrank 4" in ptx


@pytest.mark.parametrize("bounds, message", [
    ((128, 2, 4, 8), r"Got 4 launch bounds: \(128, 2, 4, 8\)\. A maximum of three"),
    ((128, -1), "1 to 3 non-negative ints"),
    ((), "1 to 3 non-negative ints"),
])
def test_launch_bounds_errors(bounds, message):
    def k(a):
        a[0] = 1

    with pytest.raises(ValueError, match=message):
        compile_ptx(k, "void(float32[:])", launch_bounds=bounds)


def test_forceinline_requires_ltoir():
    with pytest.raises(ValueError, match="ltoir"):
        compile(add, "float32(float32, float32)", forceinline=True, output="ptx")
    code, _ = compile(add, "float32(float32, float32)", forceinline=True, output="ltoir")
    assert isinstance(code, bytes)


def test_opt_zero_and_debug(compile_and_assemble):
    def k(a):
        for i in range(a.shape[0]):
            a[i] = i

    ptx, _ = compile_and_assemble(k, "void(int32[:])", opt=False)
    assert ".entry" in ptx
    ptx, _ = compile_and_assemble(k, "void(int32[:])", debug=True)
    assert ".loc" in ptx


def test_cc_default_documented():
    ptx, _ = compile_ptx(add, "int32(int32, int32)", device=True)
    assert ".target sm_75" in ptx
    ptx, _ = compile_ptx(add, "int32(int32, int32)", device=True, cc=(9, 0))
    assert ".target sm_90" in ptx


def test_print_compiles_to_vprintf(compile_and_assemble):
    def k(a, n):
        print("n is", n, a[0], n > 2)

    ptx, _ = compile_and_assemble(k, "void(float32[:], int32)")
    assert "vprintf" in ptx


def test_libnvvm_failure_carries_the_log():
    from cudalite.nvvm import NvvmError, libnvvm

    bad = 'target triple = "nvptx64-nvidia-cuda"\ndefine void @k() {\n  ret i32 0\n}\n'
    with pytest.raises(NvvmError) as ei:
        libnvvm.compile_ir(bad, ["-arch=compute_90"], False)
    assert ei.value.log, "libNVVM's log must be attached"
    assert ei.value.log in str(ei.value)
    assert ei.value.ir_text == bad


def test_param_format_matches_flattened_parameters():
    from llvmlite import ir

    from cudalite.nvvm.lower import param_format
    from cudalite.nvvm.lower._abi import flat_params

    sig = (types.float32[::1], types.float64[:, :], types.float32, types.complex64,
           types.UniTuple(types.int32, 2), types.boolean, types.uint16)
    fmt = param_format(sig)
    assert fmt == "Qq" + "Qqqqq" + "f" + "ff" + "ii" + "B" + "H"
    flat = [p for t in sig for p in flat_params(t)]
    assert len(flat) == len(fmt)
    sizes = {"Q": 8, "q": 8, "f": 4, "i": 4, "B": 1, "H": 2}
    for lty, code in zip(flat, fmt):
        width = 64 if isinstance(lty, ir.PointerType) else (lty.width if isinstance(lty, ir.IntType)
                                                             else {"float": 32, "double": 64}[str(lty)])
        assert width == sizes[code] * 8


def test_pipeline_reports_per_stage_timings():
    from cudalite.nvvm.api import make_options
    from cudalite.nvvm.pipeline import EntrySpec, run_pipeline

    res = run_pipeline(add, "int32(int32, int32)", EntrySpec(), make_options())
    assert set(res.timings) == {"parse", "infer", "lower", "nvvm"}
    assert all(v >= 0 for v in res.timings.values())
    assert res.timings["nvvm"] > 0
