"""``inspect_lto_ptx`` (numba's): the kernel's PTX after nvJitLink's link-time
optimization with its linked code; device functions refuse kernel-only inspection
and launching with numba's RuntimeError (GPU-less: libNVVM, NVRTC, nvJitLink)."""

import pytest

from cudalite import cuda, types
from cudalite.cuda._compiler.kernel import CompiledKernel
from cudalite.cuda._compiler.options import JitOptions


def _square(r, x):
    r[0] = x * x


def test_lto_ptx_of_a_kernel():
    k = CompiledKernel(_square, (types.float32[::1], types.float32), JitOptions(), (8, 0), load=False)
    ptx = k.lto_ptx
    assert ".entry" in ptx and "_square" in ptx and ("mul.f32" in ptx or "mul.rn.f32" in ptx)
    assert ".target sm_80" in ptx


def test_lto_ptx_inlines_linked_cuda_code(tmp_path):
    cu = tmp_path / "times3.cu"
    cu.write_text('extern "C" __device__ int times3(int *out, int x) { *out = x * 3; return 0; }\n')
    times3 = cuda.declare_device("times3", "int32(int32)", link=[str(cu)])

    def kern(r, x):
        r[0] = times3(x)

    k = CompiledKernel(kern, (types.int32[::1], types.int32), JitOptions(), (8, 0), load=False)
    ptx = k.lto_ptx
    assert ".entry" in ptx
    assert "call" not in ptx.split(".entry", 1)[1]  # times3 was inlined across the link
    assert "mul.lo.s32" in ptx or "mad.lo.s32" in ptx or "shl.b32" in ptx


def test_device_function_refuses_kernel_only_inspection_and_launch():
    @cuda.jit(device=True)
    def dev(x, y):
        return x + y

    with pytest.raises(RuntimeError, match="Cannot inspect SASS of a device function"):
        dev.inspect_sass((types.int32, types.int32))
    with pytest.raises(RuntimeError, match="Cannot inspect the LTO PTX of a device function"):
        dev.inspect_lto_ptx((types.int32, types.int32))
    with pytest.raises(RuntimeError, match="Cannot compile a device function as a kernel") as ei:
        dev[1, 1]
    assert isinstance(ei.value, TypeError)


def test_linked_cuda_file_finds_headers_in_its_folder(tmp_path):
    """A ``.cu`` file linked by path is compiled with its folder on NVRTC's include
    path (``#include "add.cuh"`` next to it); it failed with "cannot open source file"."""
    (tmp_path / "add.cuh").write_text("__device__ inline int add_seven(int x) { return x + 7; }\n")
    cu = tmp_path / "uses_header.cu"
    cu.write_text('#include "add.cuh"\n'
                  'extern "C" __device__ int plus7(int *out, int x) { *out = add_seven(x); return 0; }\n')
    plus7 = cuda.declare_device("plus7", "int32(int32)", link=[str(cu)])

    def kern(r, x):
        r[0] = plus7(x)

    k = CompiledKernel(kern, (types.int32[::1], types.int32), JitOptions(), (8, 0), load=False)
    assert k.artifact.cubin[:4] == b"\x7fELF"
    assert "add.s32" in k.lto_ptx
