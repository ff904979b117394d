"""Multi-architecture fat binaries with nvFatbin (GPU-less).

:func:`make_fatbin` packs cubins (one per ``sm_XY``) -- and optionally PTX for
forward compatibility -- into one fatbin that ``cuModuleLoadData`` loads on any of
those GPUs, the driver picking the cubin of the device's architecture.
:func:`link_fatbin` is the whole ahead-of-time step: one PTX/LTO-IR input linked by
nvJitLink for each architecture (with the same extra link items), then packed.
nvFatbin comes from the ``nvidia-nvfatbin`` wheel through ``cuda.bindings.nvfatbin``
(found by cuda-pathfinder), never from a system toolkit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ._code import Fatbin
from ._errors import LinkerError
from ._options import normalize_arch

if TYPE_CHECKING:  # annotations only
    from ._code import LinkableCode
    from ._options import LinkerOptions

__all__ = ["make_fatbin", "link_fatbin", "fatbin_archs", "fatbin_cubins", "fatbin_from_ptx", "FATBIN_MAGIC"]

FATBIN_MAGIC = b"\x50\xed\x55\xba"  # 0xBA55ED50, little-endian: a fatbin's first four bytes


def _nvfatbin():
    try:
        from cuda.bindings import nvfatbin
    except ImportError as e:  # cuda-bindings older than nvFatbin's bindings
        raise LinkerError(f"nvFatbin is not available ({e}): fatbins need cuda-bindings>=13.2 (its nvFatbin "
                          "bindings) and the nvidia-nvfatbin wheel") from None
    return nvfatbin


def _sm(arch: str) -> str:
    """nvFatbin's architecture string: ``"90"`` for ``sm_90``, ``"90a"`` for ``sm_90a``."""
    return normalize_arch(arch)[3:]


def make_fatbin(cubins: Mapping[Any, bytes], ptx: Mapping[Any, str] | None = None, *,
                name: str = "kernels.fatbin") -> Fatbin:
    """Pack cubins (and optionally PTX) for several architectures into one fatbin.

    Parameters
    ----------
    cubins : mapping
        ``{arch: cubin bytes}``, e.g. ``{"sm_80": ..., "sm_90": ...}`` (any spelling
        :func:`normalize_arch` accepts for the keys).
    ptx : mapping, optional
        ``{arch: PTX text}``: JIT-compiled by drivers for GPUs newer than every cubin.
    name : str, optional
        The returned object's name.

    Returns
    -------
    Fatbin
        The fatbin (``.data``: its bytes), loadable by ``cuModuleLoadData`` on every
        architecture it holds.

    Raises
    ------
    ValueError
        No cubin and no PTX, or an architecture given twice.
    LinkerError
        nvFatbin refused an input (the message names it).
    """
    cubins, ptx = dict(cubins or {}), dict(ptx or {})
    if not cubins and not ptx:
        raise ValueError("make_fatbin needs at least one cubin or PTX input")
    seen = [_sm(a) for a in cubins]
    if len(set(seen)) != len(seen):
        raise ValueError(f"an architecture is given twice: {[normalize_arch(a) for a in cubins]}")
    nvf = _nvfatbin()
    handle = nvf.create([], 0)
    try:
        for arch, data in cubins.items():
            data = bytes(data)
            try:
                nvf.add_cubin(handle, data, len(data), _sm(arch), f"{normalize_arch(arch)}.cubin")
            except nvf.nvFatbinError as e:
                raise LinkerError(f"nvFatbin refused the {normalize_arch(arch)} cubin: {e}") from None
        for arch, text in ptx.items():
            data = text.encode() + b"\0" if isinstance(text, str) else bytes(text)
            try:
                nvf.add_ptx(handle, data, len(data), _sm(arch), f"{normalize_arch(arch)}.ptx", "")
            except nvf.nvFatbinError as e:
                raise LinkerError(f"nvFatbin refused the {normalize_arch(arch)} PTX: {e}") from None
        out = bytearray(nvf.size(handle))
        nvf.get(handle, out)
    finally:
        nvf.destroy(handle)
    return Fatbin(bytes(out), name=name)


