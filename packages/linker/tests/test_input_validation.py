"""validate_input: each kind's structural checks, their messages, and real inputs passing."""

from __future__ import annotations

import struct

import pytest

from cudalite.linker import (
    LTOIR, Archive, Cubin, Fatbin, InvalidInputError, LinkerError, Object, PTXSource, compile_cuda,
    validate_input,
)

from linker_testlib import DEFINES_G, crash_samples


@pytest.fixture(scope="module")
def samples():
    return crash_samples()


def _reason(code) -> str:
    with pytest.raises(InvalidInputError) as info:
        validate_input(code)
    err = info.value
    assert isinstance(err, LinkerError) and isinstance(err, ValueError)
    assert err.input_name == code.name and str(err) == f"invalid {err.kind} input {code.name!r}: {err.reason}"
    return err.reason


def test_real_inputs_pass(samples):
    for code in samples.values():
        validate_input(code)
    for arch in ("sm_75", "sm_90a", "sm_100", "sm_120"):
        for kw in ({"cubin": True}, {"lto": True}, {}):
            validate_input(compile_cuda(DEFINES_G, name="g.cu", arch=arch, **kw))


def test_ltoir(samples):
    data = samples["ltoir"].data
    assert _reason(LTOIR(b"", name="e.ltoir")) == (
        "not LTO-IR (starts with nothing; expected NVIDIA's container ed 43 4e 7f, LLVM bitcode "
        "42 43 c0 de or a bitcode wrapper de c0 17 0b)")
    assert _reason(LTOIR(data[:20], name="t.ltoir")) == "truncated: 20 bytes, shorter than the 24-byte container header"
    assert _reason(LTOIR(data[:40], name="h.ltoir")) == (
        "container header size 40 is not within the 40-byte input (corrupt header or truncated)")
    bad = bytearray(data)
    struct.pack_into("<H", bad, 12, 400)
    assert _reason(LTOIR(bytes(bad), name="r.ltoir")) == "container record offset 400 is not within its 40-byte header"
    assert _reason(LTOIR(b"BC\xc0\xde\x35\x14\x00", name="b.ltoir")) == (
        "LLVM bitcode of 7 bytes is not a whole number of 32-bit words")
    wrapper = struct.pack("<5I", 0x0B17C0DE, 0, 20, 64, 0) + b"BC\xc0\xde" + b"\0" * 12
    assert _reason(LTOIR(wrapper, name="w.ltoir")) == (
        "wrapped bitcode (offset 20, 64 bytes) ends past the end of the 36-byte input")
    validate_input(LTOIR(struct.pack("<5I", 0x0B17C0DE, 0, 20, 16, 0) + b"BC\xc0\xde" + b"\0" * 12))


def test_fatbin(samples):
    if "fatbin" not in samples:
        pytest.skip("nvcc not available to build a fatbin")
    data = samples["fatbin"].data
    assert _reason(Fatbin(data[:10], name="f")) == "truncated: 10 bytes, shorter than the 16-byte fatbin header"
    assert _reason(Fatbin(b"\0" * 4 + data[4:], name="f")) == "bad fatbin magic 0x00000000 (expected 0xba55ed50)"
    assert _reason(Fatbin(data[:-8], name="f")).startswith("fatbin contents (offset 16, ")
    bad = bytearray(data)
    bad[23] ^= 1  # the first entry's header size
    assert _reason(Fatbin(bytes(bad), name="f")) == (
        "fatbin entry 0 header (offset 16, 16777280 bytes) ends past the end of the 1184-byte input")


def test_object_and_archive(samples):
    if "object" not in samples:
        pytest.skip("nvcc not available to build an object")
    obj = samples["object"].data
    assert _reason(Object(obj[:63], name="o.o")) == "truncated: 63 bytes, shorter than the 64-byte ELF64 header"
    start = obj.index(b"\x50\xed\x55\xba")   # the embedded fatbin
    bad = bytearray(obj)
    bad[start + 23] ^= 1
    assert _reason(Object(bytes(bad), name="o.o")).startswith("fatbin entry 0 header (offset 16, 16777280 bytes)")
    archive = samples["archive"].data
    assert _reason(Archive(b"!<arch\n" + archive[7:], name="a.a")).startswith("not an ar archive")
    member = archive.index(b"`\n") - 58
    bad = bytearray(archive)
    bad[member + 48:member + 58] = b"99999999  "
    assert _reason(Archive(bytes(bad), name="a.a")).startswith("archive member 0 (/) (offset 68, 99999999 bytes)")
    elf = archive.index(b"\x7fELF")
    bad = bytearray(archive)
    bad[elf + 43] ^= 1
    with pytest.raises(InvalidInputError, match=r"invalid archive member input 'a\.a\(g\.o/\)': section header"):
        validate_input(Archive(bytes(bad), name="a.a"))


def test_ptx():
    assert _reason(PTXSource(b"\0\0", name="p.ptx")) == "empty PTX"
    nul = PTXSource(b".version 8.0\0.target sm_90\n", name="p.ptx")
    assert _reason(nul) == "NUL byte at offset 12 inside the PTX text"
    validate_input(PTXSource(b".version 8.0\n.target sm_90\n\0"))


def test_cubin_cuda_tables(samples):
    from cudalite.linker._elf import read_elf
    data = samples["cubin"].data
    image = read_elf(data)
    callgraph = next(s for s in image.sections if s.name == ".nv.callgraph")
    prototype = next(s for s in image.sections if s.name == ".nv.prototype")
    bad = bytearray(data)
    bad[callgraph.offset + 8] ^= 1     # entry 1 is (0, -2): a marker gets a caller
    assert _reason(Cubin(bytes(bad), name="c.cubin")) == (
        f"section {callgraph.index} (.nv.callgraph) entry 1: a group marker (-2) with caller 1 (expected 0)")
    bad = bytearray(data)
    struct.pack_into("<I", bad, prototype.offset, 1)   # symbol 1 is a section symbol
    assert _reason(Cubin(bytes(bad), name="c.cubin")) == (
        f"section {prototype.index} (.nv.prototype) entry 0 names symbol 1, which is not a function")
    assert _reason(Cubin(data[:18] + b"\x3e\x00" + data[20:], name="x.cubin")) == (
        "not a CUDA ELF (e_machine 62, expected 190)")
