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
nvJitLink; ``_nvjitlink`` makes sure the crash report reaches stderr.
"""

from __future__ import annotations

import struct

from ._elf import EM_CUDA, read_elf
from ._errors import InvalidInputError

__all__ = ["validate_input", "check_fatbin", "check_archive", "check_ltoir", "check_ptx"]

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


class _Check:
    def __init__(self, name: str, kind: str):
        self.name, self.kind = name, kind

    def fail(self, reason: str):
        raise InvalidInputError(self.name, self.kind, reason)

    def within(self, label: str, offset: int, size: int, total: int):
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


def _check_embedded_fatbins(blob: bytes, name: str, label: str):
    """The fatbin containers of a host object's section, one after another (8-byte aligned)."""
    pos = 0
    while pos < len(blob):
        if not any(blob[pos:pos + 8]):   # zero padding between containers
            pos += 8
            continue
        pos += check_fatbin(blob[pos:], name, kind=f"object ({label})", whole=False)
        pos = (pos + 7) & ~7


def check_object(data: bytes, name: str = "<object>", kind: str = "object"):
    """A relocatable ELF: a host object (its fatbin sections checked) or a cubin."""
    image = read_elf(data, name, kind)
    if image.machine == EM_CUDA:
        return
    for section in image.sections:
        if section.name in _FATBIN_SECTIONS:
            _check_embedded_fatbins(image.section_bytes(data, section), name, f"section {section.name}")


def check_cubin(data: bytes, name: str = "<cubin>"):
    image = read_elf(data, name, "cubin")
    if image.machine != EM_CUDA:
        raise InvalidInputError(name, "cubin", f"not a CUDA ELF (e_machine {image.machine}, expected {EM_CUDA})")


def _ar_size(check: _Check, header: bytes, pos: int) -> int:
    if header[58:60] != b"`\n":
        check.fail(f"archive member header at offset {pos} has no `\\n terminator (corrupt or truncated)")
    field = header[48:58].strip(b" ")
    if not field.isdigit():
        check.fail(f"archive member header at offset {pos}: size field {field!r} is not a number")
    return int(field)


def check_archive(data: bytes, name: str = "<archive>"):
    """A System V / GNU ``ar`` archive: member headers, sizes, the symbol index, and each
    ELF member (checked as an object)."""
    check = _Check(name, "archive")
    total = len(data)
    if data[:8] != _AR_MAGIC:
        check.fail(f"not an ar archive (starts with {bytes(data[:8])!r}, expected b'!<arch>\\n')")
    members, pos = [], 8
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


def _check_ar_index(check: _Check, body: bytes, width: int, starts: set):
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


def check_ltoir(data: bytes, name: str = "<ltoir>"):
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


def _check_bitcode(check: _Check, blob: bytes):
    if blob[:4] != _BITCODE_MAGIC:
        check.fail("wrapped data is not LLVM bitcode (no 'BC' c0 de magic)")
    if len(blob) < 8 or len(blob) % 4:
        check.fail(f"LLVM bitcode of {len(blob)} bytes is not a whole number of 32-bit words")


def check_ptx(data: bytes, name: str = "<ptx>"):
    """PTX is text: non-empty, no NUL byte before its end (a trailing NUL is allowed)."""
    check = _Check(name, "PTX")
    text = data.rstrip(b"\0")
    if not text.strip():
        check.fail("empty PTX")
    nul = text.find(b"\0")
    if nul >= 0:
        check.fail(f"NUL byte at offset {nul} inside the PTX text")


_CHECKS = {
    "ptx": check_ptx,
    "cubin": check_cubin,
    "fatbin": check_fatbin,
    "object": check_object,
    "archive": check_archive,
    "ltoir": check_ltoir,
}


def validate_input(code) -> None:
    """Check a ``LinkableCode``'s bytes for its kind; :class:`InvalidInputError` if malformed.
    CUDA sources (compiled by NVRTC, not handed to nvJitLink) are not checked here."""
    check = _CHECKS.get(code.kind)
    if check is not None:
        check(code.data, code.name)
