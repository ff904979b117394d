"""NVRTC: CUDA C++ -> PTX / LTO-IR / cubin, headers from the wheels, errors with file and line."""

from __future__ import annotations

import os

import pytest

from cudalite.linker import (
    LTOIR, Cubin, CUSource, LinkerError, NvrtcError, PTXSource, compile_cuda, cuda_include_dirs,
    parse_nvrtc_log,
)

from linker_testlib import DEFINES_F, KERNEL_CALLS_F


def test_to_ptx():
    ptx = compile_cuda(KERNEL_CALLS_F, name="kern.cu", arch="sm_80")
    assert isinstance(ptx, PTXSource)
    assert ptx.name == "kern.ptx"
    assert ".target sm_80" in ptx.text
    assert ".visible .entry k(" in ptx.text
    assert ".extern .func" in ptx.text  # f is left for the linker
    assert not ptx.data.endswith(b"\0")


def test_to_ltoir():
    ir = compile_cuda(DEFINES_F, name="f.cu", lto=True)
    assert isinstance(ir, LTOIR) and ir.name == "f.ltoir"
    assert ir.data[:4] == b"\xedCN\x7f"  # NVVM LTO-IR magic
    assert b".version" not in ir.data


def test_to_cubin_for_the_arch(symbols):
    cubin = compile_cuda(DEFINES_F, name="f.cu", arch=(8, 6), cubin=True)
    assert isinstance(cubin, Cubin)
    assert cubin.data[:4] == b"\x7fELF"
    assert cubin.arch == "sm_86"
    assert "f" in symbols(cubin.data) and "f" in cubin.symbol_names()


def test_cusource_name_and_callbacks_carry_over():
    def setup(mod):
        pass

    ptx = compile_cuda(CUSource(DEFINES_F, name="dir/thing.cu", setup_callback=setup))
    assert ptx.name == "thing.ptx" and ptx.setup_callback is setup


def test_not_relocatable_drops_unused_device_function():
    rdc = compile_cuda(DEFINES_F, name="f.cu")
    whole = compile_cuda(DEFINES_F, name="f.cu", relocatable=False)
    assert ".func" in rdc.text and "f(" in rdc.text
    assert ".func" not in whole.text


def test_user_options_are_passed():
    src = "#ifndef MYDEF\n#error MYDEF missing\n#endif\n" + DEFINES_F
    compile_cuda(src, name="d.cu", options=["-DMYDEF=1"])
    with pytest.raises(NvrtcError, match="MYDEF missing"):
        compile_cuda(src, name="d.cu")


def test_error_names_file_and_line():
    src = 'extern "C" __global__ void k(int *p) {\n  p[0] = 1;\n  p[1] = undefined_name;\n}\n'
    with pytest.raises(NvrtcError) as info:
        compile_cuda(src, name="broken.cu")
    err = info.value
    assert err.file == "broken.cu" and err.line == 3
    assert "broken.cu:3" in err.message and "undefined_name" in err.message
    assert 'identifier "undefined_name" is undefined' in err.log
    assert isinstance(err, LinkerError)


def test_error_in_user_header_names_the_header(tmp_path):
    (tmp_path / "bad.h").write_text("// line 1\nint oops = nothing_here;\n")
    with pytest.raises(NvrtcError) as info:
        compile_cuda('#include "bad.h"\n' + DEFINES_F, name="main.cu", include_dirs=[tmp_path])
    assert info.value.file.endswith("bad.h") and info.value.line == 2


def test_user_include_dir(tmp_path):
    (tmp_path / "scale.h").write_text("#define SCALE 41\n")
    src = '#include "scale.h"\nextern "C" __device__ int f(int x) { return x * SCALE; }\n'
    with pytest.raises(NvrtcError, match="scale.h") as info:
        compile_cuda(src, name="inc.cu")
    assert info.value.line == 1
    ptx = compile_cuda(src, name="inc.cu", include_dirs=[str(tmp_path)])
    assert "41" in ptx.text


def test_cuda_headers_come_from_the_wheels():
    dirs = cuda_include_dirs()
    assert dirs, "cuda-pathfinder found no CUDA header directory"
    # CCCL (libcu++: <nv/target>, <cuda/std/...>) may come from a CUDA toolkit when no wheel has it
    assert not any(d.startswith("/usr/local/cuda") for d in dirs if os.path.basename(d) != "cccl")
    assert any(os.path.isfile(os.path.join(d, "cuda_runtime.h")) for d in dirs)
    src = "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n" \
          'extern "C" __device__ float f(float x) { return __half2float(__float2half(x)) + make_float2(x, x).y; }\n'
    assert ".func" in compile_cuda(src, name="rt.cu").text


def test_cccl_headers_are_on_the_include_path():
    """CUDA's own headers (curand_kernel.h, cuda/std/*) include libcu++: NVRTC needs CCCL's folder."""
    from cuda.pathfinder import find_nvidia_header_directory

    cccl = find_nvidia_header_directory("cccl")
    if cccl is None:
        pytest.skip("no CCCL headers installed")
    assert cccl in cuda_include_dirs()
    src = "#include <nv/target>\n#include <cuda/std/type_traits>\n" \
          'extern "C" __device__ int f(int x) { return cuda::std::is_same<int, int>::value ? x : 0; }\n'
    assert ".func" in compile_cuda(src, name="cccl.cu").text


def test_extra_search_paths_config():
    from cudalite.linker.config import load_config

    assert load_config({}).extra_search_paths == ()
    assert load_config({"CUDALITE_NVRTC_EXTRA_SEARCH_PATHS": f"/a{os.pathsep}{os.pathsep}/b"}).extra_search_paths \
        == ("/a", "/b")


def test_cuda_include_path_overrides_the_wheels(tmp_path):
    (tmp_path / "cuda_runtime.h").write_text("#define FAKE_RUNTIME 1\n")
    src = "#include <cuda_runtime.h>\n#ifndef FAKE_RUNTIME\n#error real headers\n#endif\n" + DEFINES_F
    compile_cuda(src, name="o.cu", cuda_include_path=str(tmp_path))
    with pytest.raises(NvrtcError, match="real headers"):
        compile_cuda(src, name="o.cu")
    assert cuda_include_dirs(f"{tmp_path}{os.pathsep}/x") == (str(tmp_path), "/x")


def test_parse_nvrtc_log():
    log = ('a.cu(3): warning #177-D: variable "v" was declared but never referenced\n'
           'inc/b.h(12): error: expected a ";"\n'
           'a.cu(1): catastrophic error: cannot open source file "z.h"\n')
    assert parse_nvrtc_log(log) == [
        ("a.cu", 3, "warning", 'variable "v" was declared but never referenced'),
        ("inc/b.h", 12, "error", 'expected a ";"'),
        ("a.cu", 1, "catastrophic error", 'cannot open source file "z.h"'),
    ]


def test_bad_source_type():
    with pytest.raises(TypeError):
        compile_cuda(12)
    with pytest.raises(ValueError):
        compile_cuda(DEFINES_F, lto=True, cubin=True)
