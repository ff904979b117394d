"""``cuda.compile_all`` and numba's warning/error names on ``cuda.errors`` (GPU-less:
libNVVM and NVRTC only)."""

import warnings

import pytest

from cudalite import cuda
from cudalite.core import errors as core_errors
from cudalite.linker import PTXSource


def _add(x, y):
    return x + y


def _kernel(r, x):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = x[i] * 2.0


def test_compile_all_device_function_ptx():
    codes, resty = cuda.compile_all(_add, "float32(float32, float32)", output="ptx", cc=(7, 5))
    assert str(resty) == "float32"
    assert len(codes) == 1 and isinstance(codes[0], str)
    assert ".visible .func" in codes[0] and "_add" in codes[0]
    assert "add.f32" in codes[0] or "add.rn.f32" in codes[0]


def test_compile_all_default_is_ltoir():
    codes, _ = cuda.compile_all(_add, "float32(float32, float32)", cc=(7, 5))
    assert isinstance(codes[0], bytes) and len(codes[0]) > 0


def test_compile_all_kernel_ptx():
    codes, resty = cuda.compile_all(_kernel, "void(float32[::1], float32[::1])", device=False, abi="numba",
                                    output="ptx", cc=(7, 5))
    assert str(resty) == "none" or str(resty) == "void"
    assert ".entry" in codes[0]


def test_compile_all_accepts_a_dispatcher_and_abi_name():
    dev = cuda.jit(device=True)(_add)
    codes, _ = cuda.compile_all(dev, "int32(int32, int32)", abi_info={"abi_name": "my_add"}, output="ptx",
                                cc=(7, 5))
    assert "my_add" in codes[0]


def test_compile_all_returns_link_dependencies(tmp_path):
    cu = tmp_path / "helpers.cu"
    (tmp_path / "helper_defs.h").write_text("#define SCALE 3\n")
    cu.write_text('#include "helper_defs.h"\n'
                  'extern "C" __device__ int times_three(int *out, int x) { *out = x * SCALE; return 0; }\n')
    ptx = tmp_path / "other.ptx"
    ptx.write_text(".version 7.8\n.target sm_75\n.address_size 64\n")
    times_three = cuda.declare_device("times_three", "int32(int32)", link=[str(cu), str(ptx)])

    def f(x):
        return times_three(x) + 1

    codes, _ = cuda.compile_all(f, "int32(int32)", output="ptx", cc=(7, 5))
    assert len(codes) == 3
    assert "times_three" in codes[0]
    assert isinstance(codes[1], str) and ".visible .func" in codes[1] and "times_three" in codes[1]
    assert isinstance(codes[2], PTXSource) and codes[2].data == ptx.read_bytes()
    codes, _ = cuda.compile_all(f, "int32(int32)", cc=(7, 5))  # LTO-IR: the .cu is compiled to LTO-IR
    assert isinstance(codes[0], bytes) and isinstance(codes[1], bytes)


def test_compile_all_option_errors():
    with pytest.raises(ValueError, match="Can only designate forced inlining in LTO-IR"):
        cuda.compile_all(_add, "float32(float32, float32)", output="ptx", forceinline=True)
    with pytest.raises(NotImplementedError,
                       match=r"^Unsupported output type: cubin \(the output is 'ptx' or 'ltoir'\)$"):
        cuda.compile_all(_add, "float32(float32, float32)", output="cubin")
    with pytest.raises(NotImplementedError, match=r"^Unsupported ABI: fortran \(the ABI is 'numba' or 'c'\)$"):
        cuda.compile_all(_add, "float32(float32, float32)", abi="fortran")
    with pytest.raises(NotImplementedError, match=r"^The C ABI is not supported for kernels: .*abi='numba'$"):
        cuda.compile_all(_add, "void(float32, float32)", device=False)  # compile_all's default abi is 'c'


def test_compile_all_located_error():
    def bad(x):
        return x + undefined_name  # noqa: F821

    with pytest.raises(core_errors.TypingError) as ei:
        cuda.compile_all(bad, "int32(int32)", output="ptx")
    assert "undefined_name" in str(ei.value) and __file__ in str(ei.value)


def test_debug_and_opt_warns_invalid_config_at_decoration():
    with pytest.warns(cuda.errors.NumbaInvalidConfigWarning, match="not supported by CUDA"):
        cuda.jit(debug=True, opt=True)


def test_debug_and_lineinfo_warns_invalid_config_at_decoration():
    with pytest.warns(cuda.errors.NumbaInvalidConfigWarning, match="debug and lineinfo are mutually exclusive"):
        @cuda.jit(debug=True, lineinfo=True, opt=False)
        def f():
            pass


def test_no_invalid_config_warning_for_consistent_options():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cuda.jit(debug=True, opt=False)
        cuda.jit(lineinfo=True)
        cuda.jit(opt=True)


def test_nvvm_compile_option_warning_is_invalid_config():
    with pytest.warns(core_errors.NumbaInvalidConfigWarning, match="mutually exclusive"):
        cuda.compile_ptx(_kernel, "void(float32[::1], float32[::1])", debug=True, lineinfo=True, opt=False)


def test_cuda_errors_has_numba_names():
    e = cuda.errors
    assert e.NumbaError is core_errors.CudaliteError
    assert issubclass(e.TypingError, e.NumbaError)
    assert e.NumbaPerformanceWarning is cuda.NumbaPerformanceWarning is cuda.CudalitePerformanceWarning
    for name in ("NumbaWarning", "NumbaInvalidConfigWarning", "NumbaDebugInfoWarning", "NumbaPedanticWarning",
                 "NumbaIRAssumptionWarning", "NumbaDeprecationWarning"):
        assert getattr(e, name) is getattr(core_errors, name)
        assert name in e.__all__
