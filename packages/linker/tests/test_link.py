"""Linking with nvJitLink: PTX, CUDA sources, cubins and LTO-IR -> cubin / PTX."""

from __future__ import annotations

import pytest

from cudalite.linker import (
    LTOIR, Cubin, CUSource, Linker, LinkerOptions, PTXSource, compile_cuda, link,
)

from linker_testlib import DEFINES_F, DEFINES_G, KERNEL_CALLS_F, KERNEL_CALLS_G


def _check_cubin(cubin, arch, names, symbols):
    assert isinstance(cubin, Cubin)
    assert cubin.data[:4] == b"\x7fELF"
    assert cubin.arch == arch
    found = symbols(cubin.data)
    for name in names:
        assert name in found, f"{name!r} not among the cubin's symbols {sorted(found)}"
        assert name in cubin.symbol_names()


def test_ptx_plus_ptx(symbols):
    kernel = compile_cuda(KERNEL_CALLS_F, name="k.cu")
    func = compile_cuda(DEFINES_F, name="f.cu")
    linker = Linker("sm_90").add(kernel, func)
    assert not linker.lto
    cubin = linker.link()
    _check_cubin(cubin, "sm_90", ["k", "f"], symbols)
    assert cubin.name == "linked.cubin"


def test_ptx_files_by_path(tmp_path, symbols):
    (tmp_path / "k.ptx").write_bytes(compile_cuda(KERNEL_CALLS_F, name="k.cu").data)
    (tmp_path / "f.ptx").write_bytes(compile_cuda(DEFINES_F, name="f.cu").data)
    linker = Linker("sm_90").add(str(tmp_path / "k.ptx")).add_file(tmp_path / "f.ptx")
    assert [type(c) for c in linker.inputs] == [PTXSource, PTXSource]
    _check_cubin(linker.link(), "sm_90", ["k", "f"], symbols)


def test_cusource_plus_ptx_for_another_arch(symbols):
    func = compile_cuda(DEFINES_F, name="f.cu", arch="sm_75")
    cubin = Linker((8, 0)).add(CUSource(KERNEL_CALLS_F, name="k.cu"), func).link()
    _check_cubin(cubin, "sm_80", ["k", "f"], symbols)


def test_ltoir_plus_ltoir(symbols):
    kernel = compile_cuda(KERNEL_CALLS_F, name="k.cu", lto=True)
    func = compile_cuda(DEFINES_F, name="f.cu", lto=True)
    linker = Linker("sm_90").add(kernel, func)
    assert linker.lto
    cubin = linker.link()
    _check_cubin(cubin, "sm_90", ["k"], symbols)


def test_ltoir_makes_cusource_ltoir_too(symbols):
    # A CUSource in an LTO link becomes LTO-IR: f is then inlined into k.
    linker = Linker("sm_90").add(CUSource(KERNEL_CALLS_F, name="k.cu"),
                                 compile_cuda(DEFINES_F, name="f.cu", lto=True))
    cubin = linker.link()
    _check_cubin(cubin, "sm_90", ["k"], symbols)
    assert "f" not in symbols(cubin.data)


def test_mixed_ptx_and_ltoir(symbols):
    cubin = link(compile_cuda(KERNEL_CALLS_F, name="k.cu"), compile_cuda(DEFINES_F, name="f.cu", lto=True),
                 arch="sm_90")
    _check_cubin(cubin, "sm_90", ["k"], symbols)


def test_relocatable_cubin_input(symbols):
    func = compile_cuda(DEFINES_F, name="f.cu", arch="sm_90", cubin=True)
    cubin = Linker("sm_90").add(CUSource(KERNEL_CALLS_F, name="k.cu"), func).link()
    _check_cubin(cubin, "sm_90", ["k", "f"], symbols)


