"""Structural checks of linker inputs, run before nvJitLink sees them.

nvJitLink trusts the offsets and sizes inside its inputs: a cubin whose section
table points past its end, a fatbin whose size field lies, an LTO-IR container
whose header size is wrong, kill the process with SIGSEGV (measured with
``tools/mutation_crashes.py``: every bit flip and truncation of real inputs,
each linked in a child process).  :func:`validate_input` checks, per kind,
every structural invariant that can be checked cheaply -- magic numbers,
header fields, every offset + size within the buffer, counts, links between
tables -- and raises :class:`InvalidInputError` naming the input and the fault.

What cannot be checked: the encoded payload of an LTO-IR container and the
compressed entries of a fatbin are opaque.  A corrupt payload may still crash
nvJitLink, so untrusted binary inputs are linked in a child process (``_isolated``).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Callable

from ._elf import EM_CUDA, read_elf
from ._errors import InvalidInputError

if TYPE_CHECKING:  # annotations only
    from ._code import LinkableCode

__all__ = ["validate_input", "check_cubin", "check_object", "check_fatbin", "check_archive", "check_ltoir",
           "check_ptx"]

_FATBIN_MAGIC = 0xBA55ED50
_FATBIN_HEADER = struct.Struct("<IHHQ")      # magic, version, header size, size of what follows
_FATBIN_ENTRY = struct.Struct("<HHIQIIII")   # kind, ?, header size, payload size, data size, ?, minor, arch
_FATBIN_ENTRY_MIN = 64
_FATBIN_SECTIONS = (".nv_fatbin", "__nv_relfatbin")   # where host objects keep their device code
_NVVM_MAGIC = b"\xedCN\x7f"                  # NVIDIA's LTO-IR container (nvJitLink 12.x/13.x)
_NVVM_FIXED = 24                             # magic, version words, field offsets, header size
_BITCODE_MAGIC = b"BC\xc0\xde"
_WRAPPER_MAGIC = struct.pack("<I", 0x0B17C0DE)
_WRAPPER = struct.Struct("<IIIII")           # magic, version, offset, size, cputype
_AR_MAGIC = b"!<arch>\n"
_AR_HEADER = 60
_SYM = struct.Struct("<IBBHQQ")
_SHT_PROGBITS, _SHT_SYMTAB = 1, 2
_SHT_CUDA_INFO, _SHT_CUDA_CALLGRAPH, _SHT_CUDA_PROTOTYPE = 0x70000000, 0x70000001, 0x70000002
_CUDA_SECTION_TYPES = ((".nv.info", _SHT_CUDA_INFO), (".nv.callgraph", _SHT_CUDA_CALLGRAPH),
                       (".nv.prototype", _SHT_CUDA_PROTOTYPE))
_STT_FUNC = 2
_SHF_EXECINSTR = 0x4
_SHN_LORESERVE = 0xFF00
_CALLGRAPH_MARKERS = 0xFFFFFFF0     # -16..-1 as unsigned: the call graph's group markers
# global .nv.info attributes whose payload starts with a function's symbol index
# (FRAME_SIZE, MIN_STACK_SIZE, CRS_STACK_SIZE, MAX_STACK_SIZE, REGCOUNT)
_NV_INFO_FUNCTION_ATTRS = frozenset({0x11, 0x12, 0x1E, 0x23, 0x2F})


class _Check:
    def __init__(self, name: str, kind: str) -> None:
        self.name, self.kind = name, kind

    def fail(self, reason: str):
        raise InvalidInputError(self.name, self.kind, reason)

    def within(self, label: str, offset: int, size: int, total: int) -> None:
        if offset < 0 or size < 0 or offset + size > total:
            self.fail(f"{label} (offset {offset}, {size} bytes) ends past the end of the {total}-byte input")


def check_fatbin(data: bytes, name: str = "<fatbin>", kind: str = "fatbin", whole: bool = True) -> int:
    """Check one fatbin container at the start of ``data``; returns its length.
    ``whole``: the container must fill ``data`` exactly (a ``.fatbin`` file)."""
    check = _Check(name, kind)
    total = len(data)
    if total < _FATBIN_HEADER.size:
        check.fail(f"truncated: {total} bytes, shorter than the 16-byte fatbin header")
    magic, version, header_size, body = _FATBIN_HEADER.unpack_from(data, 0)
    if magic != _FATBIN_MAGIC:
        check.fail(f"bad fatbin magic {magic:#010x} (expected {_FATBIN_MAGIC:#010x})")
    if version != 1:
        check.fail(f"unknown fatbin version {version}")
    if header_size < _FATBIN_HEADER.size:
        check.fail(f"fatbin header size {header_size} is smaller than the header")
    check.within("fatbin contents", header_size, body, total)
    end = header_size + body
    if whole and end != total:
        check.fail(f"the fatbin header says {end} bytes, the input has {total}")
    pos, count = header_size, 0
    while pos < end:
        check.within(f"fatbin entry {count} header", pos, _FATBIN_ENTRY_MIN, end)
        _kind, _v, entry_header, payload, data_size, _x, _minor, _arch = _FATBIN_ENTRY.unpack_from(data, pos)
        if entry_header < _FATBIN_ENTRY_MIN:
            check.fail(f"fatbin entry {count}: header size {entry_header} is below {_FATBIN_ENTRY_MIN}")
        check.within(f"fatbin entry {count} header", pos, entry_header, end)
        check.within(f"fatbin entry {count} payload", pos + entry_header, payload, end)
        if data_size > payload:
            check.fail(f"fatbin entry {count}: data size {data_size} exceeds its payload size {payload}")
        pos += entry_header + payload
        count += 1
    return end


def _check_embedded_fatbins(blob: bytes, name: str, label: str) -> None:
    """The fatbin containers of a host object's section, one after another (8-byte aligned)."""
    pos = 0
    while pos < len(blob):
        if not any(blob[pos:pos + 8]):   # zero padding between containers
            pos += 8
            continue
        pos += check_fatbin(blob[pos:], name, kind=f"object ({label})", whole=False)
        pos = (pos + 7) & ~7


