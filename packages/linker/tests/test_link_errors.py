"""Link failures: each is a LinkerError that carries nvJitLink's log."""

from __future__ import annotations

import pytest

from cudalite.linker import (
    CUSource, LinkableCode, Linker, LinkerError, LinkerOptions, LinkFailure, MissingFileError,
    PTXSource, UnknownFileTypeError, compile_cuda,
)

from linker_testlib import DEFINES_F, DEFINES_F_OTHER, KERNEL_CALLS_F


def test_undefined_symbol():
    linker = Linker("sm_90").add(compile_cuda(KERNEL_CALLS_F, name="k.cu"))
    with pytest.raises(LinkerError) as info:
        linker.link()
    err = info.value
    assert "Undefined reference to 'f'" in err.error_log
    assert "k.ptx" in err.error_log
    assert "Undefined reference to 'f'" in str(err)
    assert isinstance(err, LinkFailure) and err.stage == "complete"


def test_undefined_symbol_lto():
    linker = Linker("sm_90").add(compile_cuda(KERNEL_CALLS_F, name="k.cu", lto=True))
    with pytest.raises(LinkerError) as info:
        linker.link()
    assert "'f'" in info.value.error_log


def test_duplicate_symbol_ptx(capfd):
    linker = Linker("sm_90").add(CUSource(KERNEL_CALLS_F, name="k.cu"), CUSource(DEFINES_F, name="f1.cu"),
                                 CUSource(DEFINES_F_OTHER, name="f2.cu"))
    with pytest.raises(LinkerError) as info:
        linker.link()
    assert "Multiple definition of 'f' in 'f2.ptx', first defined in 'f1.ptx'" in info.value.error_log
    assert "Multiple definition of 'f'" in str(info.value)
    assert info.value.status == "duplicate symbol"
    # the message nvJitLink printed is in the error, not left on stderr
    assert "Multiple definition" not in capfd.readouterr().err


def test_duplicate_symbol_cubin():
    linker = Linker("sm_90").add(CUSource(KERNEL_CALLS_F, name="k.cu"),
                                 compile_cuda(DEFINES_F, name="f1.cu", cubin=True),
                                 compile_cuda(DEFINES_F_OTHER, name="f2.cu", cubin=True))
    with pytest.raises(LinkerError, match="Multiple definition of 'f' in 'f2.cubin', first defined in 'f1.cubin'"):
        linker.link()


def test_duplicate_symbol_lto():
    linker = Linker("sm_90").add(compile_cuda(KERNEL_CALLS_F, name="k.cu", lto=True),
                                 compile_cuda(DEFINES_F, name="f1.cu", lto=True),
                                 compile_cuda(DEFINES_F_OTHER, name="f2.cu", lto=True))
    with pytest.raises(LinkerError) as info:
        linker.link()
    assert "multiply defined" in info.value.error_log and "'f'" in info.value.error_log


def test_successful_link_leaves_other_stderr_output_alone(capfd):
    import os

    Linker("sm_90").add(CUSource(KERNEL_CALLS_F + DEFINES_F, name="ok.cu")).link()
    os.write(2, b"after link\n")
    assert capfd.readouterr().err == "after link\n"


def test_arch_mismatch_cubin():
    old = compile_cuda(DEFINES_F, name="f80.cu", arch="sm_80", cubin=True)
    assert old.arch == "sm_80"
    linker = Linker("sm_90").add(CUSource(KERNEL_CALLS_F, name="k.cu"), old)
    with pytest.raises(LinkerError) as info:
        linker.link()
    err = info.value
    assert "architecture mismatch" in err.message
    assert "f80.cubin is a cubin for sm_80" in err.message and "sm_90" in err.message
    assert "f80.cubin" in err.error_log  # nvJitLink's own log is kept
    assert err.input_name == "f80.cubin"


def test_ptx_for_a_newer_arch_fails_with_ptxas_log():
    new = compile_cuda(DEFINES_F, name="f100.cu", arch="sm_100")
    linker = Linker("sm_90").add(CUSource(KERNEL_CALLS_F, name="k.cu"), new)
    with pytest.raises(LinkerError) as info:
        linker.link()
    assert "f100.ptx" in info.value.error_log
    assert "ptxas" in info.value.error_log


def test_ptx_output_needs_ltoir_inputs():
    linker = Linker("sm_90").add(compile_cuda(KERNEL_CALLS_F + DEFINES_F, name="k.cu"))
    with pytest.raises(LinkerError) as info:
        linker.link_ptx()
    assert "LTOIR" in info.value.error_log


def test_bad_option_is_reported():
    linker = Linker("sm_90", options=LinkerOptions(extra=("-no-such-flag",))).add(
        CUSource(KERNEL_CALLS_F + DEFINES_F, name="k.cu"))
    with pytest.raises(LinkerError, match="-no-such-flag") as info:
        linker.link()
    assert info.value.stage == "create" and "UNRECOGNIZED_OPTION" in str(info.value)


def test_garbage_input():
    linker = Linker("sm_90").add(PTXSource(b"this is not PTX", name="junk.ptx"))
    with pytest.raises(LinkerError) as info:
        linker.link()
    assert "junk.ptx" in info.value.error_log


def test_nvrtc_error_through_the_linker():
    linker = Linker("sm_90").add(CUSource("__global__ void k() { nope; }\n", name="bad.cu"))
    with pytest.raises(LinkerError, match="bad.cu:1"):
        linker.link()


def test_empty_link():
    with pytest.raises(LinkerError, match="nothing to link"):
        Linker("sm_90").link()


def test_missing_file(tmp_path):
    with pytest.raises(MissingFileError, match="gone.cubin"):
        Linker("sm_90").add(tmp_path / "gone.cubin")


def test_unknown_extension(tmp_path):
    path = tmp_path / "kernel.spv"
    path.write_bytes(b"\x03\x02\x23\x07")
    with pytest.raises(UnknownFileTypeError, match=r"'\.spv'.*accepted: .*\.ltoir"):
        Linker("sm_90").add_file(path)
    with pytest.raises(UnknownFileTypeError):
        LinkableCode.from_path(tmp_path / "missing-and-unknown.spv")
