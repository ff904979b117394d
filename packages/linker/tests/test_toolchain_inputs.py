"""Fatbin (built with nvFatbin), object (nvcc -dc) and archive (nvcc -lib) inputs.

Each skips cleanly when its tool is missing: nvFatbin's library, or nvcc.
"""

from __future__ import annotations

import subprocess

import pytest

from cudalite.linker import (
    Archive, Cubin, CUSource, Fatbin, LinkableCode, Linker, LinkerError, Object, compile_cuda,
)

from linker_testlib import DEFINES_G, KERNEL_CALLS_G


def _fatbin(nvfatbin, entries) -> bytes:
    handle = nvfatbin.create([], 0)
    try:
        for code, arch, ident in entries:
            if isinstance(code, Cubin):
                nvfatbin.add_cubin(handle, code.data, len(code.data), arch, ident)
            else:
                data = code.data + b"\0"
                nvfatbin.add_ptx(handle, data, len(data), arch, ident, "")
        out = bytearray(nvfatbin.size(handle))
        nvfatbin.get(handle, out)
        return bytes(out)
    finally:
        nvfatbin.destroy(handle)


@pytest.fixture(scope="module")
def g_fatbin(nvfatbin, tmp_path_factory):
    """A fatbin with an sm_90 cubin and compute_80 PTX of g(), written to g.fatbin."""
    cubin = compile_cuda(DEFINES_G, name="g.cu", arch="sm_90", cubin=True)
    ptx = compile_cuda(DEFINES_G, name="g.cu", arch="sm_80")
    path = tmp_path_factory.mktemp("fatbin") / "g.fatbin"
    path.write_bytes(_fatbin(nvfatbin, [(cubin, "90", "g_sm90"), (ptx, "80", "g_compute80")]))
    return path


def test_fatbin_from_path(g_fatbin, symbols):
    code = LinkableCode.from_path(g_fatbin)
    assert isinstance(code, Fatbin)
    cubin = Linker("sm_90").add(CUSource(KERNEL_CALLS_G, name="kg.cu"), code).link()
    assert cubin.arch == "sm_90" and {"kg", "g"} <= symbols(cubin.data)


def test_fatbin_ptx_entry_serves_other_archs(g_fatbin, symbols):
    # sm_86 cannot use the sm_90 cubin: nvJitLink compiles the compute_80 PTX entry.
    cubin = Linker("sm_86").add(CUSource(KERNEL_CALLS_G, name="kg.cu"), Fatbin.from_path(g_fatbin)).link()
    assert cubin.arch == "sm_86" and {"kg", "g"} <= symbols(cubin.data)


def test_fatbin_without_a_usable_entry(g_fatbin):
    linker = Linker("sm_75").add(CUSource(KERNEL_CALLS_G, name="kg.cu"), Fatbin.from_path(g_fatbin))
    with pytest.raises(LinkerError) as info:
        linker.link()
    assert "g.fatbin" in info.value.error_log


def _nvcc(nvcc, *args):
    run = subprocess.run([nvcc, *map(str, args)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


@pytest.fixture(scope="module")
def g_object(nvcc, tmp_path_factory):
    folder = tmp_path_factory.mktemp("nvcc")
    (folder / "g.cu").write_text(DEFINES_G)
    _nvcc(nvcc, "-dc", "-arch=sm_90", folder / "g.cu", "-o", folder / "g.o")
    _nvcc(nvcc, "-lib", folder / "g.o", "-o", folder / "libg.a")
    return folder / "g.o", folder / "libg.a"


def test_object_input(g_object, symbols):
    code = LinkableCode.from_path(g_object[0])
    assert isinstance(code, Object)
    cubin = Linker("sm_90").add(CUSource(KERNEL_CALLS_G, name="kg.cu"), code).link()
    assert {"kg", "g"} <= symbols(cubin.data)


def test_archive_input(g_object, symbols):
    code = LinkableCode.from_path(g_object[1])
    assert isinstance(code, Archive)
    cubin = Linker("sm_90").add(CUSource(KERNEL_CALLS_G, name="kg.cu"), code).link()
    assert {"kg", "g"} <= symbols(cubin.data)


def test_everything_at_once(nvcc, g_fatbin, symbols, tmp_path):
    """PTX, CUDA source, cubin, fatbin, object and archive into one cubin."""
    body = 'extern "C" __device__ int {0}(int x) {{ return x + {1}; }}\n'
    kernel = "".join(f'extern "C" __device__ int {n}(int);\n' for n in "abcghi") + (
        'extern "C" __global__ void all(int *p) '
        '{ p[0] = a(p[1]) + b(p[2]) + c(p[3]) + g(p[4]) + h(p[5]) + i(p[6]); }\n')
    (tmp_path / "h.cu").write_text(body.format("h", 40))
    (tmp_path / "i.cu").write_text(body.format("i", 50))
    _nvcc(nvcc, "-dc", "-arch=sm_90", tmp_path / "h.cu", "-o", tmp_path / "h.o")
    _nvcc(nvcc, "-dc", "-arch=sm_90", tmp_path / "i.cu", "-o", tmp_path / "i.o")
    _nvcc(nvcc, "-lib", tmp_path / "i.o", "-o", tmp_path / "libi.a")
    linker = Linker("sm_90").add(
        CUSource(kernel, name="all.cu"),                                   # CUDA source
        compile_cuda(body.format("a", 10), name="a.cu"),                   # PTX
        compile_cuda(body.format("b", 20), name="b.cu", cubin=True),       # cubin
        CUSource(body.format("c", 30), name="c.cu"),                       # CUDA source
        Fatbin.from_path(g_fatbin),                                        # fatbin (g)
        Object.from_path(tmp_path / "h.o"),                                # object (h)
        Archive.from_path(tmp_path / "libi.a"),                            # archive (i)
    )
    cubin = linker.link()
    assert {"all", "a", "b", "c", "g", "h", "i"} <= symbols(cubin.data)