def check_object(data: bytes, name: str = "<object>", kind: str = "object") -> None:
    """A relocatable ELF: a host object (its fatbin sections checked) or a cubin."""
    image = read_elf(data, name, kind)
    if image.machine == EM_CUDA:
        _check_cuda_tables(data, image, _Check(name, kind))
        return
    for section in image.sections:
        if section.name in _FATBIN_SECTIONS:
            _check_embedded_fatbins(image.section_bytes(data, section), name, f"section {section.name}")


def check_cubin(data: bytes, name: str = "<cubin>", kind: str = "cubin") -> None:
    """A CUDA ELF: the checked ELF structure, then the CUDA tables that name symbols."""
    image = read_elf(data, name, kind)
    if image.machine != EM_CUDA:
        raise InvalidInputError(name, kind, f"not a CUDA ELF (e_machine {image.machine}, expected {EM_CUDA})")
    _check_cuda_tables(data, image, _Check(name, kind))


def _check_cuda_tables(data: bytes, image, check: _Check) -> None:
    """nvJitLink follows the symbol indices in ``.nv.info``, ``.nv.callgraph`` and
    ``.nv.prototype`` without checking them (measured: out-of-range or non-function
    indices there crash it), and expects a function symbol to live in a code section."""
    symtab = next((s for s in image.sections if s.type == _SHT_SYMTAB), None)
    if symtab is None:
        return
    symbols = list(_SYM.iter_unpack(image.section_bytes(data, symtab)))
    sections = image.sections

    def function(index: int, where: str) -> None:
        if index >= len(symbols):
            check.fail(f"{where} names symbol {index}, but the symbol table has {len(symbols)}")
        if symbols[index][1] & 0xF != _STT_FUNC:
            check.fail(f"{where} names symbol {index}, which is not a function")

    for k, (_name, info, _other, shndx, _value, _size) in enumerate(symbols):
        if info & 0xF == _STT_FUNC and 0 < shndx < _SHN_LORESERVE and sections[shndx].type != _SHT_PROGBITS:
            check.fail(f"function symbol {k} is in section {shndx}, which holds no code (type "
                       f"{sections[shndx].type:#x})")
    for section in sections:
        body = image.section_bytes(data, section)
        label = f"section {section.index} ({section.name or 'unnamed'})"
        for prefix, kind in _CUDA_SECTION_TYPES:
            if section.name.startswith(prefix) and section.type != kind:
                check.fail(f"{label} has type {section.type:#x}, expected {kind:#x}")
        if section.type in (_SHT_CUDA_CALLGRAPH, _SHT_CUDA_PROTOTYPE) and section.entsize != 8:
            check.fail(f"{label} has entry size {section.entsize}, expected 8")
        if section.type == _SHT_CUDA_INFO and section.info:  # a function's attributes: its code section
            if section.info >= len(sections) or not sections[section.info].flags & _SHF_EXECINSTR:
                check.fail(f"{label} describes section {section.info}, which is not a code section")
        if section.type == _SHT_CUDA_INFO:
            for attribute, payload in _nv_info_records(body, label, check):
                if section.info == 0 and attribute in _NV_INFO_FUNCTION_ATTRS and len(payload) >= 4:
                    function(struct.unpack_from("<I", payload)[0], f"{label} attribute {attribute:#x}")
        elif section.type == _SHT_CUDA_CALLGRAPH:
            if len(body) % 8:
                check.fail(f"{label} size {len(body)} is not a multiple of 8")
            for k, (caller, callee) in enumerate(struct.iter_unpack("<II", body)):
                # (0, marker) heads a group (markers: -1, -2, ...); other entries are
                # (function, callee or flag)
                if callee >= _CALLGRAPH_MARKERS:
                    if caller:
                        check.fail(f"{label} entry {k}: a group marker ({callee - (1 << 32)}) with "
                                   f"caller {caller} (expected 0)")
                elif caller:
                    function(caller, f"{label} entry {k}")
        elif section.type == _SHT_CUDA_PROTOTYPE:
            if len(body) % 8:
                check.fail(f"{label} size {len(body)} is not a multiple of 8")
            names = sections[symtab.link].size
            for k, (index, prototype) in enumerate(struct.iter_unpack("<II", body)):
                function(index, f"{label} entry {k}")
                if prototype >= names:
                    check.fail(f"{label} entry {k}: prototype name offset {prototype} is past the "
                               f"string table ({names} bytes)")


