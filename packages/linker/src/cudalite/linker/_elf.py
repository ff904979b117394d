"""A minimal read-only ELF64 reader for CUDA cubins (no dependencies).

It answers the two questions the linker asks of a cubin: which ``sm_XY`` it
was built for (from ``e_flags``) and which symbols it defines (``.symtab``).
"""

from __future__ import annotations

import struct
from typing import NamedTuple

__all__ = ["ElfSymbol", "is_elf", "elf_sm", "elf_symbols"]

_MAGIC = b"\x7fELF"
_ELFCLASS64 = 2
_SHT_SYMTAB = 2
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


def elf_symbols(data: bytes) -> list[ElfSymbol]:
    """All named symbols of every ``SHT_SYMTAB`` section ([] if not ELF64)."""
    if not is_elf(data):
        return []
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    symbols = []
    for _name, sh_type, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if sh_type != _SHT_SYMTAB or not entsize:
            continue
        str_off, str_size = sections[link][4], sections[link][5]
        strtab = data[str_off:str_off + str_size]
        for pos in range(offset, offset + size, entsize):
            st_name, st_info, _other, st_shndx = struct.unpack_from("<IBBH", data, pos)
            if st_name:
                symbols.append(ElfSymbol(_cstr(strtab, st_name), st_info >> 4, st_info & 0xF, st_shndx))
    return symbols
