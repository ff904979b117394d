"""Linkable code: immutable value objects, one class per kind of input.

``PTXSource``, ``CUSource``, ``Cubin``, ``Fatbin``, ``Object``, ``Archive`` and
``LTOIR`` (base :class:`LinkableCode`) hold bytes, a name, optional module
setup/teardown callbacks and a content hash.  They are the only thing passed
between NVRTC, the linker and whoever loads the result.  Importing this module
loads no native library.
"""

from __future__ import annotations

import hashlib
import io
import os
from typing import Any, Callable

from ._elf import elf_sm, elf_symbols
from ._errors import MissingFileError, UnknownFileTypeError

__all__ = ["LinkableCode", "PTXSource", "CUSource", "Cubin", "Fatbin", "Object", "Archive", "LTOIR",
           "SUFFIXES"]


class LinkableCode:
    """Bytes of one kind of linkable code, a name, and module callbacks.

    ``LinkableCode(data, name=None, setup_callback=None, teardown_callback=None,
    nrt=False)`` takes ``bytes`` (or ``str``, encoded as UTF-8, or an
    ``io.BytesIO``/``io.StringIO``, read now), as numba's; ``nrt=True`` (numba's NRT
    runtime) is refused.  ``setup_callback`` and
    ``teardown_callback`` are called by the runtime with the loaded module after
    load / before unload.  Instances are immutable and compare by kind, name and
    data; ``content_hash`` depends on kind and data only.

    This base class is abstract: instantiate one of the kinds, or use :meth:`from_path`.

    Parameters
    ----------
    data : bytes, str, io.BytesIO or io.StringIO
        The content (``str`` is encoded as UTF-8; a stream is read now).
    name : str, optional
        A name for logs and errors (default: a placeholder for the kind).
    setup_callback : callable, optional
        Called with the loaded module after it is loaded.
    teardown_callback : callable, optional
        Called with the loaded module before it is unloaded.
    nrt : bool, optional
        numba's NRT flag; only ``False`` is accepted.

    Raises
    ------
    TypeError
        If ``data`` is of another type or a callback is not callable.
    NotImplementedError
        If ``nrt`` is true.
    """

    kind = "linkable"          # short name of the kind, part of content_hash
    input_type: str | None = "ANY"  # the nvJitLink InputType member this kind is added as
    suffixes: tuple = ()       # file extensions of this kind
    default_name = "<linkable>"

    __slots__ = ("_data", "_name", "_setup_callback", "_teardown_callback", "_hash")
    _data: bytes
    _name: str
    _setup_callback: Callable[..., Any] | None
    _teardown_callback: Callable[..., Any] | None
    _hash: str | None

    def __init__(self, data: Any, name: Any = None, setup_callback: Any = None, teardown_callback: Any = None,
                 nrt: bool = False) -> None:
        if nrt:
            raise NotImplementedError("nrt=True: numba's NRT runtime does not exist in cudalite")
        if isinstance(data, (io.BytesIO, io.StringIO)):
            data = data.getvalue()
        if type(self) is LinkableCode:
            raise TypeError("LinkableCode is abstract: use PTXSource, CUSource, Cubin, Fatbin, "
                            "Object, Archive or LTOIR (or LinkableCode.from_path)")
        if isinstance(data, str):
            data = data.encode()
        elif isinstance(data, (bytearray, memoryview)):
            data = bytes(data)
        elif not isinstance(data, bytes):
            raise TypeError(f"{type(self).__name__} data must be bytes or str, not {type(data).__name__}")
        for label, cb in (("setup_callback", setup_callback), ("teardown_callback", teardown_callback)):
            if cb is not None and not callable(cb):
                raise TypeError(f"{label} must be callable or None")
        setter = object.__setattr__
        setter(self, "_data", data)
        setter(self, "_name", str(name) if name is not None else self.default_name)
        setter(self, "_setup_callback", setup_callback)
        setter(self, "_teardown_callback", teardown_callback)
        setter(self, "_hash", None)

    # -- immutability ------------------------------------------------------
    def __setattr__(self, key: Any, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, key: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    # -- fields ------------------------------------------------------------
    @property
    def data(self) -> bytes:
        """The content, as bytes."""
        return self._data

    @property
    def name(self) -> str:
        """The name used in logs and errors."""
        return self._name

    @property
    def setup_callback(self) -> Any:
        """The callable run with the loaded module after load, or None."""
        return self._setup_callback

    @property
    def teardown_callback(self) -> Any:
        """The callable run with the loaded module before unload, or None."""
        return self._teardown_callback

    @property
    def content_hash(self) -> str:
        """sha256 hex digest of the kind and the data (a cache key)."""
        if self._hash is None:
            digest = hashlib.sha256(self.kind.encode() + b"\0" + self._data).hexdigest()
            object.__setattr__(self, "_hash", digest)
            return digest
        return self._hash

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, LinkableCode):
            return NotImplemented
        return (type(self) is type(other) and self._name == other._name and self._data == other._data
                and self._setup_callback is other._setup_callback
                and self._teardown_callback is other._teardown_callback)

    def __hash__(self) -> int:
        return hash((type(self), self._name, self.content_hash))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self._name!r}, {len(self._data)} bytes, {self.content_hash[:12]})"

    # -- construction from files ---------------------------------------------
    @classmethod
    def from_path(cls, path: Any, *, name: Any = None, setup_callback: Any = None,
                  teardown_callback: Any = None) -> Any:
        """Read a file.  On the base class the kind follows the extension
        (``.ptx .cu .cubin .fatbin .o .a .lib .ltoir``); on a subclass the
        file is read as that kind whatever its extension.  ``name`` defaults
        to the file's base name.

        Parameters
        ----------
        path : str or os.PathLike
            The file to read.
        name : str, optional
            The code's name (default: the file's base name).
        setup_callback : callable, optional
            Called with the loaded module after load.
        teardown_callback : callable, optional
            Called with the loaded module before unload.

        Returns
        -------
        LinkableCode
            An instance of the kind.

        Raises
        ------
        UnknownFileTypeError
            On the base class, if the extension names no kind.
        MissingFileError
            If the file does not exist.
        """
        path = os.fspath(path)
        kind = cls
        if cls is LinkableCode:
            kind = kind_for_path(path)
        if not os.path.isfile(path):
            raise MissingFileError(path)
        with open(path, "rb") as f:
            data = f.read()
        return kind(data, name=name or os.path.basename(path), setup_callback=setup_callback,
                    teardown_callback=teardown_callback)


