"""make_fatbin / link_fatbin (nvFatbin, GPU-less): cubins for several architectures in
one fatbin, read back by the fatbin header reader (fatbin_archs) and by nvJitLink, which
links a fatbin input for an architecture it holds; bad inputs refused by name."""

from __future__ import annotations

import pytest

from cudalite.linker import (
    CUSource, Fatbin, LinkerError, Linker, PTXSource, compile_cuda, fatbin_archs, fatbin_cubins, link_fatbin,
    make_fatbin,
)
from cudalite.linker._fatbin import FATBIN_MAGIC

from linker_testlib import DEFINES_G, KERNEL_CALLS_G

KERNEL = 'extern "C" __global__ void k(int *out) { out[threadIdx.x] = threadIdx.x * 3; }\n'


@pytest.fixture(scope="module")
def kernel_ptx(nvfatbin):
    return compile_cuda(KERNEL, name="k.cu", arch="sm_80")


def test_cubins_of_three_architectures_in_one_fatbin(kernel_ptx, symbols):
    cubins = {arch: Linker(arch).add(kernel_ptx).link().data for arch in ("sm_80", "sm_90", "sm_100")}
    fb = make_fatbin(cubins)
    assert isinstance(fb, Fatbin) and fb.data[:4] == FATBIN_MAGIC
    assert fatbin_archs(fb.data) == ["sm_80", "sm_90", "sm_100"]
    inside = fatbin_cubins(fb.data)
    assert all(inside[arch][:len(c)] == bytes(c) for arch, c in cubins.items())  # each one whole (then padding)
    assert all("k" in symbols(c) for c in fatbin_cubins(fb.data).values())


def test_link_fatbin_links_one_input_for_each_architecture(nvfatbin, symbols):
    caller = compile_cuda(KERNEL_CALLS_G, name="calls_g.cu", arch="sm_80")
    fb = link_fatbin(caller, [80, "9.0", (10, 0)], [CUSource(DEFINES_G, name="g.cu")], name="calls_g")
    assert fatbin_archs(fb.data) == ["sm_80", "sm_90", "sm_100"] and fb.name == "calls_g.fatbin"
    for arch, cubin in fatbin_cubins(fb.data).items():  # the kernel, with g linked in, for each one
        assert {"kg", "g"} <= symbols(cubin) and cubin[:4] == b"\x7fELF", arch


def test_ptx_for_forward_compatibility(kernel_ptx):
    cubin = Linker("sm_80").add(kernel_ptx).link().data
    fb = make_fatbin({"sm_80": cubin}, ptx={"sm_80": kernel_ptx.text})
    assert fatbin_archs(fb.data) == ["sm_80"]  # PTX entries are not cubins
    assert len(fb.data) > len(cubin) + len(kernel_ptx.text) // 4  # the PTX is in it (compressed or not)


def test_bad_inputs_are_refused_by_name(kernel_ptx):
    with pytest.raises(ValueError, match="at least one cubin or PTX"):
        make_fatbin({})
    cubin = Linker("sm_80").add(kernel_ptx).link().data
    with pytest.raises(ValueError, match="an architecture is given twice"):
        make_fatbin({"sm_80": cubin, 80: cubin})
    with pytest.raises(LinkerError, match="nvFatbin refused the sm_90 cubin"):
        make_fatbin({"sm_90": b"not an ELF file at all"})
    with pytest.raises(ValueError, match="sm_75"):
        make_fatbin({"sm_70": cubin})
    with pytest.raises(ValueError, match="not a fatbin"):
        fatbin_archs(cubin)
    with pytest.raises(ValueError, match="at least one architecture"):
        link_fatbin(PTXSource(kernel_ptx.text), [])
