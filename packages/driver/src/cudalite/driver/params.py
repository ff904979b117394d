"""Kernel parameter formats: layout and packing, GPU-less.

A parameter format is a :mod:`struct` format string of a kernel's flattened
parameters, one code per parameter: ``"QQQf"`` is three pointers and a float32.
Codes: ``b B h H i I l L q Q n N e f d ? P`` (native sizes) and ``Ns`` for an
N-byte blob (alignment 1).  A repeat count on any other code means that many
parameters (``"3Q"`` == ``"QQQ"``).  Byte order and size prefixes are not allowed:
the layout is always native with natural alignment (``@``), so each parameter sits
aligned in its own slot and ``pack_params(fmt, *v) == struct.pack(fmt, *v)``.

:func:`param_layout` gives the ``struct.Struct``, the total size and each slot's
offset: the launcher points its ``void*`` array at those offsets once and then only
re-packs the values on each launch.

The format string is the driver's whole input: it knows nothing of the types behind
it.  cudalite's kernels get theirs from the kernel ABI
(``cudalite.core.abi.KernelABI.param_format``); another frontend writes its own.
"""

from __future__ import annotations

import functools
import re
import struct
from dataclasses import dataclass
from typing import Any

__all__ = ["ParamLayout", "param_layout", "pack_params"]

_TOKEN = re.compile(r"(\d*)([bBhHiIlLqQnNefd?Ps])")


@dataclass(frozen=True)
class ParamLayout:
    """The packed layout of one parameter format; made by :func:`param_layout`.

    Parameters
    ----------
    format : str
        The normalized format: one code per parameter (blobs as ``"Ns"``).
    struct : struct.Struct
        The native-alignment ``struct`` of the whole argument buffer.
    offsets : tuple of int
        Byte offset of each parameter in the buffer.
    sizes : tuple of int
        Byte size of each parameter.
    """

    format: str  # normalized: one code per parameter (blobs as "Ns")
    struct: struct.Struct
    offsets: tuple  # byte offset of each parameter
    sizes: tuple  # byte size of each parameter

    @property
    def size(self) -> int:
        """Size of the whole argument buffer, in bytes."""
        return self.struct.size

    @property
    def count(self) -> int:
        """Number of parameters."""
        return len(self.offsets)

    @functools.cached_property
    def codes(self) -> tuple:
        """The code of each parameter (``"Q"``, ``"f"``, ``"16s"``...); parsed once."""
        return tuple(_tokens(self.format))


def _tokens(fmt):
    if fmt and fmt[0] in "@=<>!":
        raise ValueError(f"parameter format {fmt!r}: byte-order/size prefixes are not allowed (always native)")
    pos = 0
    text = fmt.replace(" ", "")
    out = []
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"parameter format {fmt!r}: bad code at {text[pos:]!r}")
        count, code = m.groups()
        if code == "s":
            out.append(f"{count or 1}s")
        else:
            out.extend([code] * int(count or 1))
        pos = m.end()
    return out


def param_layout(fmt: str) -> ParamLayout:
    """Layout of ``fmt``: struct, per-parameter offsets and sizes.

    Parameters
    ----------
    fmt : str
        A parameter format (``"QQQf"``, ``"3Qf"``, ``"16s"``...; see the module docs).

    Returns
    -------
    ParamLayout

    Raises
    ------
    ValueError
        If ``fmt`` has a byte-order/size prefix or an unknown code.
    """
    tokens = _tokens(fmt)
    offsets, sizes = [], []
    prefix = "@"
    for tok in tokens:
        size = struct.calcsize("@" + tok)
        end = struct.calcsize(prefix + tok)
        offsets.append(end - size)
        sizes.append(size)
        prefix += tok
    norm = "".join(tokens)
    return ParamLayout(norm, struct.Struct("@" + norm), tuple(offsets), tuple(sizes))


def pack_params(fmt: str, *values: Any) -> bytes:
    """The argument buffer a launcher builds for ``values`` (for tests/inspection).

    Parameters
    ----------
    fmt : str
        The parameter format.
    *values
        One value per parameter of ``fmt``.

    Returns
    -------
    bytes
        The packed buffer, ``param_layout(fmt).size`` bytes.

    Raises
    ------
    ValueError
        If ``fmt`` is invalid.
    struct.error
        If the values do not match the format.
    """
    layout = param_layout(fmt)
    buf = bytearray(layout.size)
    layout.struct.pack_into(buf, 0, *values)
    return bytes(buf)