class PTXSource(LinkableCode):
    """PTX assembly text.

    Parameters
    ----------
    data : bytes, str, io.BytesIO or io.StringIO
        The content (``str`` is encoded as UTF-8; a stream is read now).
    name : str, optional
        A name for logs and errors (default: a placeholder for the kind).
    setup_callback : callable, optional
        Called with the loaded module after it is loaded.
    teardown_callback : callable, optional
        Called with the loaded module before it is unloaded.
    nrt : bool, optional
        numba's NRT flag; only ``False`` is accepted.

    Raises
    ------
    TypeError
        If ``data`` is of another type or a callback is not callable.
    NotImplementedError
        If ``nrt`` is true.
    """
    kind, input_type, suffixes, default_name = "ptx", "PTX", (".ptx",), "<ptx>.ptx"
    __slots__ = ()

    @property
    def text(self) -> str:
        """The PTX as a string (trailing NULs removed)."""
        return self._data.rstrip(b"\0").decode()


class CUSource(LinkableCode):
    """CUDA C++ source, compiled with NVRTC when linked (to PTX, or LTO-IR for LTO).

    Parameters
    ----------
    data : bytes, str, io.BytesIO or io.StringIO
        The content (``str`` is encoded as UTF-8; a stream is read now).
    name : str, optional
        A name for logs and errors (default: a placeholder for the kind).
    setup_callback : callable, optional
        Called with the loaded module after it is loaded.
    teardown_callback : callable, optional
        Called with the loaded module before it is unloaded.
    nrt : bool, optional
        numba's NRT flag; only ``False`` is accepted.

    Raises
    ------
    TypeError
        If ``data`` is of another type or a callback is not callable.
    NotImplementedError
        If ``nrt`` is true.
    """
    kind, input_type, suffixes, default_name = "cu", None, (".cu",), "<cuda>.cu"
    __slots__ = ()

    @property
    def text(self) -> str:
        """The source as a string."""
        return self._data.decode()


class Cubin(LinkableCode):
    """A CUDA ELF binary (relocatable from NVRTC/nvcc, or linked by nvJitLink).

    Parameters
    ----------
    data : bytes, str, io.BytesIO or io.StringIO
        The content (``str`` is encoded as UTF-8; a stream is read now).
    name : str, optional
        A name for logs and errors (default: a placeholder for the kind).
    setup_callback : callable, optional
        Called with the loaded module after it is loaded.
    teardown_callback : callable, optional
        Called with the loaded module before it is unloaded.
    nrt : bool, optional
        numba's NRT flag; only ``False`` is accepted.

    Raises
    ------
    TypeError
        If ``data`` is of another type or a callback is not callable.
    NotImplementedError
        If ``nrt`` is true.
    """
    kind, input_type, suffixes, default_name = "cubin", "CUBIN", (".cubin",), "<cubin>.cubin"
    __slots__ = ()

    @property
    def arch(self) -> str | None:
        """``"sm_90"`` for a cubin built for sm_90 (None if the ELF header says nothing)."""
        sm = elf_sm(self._data)
        return None if sm is None else f"sm_{sm}"

    def symbol_names(self, defined_only: bool = True) -> list[str]:
        """Names of the functions and variables in the cubin's symbol table
        (kernels, device functions, globals; no section or file symbols).

        Parameters
        ----------
        defined_only : bool, optional
            Only symbols the cubin defines (default); ``False`` adds undefined ones.

        Returns
        -------
        list of str

        Raises
        ------
        InvalidInputError
            If the data is not a well-formed ELF64 file.
        """
        return [s.name for s in elf_symbols(self._data, self._name)
                if s.type not in (3, 4) and (s.defined or not defined_only)]