def link_fatbin(code: LinkableCode, archs: Iterable[Any], items: Iterable[LinkableCode] = (), *,
                options: LinkerOptions | None = None, name: str = "kernels",
                include_dirs: Iterable[str] = ()) -> Fatbin:
    """Link one compiled input for several architectures and pack the cubins in a fatbin.

    Parameters
    ----------
    code : LinkableCode
        PTX or LTO-IR made for the lowest of ``archs`` (or older): linked as trusted input.
    archs : sequence
        The targets (``"sm_90"``, ``90``, ``(9, 0)``...): one cubin each.
    items : sequence of LinkableCode, optional
        More link inputs (CUDA C++, PTX, LTO-IR, objects...), linked into every cubin.
    options : LinkerOptions, optional
        nvJitLink options, the same for every architecture.
    name : str, optional
        The base name for logs and the fatbin.
    include_dirs : sequence of str, optional
        Header folders for CUDA C++ inputs.

    Returns
    -------
    Fatbin
        One cubin per architecture, in the order given.

    Raises
    ------
    ValueError
        No architecture, or one cudalite cannot target.
    LinkerError
        nvJitLink or nvFatbin failed (the message names the input).
    """
    from ._linker import Linker

    archs = [normalize_arch(a) for a in archs]
    if not archs:
        raise ValueError("link_fatbin needs at least one architecture")
    cubins = {}
    for arch in archs:
        linker = Linker(arch, options=options, name=name, include_dirs=include_dirs)
        linker.add(code, trusted=True)
        linker.add(*items)
        cubins[arch] = bytes(linker.link().data)
    return make_fatbin(cubins, name=f"{name}.fatbin")


def fatbin_from_ptx(ptx: str, archs: Iterable[Any], name: str = "kernels") -> bytes:
    """``cudalite-compile --emit fatbin``'s step after the compiler (registered as the
    ``fatbin`` entry point of the ``cudalite.compile_outputs`` group): ``ptx`` (text
    made for the lowest of ``archs``) linked for every one of ``archs`` and packed.

    Parameters
    ----------
    ptx : str
        The kernel's PTX.
    archs : sequence
        The targets, lowest first.
    name : str, optional
        The base name for logs.

    Returns
    -------
    bytes
        The fatbin.

    Raises
    ------
    LinkerError
        nvJitLink or nvFatbin failed.
    """
    from ._code import PTXSource

    return link_fatbin(PTXSource(ptx, name=f"{name}.ptx"), archs, name=name).data


def fatbin_cubins(data: bytes) -> dict:
    """The cubins inside a fatbin, read from its headers (GPU-less).

    Parameters
    ----------
    data : bytes
        A fatbin's bytes.

    Returns
    -------
    dict
        ``{"sm_XY": payload}`` in file order; each payload as stored: the cubin, then
        any alignment padding (or compressed, when nvFatbin was asked to compress).

    Raises
    ------
    ValueError
        ``data`` is not a fatbin, or an entry header is malformed.
    """
    data = bytes(data)
    if data[:4] != FATBIN_MAGIC:
        raise ValueError("not a fatbin (bad magic)")
    header_size = int.from_bytes(data[6:8], "little")
    end = min(header_size + int.from_bytes(data[8:16], "little"), len(data))
    pos, out = header_size, {}
    while pos + 32 <= end:
        kind = int.from_bytes(data[pos:pos + 2], "little")
        entry_header = int.from_bytes(data[pos + 4:pos + 8], "little")
        payload = int.from_bytes(data[pos + 8:pos + 16], "little")
        if entry_header < 32:
            raise ValueError(f"malformed fatbin entry header at byte {pos}")
        if kind == 2:  # an ELF (cubin) entry; 1 is PTX
            sm = int.from_bytes(data[pos + 28:pos + 32], "little")
            out[f"sm_{sm}"] = data[pos + entry_header:pos + entry_header + payload]
        pos += entry_header + payload
    return out


def fatbin_archs(data: bytes) -> list:
    """The architectures of the cubins inside a fatbin (GPU-less).

    Parameters
    ----------
    data : bytes
        A fatbin's bytes.

    Returns
    -------
    list of str
        ``["sm_80", "sm_90", ...]`` in file order.

    Raises
    ------
    ValueError
        ``data`` is not a fatbin.
    """
    return list(fatbin_cubins(data))