def _nv_info_records(body: bytes, label: str, check: _Check):
    """``(attribute, payload)`` of each ``.nv.info`` record: a format byte (1 none,
    2 byte, 3 half-word: the value in the 4-byte header; 4: a 16-bit size and that
    many bytes follow), an attribute byte."""
    pos = 0
    while pos < len(body):
        if pos + 4 > len(body):
            check.fail(f"{label}: record at offset {pos} is truncated")
        fmt, attribute, size = struct.unpack_from("<BBH", body, pos)
        if fmt not in (1, 2, 3, 4):
            check.fail(f"{label}: record at offset {pos} has unknown format {fmt}")
        if fmt == 4:
            if pos + 4 + size > len(body):
                check.fail(f"{label}: record at offset {pos} ({size} bytes) ends past the section")
            yield attribute, body[pos + 4:pos + 4 + size]
            pos += 4 + size
        else:
            pos += 4


def _ar_size(check: _Check, header: bytes, pos: int) -> int:
    if header[58:60] != b"`\n":
        check.fail(f"archive member header at offset {pos} has no `\\n terminator (corrupt or truncated)")
    field = header[48:58].strip(b" ")
    if not field.isdigit():
        check.fail(f"archive member header at offset {pos}: size field {field!r} is not a number")
    return int(field)


def check_archive(data: bytes, name: str = "<archive>") -> None:
    """A System V / GNU ``ar`` archive: member headers, sizes, the symbol index, and each
    ELF member (checked as an object)."""
    check = _Check(name, "archive")
    total = len(data)
    if data[:8] != _AR_MAGIC:
        check.fail(f"not an ar archive (starts with {bytes(data[:8])!r}, expected b'!<arch>\\n')")
    members: list = []
    pos = 8
    while pos < total:
        if data[pos:pos + 1] == b"\n":     # padding byte after an odd-sized last member
            pos += 1
            continue
        check.within(f"archive member header {len(members)}", pos, _AR_HEADER, total)
        header = data[pos:pos + _AR_HEADER]
        size = _ar_size(check, header, pos)
        check.within(f"archive member {len(members)} ({header[:16].decode(errors='replace').strip()})",
                     pos + _AR_HEADER, size, total)
        members.append((pos, header[:16].rstrip(b" "), pos + _AR_HEADER, size))
        pos += _AR_HEADER + size + (size & 1)
    starts = {start for start, *_ in members}
    long_names = b""
    for start, member_name, offset, size in members:
        body = data[offset:offset + size]
        if member_name == b"//":
            long_names = body
        elif member_name in (b"/", b"/SYM64/"):
            _check_ar_index(check, body, 8 if member_name == b"/SYM64/" else 4, starts)
        elif member_name.startswith(b"/") and member_name[1:].isdigit():
            if int(member_name[1:]) >= len(long_names):
                check.fail(f"archive member at offset {start}: long name offset {int(member_name[1:])} is "
                           f"past the name table ({len(long_names)} bytes)")
        if body[:4] == b"\x7fELF":
            label = member_name.decode(errors="replace")
            check_object(body, f"{name}({label})", "archive member")


