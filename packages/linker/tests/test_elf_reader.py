"""The ELF reader on malformed cubins: always an InvalidInputError (a LinkerError) with
a message, never struct.error / IndexError (property-tested with Hypothesis)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cudalite.linker import Cubin, InvalidInputError, Linker, LinkerError, compile_cuda
from cudalite.linker._elf import elf_sm, elf_symbols, read_elf

from linker_testlib import DEFINES_G

_CUBIN = compile_cuda(DEFINES_G, name="g.cu", arch="sm_90", cubin=True).data
_SHOFF, _SHNUM = struct.unpack_from("<Q", _CUBIN, 40)[0], struct.unpack_from("<H", _CUBIN, 60)[0]


def _patched(offset, fmt, value, data=_CUBIN) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


def _section(kind: int) -> int:
    """Index of the first section of type ``kind`` in the sample cubin."""
    for i in range(_SHNUM):
        if struct.unpack_from("<I", _CUBIN, _SHOFF + i * 64 + 4)[0] == kind:
            return i
    raise AssertionError(f"no section of type {kind}")


def _shdr_field(index: int, offset: int) -> int:
    return _SHOFF + index * 64 + offset


def test_real_cubin_reads():
    image = read_elf(_CUBIN, "g.cubin")
    assert image.machine == 190 and elf_sm(_CUBIN) == 90
    assert ".symtab" in [s.name for s in image.sections]
    assert "g" in Cubin(_CUBIN).symbol_names()


# Each of these raised struct.error or IndexError (or read garbage) before the reader was checked.
@pytest.mark.parametrize("data, message", [
    (_CUBIN[:100], "section header table (%d entries) (offset %d, %d bytes) ends past the end of the "
                   "100-byte input" % (_SHNUM, _SHOFF, _SHNUM * 64)),
    (_CUBIN[:40], "truncated: 40 bytes, shorter than the 64-byte ELF64 header"),
    (_patched(40, "<Q", 1 << 40), "section header table (%d entries) (offset %d, %d bytes) ends past "
                                  "the end" % (_SHNUM, 1 << 40, _SHNUM * 64)),
    (_patched(60, "<H", 0xFFFF), "section header table (65535 entries)"),
    (_patched(58, "<H", 32), "bad section header entry size e_shentsize=32 (expected 64)"),
    (_patched(62, "<H", 0x7FFF), f"section name table index e_shstrndx=32767 is not below e_shnum={_SHNUM}"),
    (_patched(_shdr_field(_section(2), 24), "<Q", 1 << 33), f"section {_section(2)} (offset {1 << 33}"),
    (_patched(_shdr_field(_section(2), 40), "<I", 0xFFFF),
     f"section {_section(2)} links to section 65535, but there are {_SHNUM}"),
    (_patched(_shdr_field(_section(2), 56), "<Q", 0), f"section {_section(2)} (type 2) has entry size 0, "
                                                       "expected 24"),
    (_patched(_shdr_field(_section(2), 32), "<Q", 25), f"section {_section(2)} size 25 is not a multiple"),
    (b"\x7fELF\x01" + _CUBIN[5:], "not a 64-bit ELF (EI_CLASS 1)"),
    (b"\x7fELF\x02\x02" + _CUBIN[6:], "not a little-endian ELF (EI_DATA 2)"),
    (b"MZ" + _CUBIN[2:], "not an ELF file (starts with 4d 5a 4c 46, expected 7f 45 4c 46)"),
])
def test_malformed_cubin_is_an_invalid_input_error(data, message):
    with pytest.raises(InvalidInputError) as info:
        Cubin(data, name="bad.cubin").symbol_names()
    assert str(info.value).startswith("invalid cubin input 'bad.cubin': ")
    assert message in str(info.value)
    assert info.value.input_name == "bad.cubin" and isinstance(info.value, LinkerError)


def test_symbol_name_past_string_table():
    symtab = _section(2)
    offset = struct.unpack_from("<Q", _CUBIN, _shdr_field(symtab, 24))[0]
    data = _patched(offset + 24, "<I", 0x7FFFFFF0)  # symbol 1's st_name
    with pytest.raises(InvalidInputError, match=f"symbol 1 of section {symtab}: name offset 2147483632 is "
                                                "past its string table"):
        elf_symbols(data, "bad.cubin")


def test_relocation_naming_a_missing_symbol():
    image = read_elf(_CUBIN)
    rel = next((s for s in image.sections if s.type in (4, 9) and s.size), None)
    if rel is None:
        pytest.skip("the sample cubin has no relocations")
    data = _patched(rel.offset + 8, "<Q", 0x7FFF << 32)
    with pytest.raises(InvalidInputError, match=f"relocation 0 of section {rel.index} names symbol 32767"):
        read_elf(data, "bad.cubin")


def test_link_rejects_malformed_cubin_before_nvjitlink():
    bad = Cubin(_patched(40, "<Q", 1 << 40), name="bad.cubin")
    with pytest.raises(InvalidInputError, match="invalid cubin input 'bad.cubin': section header table"):
        Linker("sm_90").add(bad).link()


def test_cubin_must_be_a_cuda_elf():
    with pytest.raises(InvalidInputError, match=r"invalid cubin input 'x.cubin': not a CUDA ELF \(e_machine 62"):
        Linker("sm_90").add(Cubin(_patched(18, "<H", 62), name="x.cubin")).link()


def _reads_or_rejects(data: bytes):
    try:
        symbols = elf_symbols(data, "fuzz.cubin")
    except InvalidInputError as e:
        assert str(e).startswith("invalid cubin input 'fuzz.cubin': ") and e.reason
    else:
        assert all(isinstance(s.name, str) for s in symbols)
    elf_sm(data)  # never raises


_FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_FUZZ
@given(st.lists(st.tuples(st.integers(0, len(_CUBIN) - 1), st.integers(0, 7)), min_size=1, max_size=8),
       st.integers(0, len(_CUBIN)))
def test_bit_flips_and_truncation_never_escape(flips, length):
    data = bytearray(_CUBIN)
    for offset, bit in flips:
        data[offset] ^= 1 << bit
    _reads_or_rejects(bytes(data[:length]))


@_FUZZ
@given(st.integers(0, len(_CUBIN) - 8), st.binary(min_size=8, max_size=8))
def test_overwritten_words_never_escape(offset, word):
    data = bytearray(_CUBIN)
    data[offset:offset + 8] = word
    _reads_or_rejects(bytes(data))


@_FUZZ
@given(st.binary(max_size=512))
def test_random_bytes_never_escape(tail):
    _reads_or_rejects(tail)
    _reads_or_rejects(b"\x7fELF\x02\x01\x01" + tail)
    _reads_or_rejects(_CUBIN[:64] + tail)