def test_ptx_output_from_lto():
    linker = Linker("sm_90").add(compile_cuda(KERNEL_CALLS_F, name="k.cu", lto=True),
                                 CUSource(DEFINES_F, name="f.cu"))
    ptx = linker.link_ptx()
    assert isinstance(ptx, PTXSource)
    assert ".target sm_90" in ptx.text
    assert ".visible .entry k(" in ptx.text
    assert "add.s32" in ptx.text          # f's body (x + 1) inlined into k
    assert ".func" not in ptx.text        # ... so no call remains
    # the PTX links on its own into a cubin
    assert "k" in Linker("sm_90").add(ptx).link().symbol_names()


def test_options_reach_nvjitlink():
    src = CUSource(KERNEL_CALLS_F + DEFINES_F, name="one.cu")
    quiet = Linker("sm_90").add(src)
    quiet.link()
    assert "registers" not in quiet.info_log
    loud = Linker("sm_90", options=LinkerOptions(verbose=True, max_registers=32, lineinfo=True)).add(src)
    loud.link()
    assert "registers" in loud.info_log and "'k'" in loud.info_log


def test_debug_and_lineinfo_options_add_debug_sections():
    src = CUSource(KERNEL_CALLS_F + DEFINES_F, name="one.cu")
    plain = Linker("sm_90", options=LinkerOptions(lto=True)).add(src).link()
    lines = Linker("sm_90", options=LinkerOptions(lto=True, lineinfo=True)).add(src).link()
    debug = Linker("sm_90", options=LinkerOptions(lto=True, debug=True)).add(src).link()
    assert b".debug_line" not in plain.data
    assert b".debug_line" in lines.data and b".nv_debug_info_reg_sass" not in lines.data
    assert b".debug_line" in debug.data and b".nv_debug_info_reg_sass" in debug.data


def test_nvrtc_settings_of_the_linker(tmp_path):
    (tmp_path / "val.h").write_text("#define VAL 1234567\n")
    src = CUSource('#include "val.h"\nextern "C" __global__ void k(int *p) { p[0] = VAL + OFFSET; }\n',
                   name="k.cu")
    linker = Linker("sm_90", include_dirs=[tmp_path], nvrtc_options=["-DOFFSET=1"])
    ptx = linker.add(src).link_ptx()
    assert "1234568" in ptx.text


def test_link_is_repeatable_and_compiles_sources_once():
    linker = Linker("sm_90").add(CUSource(KERNEL_CALLS_F + DEFINES_F, name="one.cu"))
    first = linker.link()
    second = linker.link()
    assert first.content_hash == second.content_hash
    assert len(linker._compiled) == 1


def test_callbacks_are_chained_into_the_result():
    calls = []
    a = CUSource(KERNEL_CALLS_F, name="k.cu", setup_callback=lambda m: calls.append(("setup a", m)),
                 teardown_callback=lambda m: calls.append(("teardown a", m)))
    b = CUSource(DEFINES_F, name="f.cu", setup_callback=lambda m: calls.append(("setup b", m)),
                 teardown_callback=lambda m: calls.append(("teardown b", m)))
    cubin = Linker("sm_90").add(a, b).link()
    cubin.setup_callback("M")
    cubin.teardown_callback("M")
    assert calls == [("setup a", "M"), ("setup b", "M"), ("teardown b", "M"), ("teardown a", "M")]
    plain = Linker("sm_90").add(CUSource(KERNEL_CALLS_G + DEFINES_G, name="g.cu")).link()
    assert plain.setup_callback is None and plain.teardown_callback is None


def test_add_rejects_other_objects():
    with pytest.raises(TypeError, match="LinkableCode"):
        Linker("sm_90").add(b"raw bytes")
    with pytest.raises(TypeError, match="LinkerOptions"):
        Linker("sm_90", options={"debug": True})
    with pytest.raises(ValueError, match=r"invalid compute capability 'sm90': expected"):
        Linker("sm90")
    assert Linker("compute_90").arch == "sm_90"  # the compute capability's spelling, linked for sm_90


def test_ltoir_type_is_checked_by_kind():
    assert Linker("sm_90").add(LTOIR(b"x")).lto
    assert not Linker("sm_90").add(PTXSource(b"x")).lto