def _check_ar_index(check: _Check, body: bytes, width: int, starts: set) -> None:
    if len(body) < width:
        check.fail("archive symbol index is truncated")
    code = ">I" if width == 4 else ">Q"
    (count,) = struct.unpack_from(code, body, 0)
    if width + count * width > len(body):
        check.fail(f"archive symbol index lists {count} symbols but has room for "
                   f"{(len(body) - width) // width}")
    offsets = struct.unpack_from(f">{count}{code[1]}", body, width)
    for offset in offsets:
        if offset not in starts:
            check.fail(f"archive symbol index points at offset {offset}, which is not a member header")
    names = body[width + count * width:]
    if names.count(b"\0") < count:
        check.fail(f"archive symbol index has {count} symbols but fewer names")


def check_ltoir(data: bytes, name: str = "<ltoir>") -> None:
    """LTO-IR: NVIDIA's container (magic ``ed 43 4e 7f``; header size field within the
    input), raw LLVM bitcode (``BC c0 de``, whole 32-bit words) or the bitcode wrapper
    (``0x0B17C0DE``; its offset/size within the input and pointing at bitcode)."""
    check = _Check(name, "LTO-IR")
    total = len(data)
    head = bytes(data[:4])
    if head == _NVVM_MAGIC:
        if total < _NVVM_FIXED:
            check.fail(f"truncated: {total} bytes, shorter than the {_NVVM_FIXED}-byte container header")
        (records, _one) = struct.unpack_from("<HH", data, 12)
        (header_size,) = struct.unpack_from("<I", data, 16)
        if not _NVVM_FIXED <= header_size < total:
            check.fail(f"container header size {header_size} is not within the {total}-byte input "
                       f"(corrupt header or truncated)")
        if not _NVVM_FIXED <= records <= header_size:
            check.fail(f"container record offset {records} is not within its {header_size}-byte header")
        return
    if head == _WRAPPER_MAGIC:
        if total < _WRAPPER.size:
            check.fail(f"truncated: {total} bytes, shorter than the 20-byte bitcode wrapper header")
        _magic, _version, offset, size, _cpu = _WRAPPER.unpack_from(data, 0)
        if offset < _WRAPPER.size:
            check.fail(f"bitcode wrapper offset {offset} points into its own header")
        check.within("wrapped bitcode", offset, size, total)
        _check_bitcode(check, data[offset:offset + size])
        return
    if head == _BITCODE_MAGIC:
        _check_bitcode(check, data)
        return
    check.fail(f"not LTO-IR (starts with {head.hex(' ') or 'nothing'}; expected NVIDIA's container "
               f"ed 43 4e 7f, LLVM bitcode 42 43 c0 de or a bitcode wrapper de c0 17 0b)")


def _check_bitcode(check: _Check, blob: bytes) -> None:
    if blob[:4] != _BITCODE_MAGIC:
        check.fail("wrapped data is not LLVM bitcode (no 'BC' c0 de magic)")
    if len(blob) < 8 or len(blob) % 4:
        check.fail(f"LLVM bitcode of {len(blob)} bytes is not a whole number of 32-bit words")


def check_ptx(data: bytes, name: str = "<ptx>") -> None:
    """PTX is text: non-empty, no NUL byte before its end (a trailing NUL is allowed)."""
    check = _Check(name, "PTX")
    text = data.rstrip(b"\0")
    if not text.strip():
        check.fail("empty PTX")
    nul = text.find(b"\0")
    if nul >= 0:
        check.fail(f"NUL byte at offset {nul} inside the PTX text")


_CHECKS: dict[str, Callable[..., object]] = {  # kind -> check(data, name)
    "ptx": check_ptx,
    "cubin": check_cubin,
    "fatbin": check_fatbin,
    "object": check_object,
    "archive": check_archive,
    "ltoir": check_ltoir,
}


def validate_input(code: LinkableCode) -> None:
    """Check a ``LinkableCode``'s bytes for its kind; :class:`InvalidInputError` if malformed.
    CUDA sources (compiled by NVRTC, not handed to nvJitLink) are not checked here.

    Parameters
    ----------
    code : LinkableCode
        The input to check.

    Raises
    ------
    InvalidInputError
        If its structure is malformed for its kind.
    """
    check = _CHECKS.get(code.kind)
    if check is not None:
        check(code.data, code.name)