class Fatbin(LinkableCode):
    """A fat binary (several cubins / PTX for several architectures).

    Parameters
    ----------
    data : bytes, str, io.BytesIO or io.StringIO
        The content (``str`` is encoded as UTF-8; a stream is read now).
    name : str, optional
        A name for logs and errors (default: a placeholder for the kind).
    setup_callback : callable, optional
        Called with the loaded module after it is loaded.
    teardown_callback : callable, optional
        Called with the loaded module before it is unloaded.
    nrt : bool, optional
        numba's NRT flag; only ``False`` is accepted.

    Raises
    ------
    TypeError
        If ``data`` is of another type or a callback is not callable.
    NotImplementedError
        If ``nrt`` is true.
    """
    kind, input_type, suffixes, default_name = "fatbin", "FATBIN", (".fatbin",), "<fatbin>.fatbin"
    __slots__ = ()


class Object(LinkableCode):
    """A host object with relocatable device code (``nvcc -dc``).

    Parameters
    ----------
    data : bytes, str, io.BytesIO or io.StringIO
        The content (``str`` is encoded as UTF-8; a stream is read now).
    name : str, optional
        A name for logs and errors (default: a placeholder for the kind).
    setup_callback : callable, optional
        Called with the loaded module after it is loaded.
    teardown_callback : callable, optional
        Called with the loaded module before it is unloaded.
    nrt : bool, optional
        numba's NRT flag; only ``False`` is accepted.

    Raises
    ------
    TypeError
        If ``data`` is of another type or a callback is not callable.
    NotImplementedError
        If ``nrt`` is true.
    """
    kind, input_type, suffixes, default_name = "object", "OBJECT", (".o",), "<object>.o"
    __slots__ = ()


class Archive(LinkableCode):
    """A static library of such objects (``nvcc -lib``).

    Parameters
    ----------
    data : bytes, str, io.BytesIO or io.StringIO
        The content (``str`` is encoded as UTF-8; a stream is read now).
    name : str, optional
        A name for logs and errors (default: a placeholder for the kind).
    setup_callback : callable, optional
        Called with the loaded module after it is loaded.
    teardown_callback : callable, optional
        Called with the loaded module before it is unloaded.
    nrt : bool, optional
        numba's NRT flag; only ``False`` is accepted.

    Raises
    ------
    TypeError
        If ``data`` is of another type or a callback is not callable.
    NotImplementedError
        If ``nrt`` is true.
    """
    kind, input_type, suffixes, default_name = "archive", "LIBRARY", (".a", ".lib"), "<archive>.a"
    __slots__ = ()


class LTOIR(LinkableCode):
    """NVVM LTO-IR (NVRTC ``-dlto``, libNVVM ``-gen-lto``); linking it makes the link LTO.

    Parameters
    ----------
    data : bytes, str, io.BytesIO or io.StringIO
        The content (``str`` is encoded as UTF-8; a stream is read now).
    name : str, optional
        A name for logs and errors (default: a placeholder for the kind).
    setup_callback : callable, optional
        Called with the loaded module after it is loaded.
    teardown_callback : callable, optional
        Called with the loaded module before it is unloaded.
    nrt : bool, optional
        numba's NRT flag; only ``False`` is accepted.

    Raises
    ------
    TypeError
        If ``data`` is of another type or a callback is not callable.
    NotImplementedError
        If ``nrt`` is true.
    """
    kind, input_type, suffixes, default_name = "ltoir", "LTOIR", (".ltoir",), "<ltoir>.ltoir"
    __slots__ = ()


_KINDS = (PTXSource, CUSource, Cubin, Fatbin, Object, Archive, LTOIR)
SUFFIXES = {suffix: kind for kind in _KINDS for suffix in kind.suffixes}


def kind_for_path(path: str) -> type:
    """The LinkableCode class for a path's extension (case-insensitive)."""
    suffix = os.path.splitext(path)[1].lower()
    try:
        return SUFFIXES[suffix]
    except KeyError:
        accepted = " ".join(sorted(SUFFIXES))
        shown = f"extension {suffix!r}" if suffix else "no extension"
        raise UnknownFileTypeError(f"cannot link {path}: {shown} is not a linkable kind "
                                   f"(accepted: {accepted})") from None
