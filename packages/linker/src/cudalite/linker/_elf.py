"""A minimal, checked, read-only ELF64 reader for cubins and host objects (no dependencies).

It answers what the linker asks of an ELF: which ``sm_XY`` a cubin was built
for (``e_flags``), which symbols it defines (``.symtab``), and which sections it
has (to find the fatbin inside a host object).  :func:`read_elf` checks every
structural invariant before anything is read through an offset: header fields,
the section and program header tables within the buffer, every section's
bytes, string-table and symbol-table bounds, section links, relocation symbol
indices.  Whatever is malformed raises :class:`InvalidInputError` naming the
input and the fault -- never ``struct.error`` or ``IndexError`` -- so the same
checks guard nvJitLink, which may crash on such input (``_validate``).
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from ._errors import InvalidInputError

__all__ = ["ElfSymbol", "ElfSection", "ElfImage", "EM_CUDA", "is_elf", "elf_sm", "read_elf", "elf_symbols"]

_MAGIC = b"\x7fELF"
_ELFCLASS64, _ELFDATA2LSB, _EV_CURRENT = 2, 1, 1
_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")      # ELF64 file header (64 bytes)
_SHDR = struct.Struct("<IIQQQQIIQQ")           # section header (64 bytes)
_PHDR = struct.Struct("<IIQQQQQQ")             # program header (56 bytes)
_SYM = struct.Struct("<IBBHQQ")                # symbol (24 bytes)
_SHT_NULL, _SHT_SYMTAB, _SHT_STRTAB, _SHT_RELA, _SHT_NOBITS, _SHT_REL, _SHT_DYNSYM = 0, 2, 3, 4, 8, 9, 11
_SHN_LORESERVE = 0xFF00
_SHT_LOPROC = 0x70000000
_CUDA_TABLES = (0x70000000, 0x70000001, 0x70000002)   # .nv.info, .nv.callgraph, .nv.prototype
_SHF_EXECINSTR = 0x4
_ENTSIZE = {_SHT_SYMTAB: _SYM.size, _SHT_DYNSYM: _SYM.size, _SHT_RELA: 24, _SHT_REL: 16}
EM_CUDA = 190
_CUDA_ABI_V7 = 0x33  # EI_OSABI of cubins up to CUDA 12.x: e_flags & 0xff is the SM
_CUDA_ABI_V8 = 0x41  # EI_OSABI of newer cubins: (e_flags >> 8) & 0xff is the SM


class ElfSymbol(NamedTuple):
    name: str
    bind: int   # 0 local, 1 global, 2 weak
    type: int   # 0 notype, 1 object, 2 func, 3 section, ...
    shndx: int  # 0: undefined

    @property
    def defined(self) -> bool:
        return self.shndx != 0


class ElfSection(NamedTuple):
    index: int
    name: str
    type: int
    flags: int
    offset: int
    size: int
    link: int
    info: int
    entsize: int


class ElfImage(NamedTuple):
    """A checked ELF64 file: header fields and section headers (names resolved)."""
    type: int
    machine: int
    osabi: int
    flags: int
    sections: tuple

    def section_bytes(self, data: bytes, section: ElfSection) -> bytes:
        if section.type == _SHT_NOBITS:
            return b""
        return data[section.offset:section.offset + section.size]


def is_elf(data: bytes) -> bool:
    return len(data) >= 64 and data[:4] == _MAGIC and data[4] == _ELFCLASS64


def elf_sm(data: bytes) -> int | None:
    """The SM number (90 for sm_90) a CUDA ELF was built for, or None."""
    if not is_elf(data):
        return None
    (flags,) = struct.unpack_from("<I", data, 48)
    osabi = data[7]
    if osabi == _CUDA_ABI_V8:
        return (flags >> 8) & 0xFF
    if osabi == _CUDA_ABI_V7:
        return flags & 0xFF
    return None


def _cstr(blob: bytes, offset: int) -> str:
    end = blob.find(b"\0", offset)
    return blob[offset:end if end >= 0 else len(blob)].decode(errors="replace")


class _Checker:
    """Raises InvalidInputError('<what> <name>: <fault>') for one input."""

    def __init__(self, name: str, what: str):
        self.name, self.what = name, what

    def fail(self, fault: str):
        raise InvalidInputError(self.name, self.what, fault)

    def within(self, label: str, offset: int, size: int, total: int):
        if offset < 0 or size < 0 or offset + size > total:
            self.fail(f"{label} (offset {offset}, {size} bytes) ends past the end of the {total}-byte input")


def _check_entries(check, i, sh_type, size, entsize):
    """A table section (symbols, relocations) has its type's entry size and a whole
    number of entries."""
    expected = _ENTSIZE[sh_type]
    if entsize != expected:
        check.fail(f"section {i} (type {sh_type}) has entry size {entsize}, expected {expected}")
    if size % entsize:
        check.fail(f"section {i} size {size} is not a multiple of its entry size {entsize}")


def read_elf(data: bytes, name: str = "<elf>", what: str = "ELF") -> ElfImage:
    """Parse and check an ELF64 little-endian file; :class:`InvalidInputError` if malformed."""
    check = _Checker(name, what)
    total = len(data)
    if data[:4] != _MAGIC:
        check.fail(f"not an ELF file (starts with {bytes(data[:4]).hex(' ') or 'nothing'}, expected 7f 45 4c 46)")
    if total < _EHDR.size:
        check.fail(f"truncated: {total} bytes, shorter than the 64-byte ELF64 header")
    (ident, e_type, machine, version, _entry, phoff, shoff, flags, ehsize, phentsize, phnum,
     shentsize, shnum, shstrndx) = _EHDR.unpack_from(data, 0)
    if ident[4] != _ELFCLASS64:
        check.fail(f"not a 64-bit ELF (EI_CLASS {ident[4]})")
    if ident[5] != _ELFDATA2LSB:
        check.fail(f"not a little-endian ELF (EI_DATA {ident[5]})")
    if ident[6] != _EV_CURRENT or version != _EV_CURRENT:
        check.fail(f"unknown ELF version {ident[6]}/{version}")
    if ehsize < _EHDR.size or ehsize > total:
        check.fail(f"bad ELF header size e_ehsize={ehsize}")
    if phnum:
        if phentsize != _PHDR.size:
            check.fail(f"bad program header entry size e_phentsize={phentsize} (expected {_PHDR.size})")
        check.within(f"program header table ({phnum} entries)", phoff, phnum * _PHDR.size, total)
        for i in range(phnum):
            _t, _f, p_offset, _va, _pa, p_filesz, _memsz, _align = _PHDR.unpack_from(data, phoff + i * _PHDR.size)
            if p_filesz:
                check.within(f"segment {i}", p_offset, p_filesz, total)
    if not shnum:
        if shoff:
            check.fail(f"e_shoff={shoff} but e_shnum=0 (extended section numbering is not supported)")
        return ElfImage(e_type, machine, ident[7], flags, ())
    if shentsize != _SHDR.size:
        check.fail(f"bad section header entry size e_shentsize={shentsize} (expected {_SHDR.size})")
    check.within(f"section header table ({shnum} entries)", shoff, shnum * _SHDR.size, total)
    if shstrndx >= shnum:
        check.fail(f"section name table index e_shstrndx={shstrndx} is not below e_shnum={shnum}")
    raw = [_SHDR.unpack_from(data, shoff + i * _SHDR.size) for i in range(shnum)]
    symtab = next((h for h in raw if h[1] == _SHT_SYMTAB), None)
    if symtab is not None:  # its shape first: the sh_info checks below count its symbols
        _check_entries(check, raw.index(symtab), symtab[1], symtab[5], symtab[9])
    infos = max(shnum, symtab[5] // _SYM.size if symtab is not None else 0)
    for i, (_n, sh_type, sh_flags, _addr, offset, size, link, info, align, entsize) in enumerate(raw):
        if sh_type not in (_SHT_NULL, _SHT_NOBITS):
            check.within(f"section {i}", offset, size, total)
        if link >= shnum:
            check.fail(f"section {i} links to section {link}, but there are {shnum}")
        # sh_info: a section or a symbol index; a CUDA code section's names its function,
        # with the function's register count in the top 8 bits
        if (info & 0xFFFFFF if sh_flags & _SHF_EXECINSTR else info) > infos:
            check.fail(f"section {i} sh_info={info} names neither a section nor a symbol")
        if align & (align - 1):
            check.fail(f"section {i} alignment {align} is not a power of two")
        if sh_type in _ENTSIZE:
            _check_entries(check, i, sh_type, size, entsize)
            target = _SHT_STRTAB if sh_type in (_SHT_SYMTAB, _SHT_DYNSYM) else None
            if target is not None and raw[link][1] != target:
                check.fail(f"symbol table section {i} links to section {link}, which is not a string table")
            if sh_type in (_SHT_REL, _SHT_RELA) and raw[link][1] not in (_SHT_SYMTAB, _SHT_DYNSYM):
                check.fail(f"relocation section {i} links to section {link}, which is not a symbol table")
            if sh_type in (_SHT_REL, _SHT_RELA) and info >= shnum:
                check.fail(f"relocation section {i} applies to section {info}, but there are {shnum}")
    names = b""
    if shstrndx:
        if raw[shstrndx][1] != _SHT_STRTAB:
            check.fail(f"section name table (section {shstrndx}) is not a string table")
        names = data[raw[shstrndx][4]:raw[shstrndx][4] + raw[shstrndx][5]]
    sections = []
    for i, (sh_name, sh_type, sh_flags, _addr, offset, size, link, info, _align, entsize) in enumerate(raw):
        if sh_name and sh_name >= len(names):
            check.fail(f"section {i} name offset {sh_name} is past the section name table ({len(names)} bytes)")
        sections.append(ElfSection(i, _cstr(names, sh_name) if sh_name else "", sh_type, sh_flags, offset,
                                   size, link, info, entsize))
    # Sections of the standard types and CUDA's tables do not overlap (two may share the
    # very same bytes: -G cubins alias debug sections).  Other processor-specific types
    # are left out: CUDA has NOBITS-like ones (.nv.global) whose offsets repeat.
    laid_out = sorted({(s.offset, s.offset + s.size): s.index for s in sections
                       if s.size and s.type not in (_SHT_NULL, _SHT_NOBITS)
                       and (s.type < _SHT_LOPROC or s.type in _CUDA_TABLES)}.items())
    for ((_start, end), first), ((start, _end), second) in zip(laid_out, laid_out[1:]):
        if start < end:
            check.fail(f"sections {first} and {second} overlap")
    image = ElfImage(e_type, machine, ident[7], flags, tuple(sections))
    for section in sections:
        if section.type in (_SHT_SYMTAB, _SHT_DYNSYM):
            _check_symbols(data, image, section, check)
        elif section.type in (_SHT_REL, _SHT_RELA) and section.size:
            _check_relocations(data, image, section, check)
    return image


def _check_symbols(data, image: ElfImage, section: ElfSection, check: _Checker):
    strtab = image.sections[section.link]
    shnum = len(image.sections)
    for k, (st_name, _info, _other, st_shndx, _value, _size) in enumerate(
            _SYM.iter_unpack(data[section.offset:section.offset + section.size])):
        if st_name and st_name >= strtab.size:
            check.fail(f"symbol {k} of section {section.index}: name offset {st_name} is past its string "
                       f"table ({strtab.size} bytes)")
        if shnum <= st_shndx < _SHN_LORESERVE:
            check.fail(f"symbol {k} of section {section.index}: section index {st_shndx} is not below {shnum}")


def _check_relocations(data, image: ElfImage, section: ElfSection, check: _Checker):
    symbols = image.sections[section.link].size // _SYM.size
    fmt = struct.Struct("<QQ" if section.type == _SHT_REL else "<QQq")
    for k, entry in enumerate(fmt.iter_unpack(data[section.offset:section.offset + section.size])):
        index = entry[1] >> 32
        if index >= symbols:
            check.fail(f"relocation {k} of section {section.index} names symbol {index}, but its symbol "
                       f"table has {symbols}")


def elf_symbols(data: bytes, name: str = "<cubin>", what: str = "cubin") -> list[ElfSymbol]:
    """All named symbols of every ``SHT_SYMTAB`` section; :class:`InvalidInputError`
    (naming ``name``) if ``data`` is not a well-formed ELF64 file."""
    image = read_elf(data, name, what)
    symbols = []
    for section in image.sections:
        if section.type != _SHT_SYMTAB:
            continue
        strtab = image.section_bytes(data, image.sections[section.link])
        for st_name, st_info, _other, st_shndx, _v, _s in _SYM.iter_unpack(image.section_bytes(data, section)):
            if st_name:
                symbols.append(ElfSymbol(_cstr(strtab, st_name), st_info >> 4, st_info & 0xF, st_shndx))
    return symbols
