"""Grid-wide sync (``cuda.cg.this_grid().sync()``) follows NVIDIA's own implementation.

CUDA 13's cooperative groups are header-only: ``this_grid().sync()`` in a CUDA C++
program compiles, from ``cooperative_groups/details/driver_abi.h`` and ``sync.h`` of the
CUDA headers, to code that reads the driver's grid workspace address from ``%envreg1``
(high half) and ``%envreg2`` (low half), takes the barrier word at offset 4 of
``struct grid_workspace {unsigned wsSize; unsigned barrier;}``, and arrives with
``atom.add.release.gpu`` of 1 (block 0: ``0x80000000 - (blocks - 1)``) and waits with
``ld.acquire.gpu`` until the top bit flips.  Every CUDA 13 binary that uses grid sync
carries that code, so drivers keep the layout for all of them.  cudalite's lowering
(``cudalite/nvvm/lower/_groups.py``) emits the same sequence without NVRTC.

This test reads the headers installed with cudalite-linker (``nvidia-cuda-runtime``,
found as NVRTC finds them) and fails if NVIDIA's implementation ever differs from what
cudalite emits, GPU-less; the GPU suite runs grid sync itself
(``tests-integration/gpu/test_gpu_jit.py``).
"""

from __future__ import annotations

import os
import re

import pytest

pytest.importorskip("llvmlite")

from cudalite import cuda, types  # noqa: E402


def _header(name):
    from cudalite.linker._nvrtc import _wheel_include_dirs  # the headers NVRTC compiles CUDA C++ with

    for inc in _wheel_include_dirs():
        path = os.path.join(inc, "cooperative_groups", "details", name)
        if os.path.isfile(path):
            with open(path) as f:
                return re.sub(r"\s+", " ", f.read())
    pytest.fail("the CUDA runtime headers (nvidia-cuda-runtime, a cudalite-linker dependency) were not found")


def test_nvidia_header_grid_workspace_abi():
    abi = _header("driver_abi.h")
    assert "struct grid_workspace { unsigned int wsSize; unsigned int barrier; };" in abi
    assert "load_env_reg64<1, 2>()" in abi  # (envreg1 << 32) | envreg2
    assert "template <unsigned int HiReg, unsigned int LoReg>" in abi
    sync = _header("sync.h")
    assert "nb = 0x80000000 - (expected - 1);" in sync
    assert 'asm volatile("atom.add.release.gpu.u32 %0,[%1],%2;"' in sync
    assert 'asm volatile("ld.acquire.gpu.u32 %0,[%1];"' in sync
    assert "return (((old_arrive ^ current_arrive) & 0x80000000) != 0);" in sync
    assert "unsigned int expected = gridDim.x * gridDim.y * gridDim.z;" in sync
    assert "bool gpu_master = (blockIdx.x + blockIdx.y + blockIdx.z == 0);" in sync


def test_cudalite_emits_the_same_sequence():
    def k(a):
        g = cuda.cg.this_grid()
        a[0] = 1
        g.sync()

    ptx, _ = cuda.compile_ptx(k, (types.int32[:],), cc=(9, 0))
    text = re.sub(r"\s+", " ", ptx)
    assert re.search(r"mov\.b64 %rd\d+, \{%envreg2, %envreg1\};", text)  # {lo, hi}
    assert re.search(r"add\.s64 %rd\d+, %rd\d+, 4;", text)  # &workspace->barrier
    assert "atom.add.release.gpu.u32" in text and "ld.acquire.gpu.u32" in text
    # block 0 adds 0x80000000 - (blocks - 1) = 0x80000001 - blocks, the others 1
    assert re.search(r"mov\.u32 (%r\d+), -2147483647; sub\.s32 (%r\d+), \1, %r\d+; .*selp\.b32 %r\d+, \2, 1,", text)
    # wait until (old ^ current) has its top bit set (the barrier flipped)
    assert re.search(r"ld\.acquire\.gpu\.u32 (%r\d+), .* xor\.b32 (%r\d+), \1, %r\d+; setp\.gt\.s32 %p\d+, \2, -1;",
                     text)
