"""The on-disk kernel cache: keys, entries, and the ``cuda.cache`` API.

A kernel is cached when ``@cuda.jit(cache=True)``, ``CUDALITE_CACHE=1`` or
:func:`enable` says so.  An entry holds the *linked cubin* for one ``sm_XY`` plus
what the runtime needs to run it without compiling (entry name, parameter format,
the debug exception table, cooperative-launch flag, return type), so a hit skips
lowering, libNVVM, NVRTC and nvJitLink entirely: only typing runs (milliseconds),
because the key needs the typed call graph.

The key (sha256) covers: the source text, file and first line of the kernel and of
every device function it calls (the typed callee graph), the frozen globals and
closure values each of them reads (reprs; array bytes hashed), the argument types,
the ``@cuda.jit`` options, the target ``sm_XY``, the compiler's own sources (size
and mtime of every module of cudalite.core/nvvm/linker and this runtime's compile
modules), the libNVVM and nvJitLink versions, and the content hash of every piece
of linked code (``link=`` of the kernel, of called device functions and of
``declare_device`` declarations; files are hashed by content).  Kernels with
``link=`` are therefore cached too.

Entries are files ``<dir>/<key>.cubin-entry``: a magic line, a header (sha256
and length of the rest, length of the metadata), a small JSON metadata object
(key, qualname, signature, arch, creation time: what ``cudalite-cache info``
lists) and the kernel's :class:`~._artifact.KernelArtifact` payload (plain,
versioned data: JSON fields and the raw cubin bytes).  Nothing in an entry is
code: reading one never unpickles, imports or executes anything, and only
regular files of bounded size are read.  Writes go to a temporary file in the
same directory and are published with ``os.replace`` (atomic: concurrent
writers of one entry both succeed, readers see a whole entry or none).  A
truncated, corrupt or malformed entry is ignored (a miss) and rewritten.

The directory is untrusted input.  It is created 0700 (with the parents cudalite
makes), entries 0600.  One not owned by the user or writable by group or others is
refused (:func:`directory_refusal`, judged after resolving symlinks): kernels compile
and run without the cache (``[cache: off (untrusted cache directory)]``), with one
:class:`~cudalite.driver.cachedir.UntrustedCacheWarning` per process per directory,
remembered on the process's ``jit_runtime()``.  Entries are opened with
``O_NOFOLLOW``: no symlink inside the directory is followed.

libNVVM/nvJitLink versions are remembered in ``<dir>/toolchain-<fp>.stamp``,
where ``fp`` is a fingerprint of the site-packages directories on ``sys.path``
(their mtimes change when pip installs or upgrades a wheel) and the
CUDA_HOME-like variables; so a
hit needs neither library loaded.  Every miss re-reads the real versions and
repairs the stamp.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import importlib.util
import json
import os
import pickle
import re
import stat
import struct
import sys
import tempfile
import time
import types as pytypes
import warnings
from dataclasses import fields
from typing import Any

from cudalite.core.ffi import ForeignFunction
from cudalite.core.types import DeviceArrayRef, Type
from cudalite.driver.cachedir import (
    CacheUnavailableWarning,
    UntrustedCacheWarning,
    dir_refusal,
    make_private_dirs,
    read_regular,
    refusal_message,
)
from cudalite.driver.logs import library_logger

from .._runtime.record import jit_runtime
from ..config import kernel_cache_dir, load_config

__all__ = [
    "enable", "disable", "is_enabled", "cache_dir", "info", "entries", "clear", "CacheStore",
    "KernelProbe", "probe_kernel", "ENTRY_SUFFIX", "directory_refusal", "creation_refusal",
]

FORMAT = 2
MAGIC = b"CUDALITE-KERNEL-CACHE 2\n"
ENTRY_SUFFIX = ".cubin-entry"
_HEADER_FMT = "<32sQI"  # sha256 of the rest, length of the rest, length of the metadata JSON
_MAX_ENTRY = 1 << 30  # bytes: larger files are not entries

_settings: dict[str, Any] = {"enabled": None, "dir": None}  # the runtime switch: enable()/disable() override config


# -- the switch and the directory ------------------------------------------------------------
def _config():
    return load_config()


def enable(path: Any = None) -> None:
    """Cache every kernel on disk (in ``path``, default the configured directory)."""
    _settings["enabled"] = True
    if path is not None:
        _settings["dir"] = os.fspath(path)


def disable() -> None:
    """Stop caching kernels that do not ask for it (``cache=True`` still caches)."""
    _settings["enabled"] = False


def is_enabled(options: Any = None) -> bool:
    """Whether a kernel with these ``@cuda.jit`` options is cached."""
    if options is not None and getattr(options, "cache", False):
        return True
    if _settings["enabled"] is not None:
        return _settings["enabled"]
    return _config().cache


def cache_dir() -> str:
    """The kernel cache directory (``enable(path)``, else ``$CUDALITE_CACHE_DIR/kernels``,
    else ``~/.cache/cudalite/kernels``)."""
    if _settings["dir"]:
        return _settings["dir"]

    return kernel_cache_dir()


# -- entries on disk -------------------------------------------------------------------------
def _header():
    return struct.Struct(_HEADER_FMT)


def _encode(meta: dict, payload: bytes) -> bytes:

    head = json.dumps(meta, separators=(",", ":")).encode()
    body = head + payload
    return MAGIC + _header().pack(hashlib.sha256(body).digest(), len(body), len(head)) + body


def _decode(blob: bytes):
    """``(metadata dict, artifact payload bytes)`` of an entry, or None when it is not
    a whole, intact entry."""

    header = _header()
    start = len(MAGIC) + header.size
    if len(blob) < start or not blob.startswith(MAGIC):
        return None
    digest, length, head = header.unpack_from(blob, len(MAGIC))
    body = blob[start:]
    if len(body) != length or head > length or hashlib.sha256(body).digest() != digest:
        return None
    try:
        meta = json.loads(body[:head].decode())
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not (isinstance(meta, dict) and meta.get("format") == FORMAT and isinstance(meta.get("key"), str)):
        return None
    return meta, body[head:]


def _read_regular(path: str, limit: int = _MAX_ENTRY):
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes, else None
    (a FIFO, device or symlink is never opened for reading: no hang, no unbounded read)."""

    return read_regular(path, limit)


def _atomic_write(path: str, data: bytes):
    """Write ``data`` to a 0600 temporary file in ``path``'s directory (made 0700 with
    its missing parents) and publish it with ``os.replace``."""


    directory = os.path.dirname(path)
    make_private_dirs(directory)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".part", dir=directory)  # mode 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# -- trusting the directory ------------------------------------------------------------------
def _checked_dirs(directory):
    """The kernel directory, preceded by cudalite's cache root when it is the default
    ``<root>/kernels`` (a directory given to :func:`enable` is its own root)."""

    default = kernel_cache_dir()
    if os.path.abspath(directory) == os.path.abspath(default):
        return (os.path.dirname(default), directory)
    return (directory,)


def directory_refusal(directory: Any, *, create: bool = False, warn: bool = True) -> Any:
    """Why the kernel cache directory must not be used, or None (usable).  On POSIX it
    (and the cache root it lies in, for the default ``<root>/kernels``) must be owned
    by the user and not writable by group or others, judged after resolving symlinks
    (``cudalite.driver.cachedir.dir_refusal``).  ``create``: make it first (0700,
    with its missing parents); one that cannot be made is not refused (nothing is
    stored).  ``warn``: an :class:`UntrustedCacheWarning` naming the directory, why
    and how to fix it, once per process per directory."""

    if create:
        try:
            make_private_dirs(directory)
        except OSError as exc:
            reason = f"{_UNUSABLE} ({_os_error(exc)})"
            if warn:
                _warn_unusable_once(directory, reason)
            return reason
    for d in _checked_dirs(directory):
        reason = dir_refusal(d)
        if reason is not None:
            if warn:
                _warn_once(d, reason)
            return reason
    return None


def _warn_once(directory, reason) -> None:


    rt = jit_runtime()
    seen = os.path.realpath(directory)
    with rt.lock:
        if seen in rt.refused_dirs:
            return
        rt.refused_dirs.add(seen)
    warnings.warn(refusal_message(directory, reason, "kernel cache directory",
                                  "kernels are compiled and run without the cache"),
                  UntrustedCacheWarning, stacklevel=_user_stacklevel())


_UNUSABLE = "it cannot be created"  # how directory_refusal's reason for an unusable directory starts


def _os_error(exc) -> str:
    return f"{type(exc).__name__}: {exc.strerror or exc}" if isinstance(exc, OSError) else str(exc)


def _warn_unusable_once(directory, reason) -> None:
    """One :class:`CacheUnavailableWarning` (and a logged warning) per process per
    directory that cannot be created or written; kernels go on compiling and running."""



    rt = jit_runtime()
    seen = ("unusable", os.path.abspath(directory))
    with rt.lock:
        if seen in rt.refused_dirs:
            return
        rt.refused_dirs.add(seen)
    message = (f"cudalite: the kernel cache directory {directory} is unusable: {reason}; kernels are compiled "
               f"and run without the cache. Set CUDALITE_CACHE_DIR to a writable directory to keep compiled "
               f"kernels between runs.")
    library_logger(__name__).warning("%s", message)
    warnings.warn(message, CacheUnavailableWarning, stacklevel=_user_stacklevel())


def _user_stacklevel() -> int:
    """The ``stacklevel`` (for its caller's ``warnings.warn``) of the first frame outside
    cudalite: the user's line that compiled, loaded or stored the kernel, however deep
    the cache sits below it (the outermost frame when every one is cudalite's)."""

    frame, level = sys._getframe(2), 2  # the frame of our caller's caller: stacklevel 2
    while frame.f_back is not None and _is_cudalite(frame):
        frame, level = frame.f_back, level + 1
    return level


def _is_cudalite(frame) -> bool:
    name = frame.f_globals.get("__name__") or ""
    return name == "cudalite" or name.startswith("cudalite.")


def creation_refusal(directory: Any) -> str | None:
    """Why ``directory`` (which may not exist yet) cannot be created -- its nearest
    existing ancestor is not a directory, or not writable -- or None; creates nothing
    (for reports: ``cudalite-info``)."""

    path = os.path.abspath(directory)
    while not os.path.lexists(path):
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent
    if path == os.path.abspath(directory) and os.path.isdir(path):
        return None  # it exists: dir_refusal judges it
    if not os.path.isdir(path):
        return f"{_UNUSABLE} ({path} is not a directory)"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"{_UNUSABLE} ({path} is not writable)"
    return None


class CacheStore:
    """A directory of entries: ``load(key)``, ``store(key, payload)``, listing, clearing."""

    def __init__(self, path: Any = None) -> None:
        self.path = os.fspath(path) if path is not None else cache_dir()

    def entry_path(self, key: str) -> str:
        return os.path.join(self.path, key + ENTRY_SUFFIX)

    def refusal(self, *, create: bool = False, warn: bool = True) -> Any:
        """Why this directory must not be used, or None (see :func:`directory_refusal`)."""
        return directory_refusal(self.path, create=create, warn=warn)

    def load(self, key: str) -> Any:
        """``(metadata, artifact payload)`` stored for ``key``, or None (absent,
        truncated, corrupt, foreign, not a regular file, an untrusted directory).  A hit
        refreshes the entry's modification time: eviction removes the least recently
        used entries first."""
        if self.refusal() is not None:
            return None
        entry = self._read_entry(key)
        if entry is not None:
            try:
                os.utime(self.entry_path(key))
            except OSError:
                pass  # a read-only directory: the entry is still good
        return entry

    def _read_entry(self, key: str):
        blob = _read_regular(self.entry_path(key))
        entry = None if blob is None else _decode(blob)
        if entry is None or entry[0].get("key") != key:
            return None
        return entry

    def load_artifact(self, key: str, argtypes: Any, link_items: Any = ()) -> Any:
        """The :class:`KernelArtifact` stored for ``key`` (a kernel of ``argtypes``;
        ``link_items``: the code in hand, for setup callbacks), or None."""
        from .artifact import KernelArtifact, PayloadError  # lazy: the artifact format loads at the first cache read

        entry = self.load(key)
        if entry is None:
            return None
        try:
            return KernelArtifact.from_payload(entry[1], argtypes, link_items)
        except PayloadError:
            return None

    def store(self, key: str, payload: bytes, meta: Any = None, max_size: Any = None) -> bool:
        """Write an entry atomically, then evict least recently used entries while the
        directory holds more than ``max_size`` bytes (default ``CUDALITE_CACHE_MAX_SIZE``;
        0: no cap); False (and no exception) when the directory is not trusted or not
        writable -- the latter warned once per process (:class:`CacheUnavailableWarning`)."""
        meta = dict(meta or {}, key=key, format=FORMAT)
        if self.refusal(create=True) is not None:
            return False
        try:
            _atomic_write(self.entry_path(key), _encode(meta, bytes(payload)))
        except OSError as exc:
            _warn_unusable_once(self.path, f"an entry cannot be written ({_os_error(exc)})")
            return False
        cap = _config().cache_max_size if max_size is None else max_size
        if cap:
            self.evict(cap, keep=key)
        return True

    def evict(self, max_size: int, keep: Any = None) -> Any:
        """Remove the least recently used entries (oldest modification time: written or
        last hit) until the entries total at most ``max_size`` bytes, never ``keep``'s;
        ``(entries removed, bytes freed)``.  Another process removing the same file
        at the same time is fine."""
        sized = []
        try:
            with os.scandir(self.path) as it:
                for e in it:
                    if e.name.endswith(ENTRY_SUFFIX):
                        try:
                            st = e.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        sized.append((st.st_mtime_ns, st.st_size, e.name))
        except OSError:
            return 0, 0
        total = sum(size for _, size, _ in sized)
        removed = freed = 0
        keep_name = None if keep is None else keep + ENTRY_SUFFIX
        for _, size, name in sorted(sized):
            if total <= max_size:
                break
            if name == keep_name:
                continue
            try:
                os.unlink(os.path.join(self.path, name))
            except FileNotFoundError:
                pass  # evicted by another process
            except OSError:
                continue
            total -= size
            removed, freed = removed + 1, freed + size
        return removed, freed

    def store_artifact(self, key: str, artifact: Any, *, qualname: str = "?", argtypes: Any = ()) -> bool:
        """Store a kernel's artifact with the metadata ``cudalite-cache info`` lists."""
        meta = {"qualname": qualname, "signature": f"({', '.join(map(str, argtypes))})",
                "arch": artifact.arch, "created": time.time()}
        return self.store(key, artifact.to_payload(), meta)

    def entries(self) -> Any:
        """``[{key, path, size, valid, qualname, signature, arch, created}]`` of every entry."""
        out: list = []
        try:
            names = sorted(os.listdir(self.path))
        except OSError:
            return out
        for name in names:
            if not name.endswith(ENTRY_SUFFIX):
                continue
            path = os.path.join(self.path, name)
            key = name[: -len(ENTRY_SUFFIX)]
            try:
                size = os.path.getsize(path)
            except OSError:
                continue
            entry = self._read_entry(key)  # data only: listed whoever owns the directory
            meta = entry[0] if entry is not None else {}
            out.append({"key": key, "path": path, "size": size, "valid": entry is not None,
                        "qualname": _text(meta.get("qualname")), "signature": _text(meta.get("signature")),
                        "arch": _text(meta.get("arch")),
                        "created": meta.get("created") if isinstance(meta.get("created"), (int, float)) else None})
        return out

    def info(self) -> dict:
        """``{path, entries, bytes, invalid, max_size}``."""
        es = self.entries()
        return {"path": self.path, "entries": len(es), "bytes": sum(e["size"] for e in es),
                "invalid": sum(not e["valid"] for e in es), "max_size": _config().cache_max_size}

    def clear(self) -> int:
        """Remove every entry, toolchain stamp and stray temporary file that cudalite
        wrote -- its own name *and* content prove it (:func:`_written_here`); any other
        file, whatever its suffix, and every symlink stays.  Returns how many entries
        were removed."""
        removed = 0
        try:
            names = os.listdir(self.path)
        except OSError:
            return 0
        for name in names:
            path = os.path.join(self.path, name)
            if _written_here(name, path):
                try:
                    os.unlink(path)
                    removed += name.endswith(ENTRY_SUFFIX)
                except OSError:
                    pass
        return removed


_ENTRY_NAME = re.compile(r"[0-9a-f]{64}" + re.escape(ENTRY_SUFFIX))  # a sha256 key (CacheStore.entry_path)
_STAMP_NAME = re.compile(r"toolchain-[0-9a-f]+\.stamp")  # _stamp_path
_PART_NAME = re.compile(r"\.tmp-[a-z0-9_]{8}\.part")  # _atomic_write's tempfile.mkstemp


def _written_here(name: str, path: str) -> bool:
    """Whether the file ``name`` in a cache directory is one cudalite wrote: an entry
    (a key's name, a regular file starting with the entry magic, whole or not), a
    toolchain stamp (its name, a small regular file) or a temporary file of an
    interrupted write (mkstemp's name; the start of an entry or of a stamp)."""

    if _ENTRY_NAME.fullmatch(name):
        return _head(path, len(MAGIC)) == MAGIC
    if _STAMP_NAME.fullmatch(name):
        return _read_regular(path, 4096) is not None
    if _PART_NAME.fullmatch(name):
        head = _head(path, len(MAGIC))
        return bool(head) and (MAGIC.startswith(head)
                               or (head.startswith(b"[") and _read_regular(path, 4096) is not None))
    return False


def _head(path: str, n: int):
    """The first ``n`` bytes of ``path`` if it is a regular file (no symlink, FIFO or
    device is opened), else None."""

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        return os.read(fd, n) if stat.S_ISREG(os.fstat(fd).st_mode) else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _text(value) -> str:
    return value if isinstance(value, str) else "?"


def entries(path: Any = None) -> Any:
    """The entries of the kernel cache (see :meth:`CacheStore.entries`)."""
    return CacheStore(path).entries()


def info(path: Any = None) -> dict:
    """``{path, entries, bytes, invalid}`` of the kernel cache."""
    return CacheStore(path).info()


def clear(path: Any = None) -> int:
    """Empty the kernel cache; returns the number of entries removed."""
    return CacheStore(path).clear()


# -- the key ---------------------------------------------------------------------------------
def _walk_consts(body, out) -> None:
    """Named constants (frozen globals, closure values, folded attributes) in a function body."""


    from cudalite.core import ir  # lazy: the IR (a compiler module) loads with the first key

    for stmt in ir.walk_stmts(body):
        for e in ir.walk_exprs(stmt):
            if isinstance(e, ir.Const) and e.name:
                out.append((e.name, e.value))


class Uncacheable(Exception):
    """A value whose identity cannot be put in a key (its repr names an address)."""


def _type_fp(t):
    if isinstance(t, Type):
        return (type(t).__name__, _type_fp(t.key))
    if isinstance(t, (tuple, list)):
        return tuple(_type_fp(x) for x in t)
    return repr(t)


def _value_fp(value, links, depth=0):
    """A stable fingerprint of a compile-time constant."""


    if depth > 8:
        raise Uncacheable("nested too deep")
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return (type(value).__name__, repr(value))
    if isinstance(value, (tuple, list, frozenset, set)):
        items = [_value_fp(v, links, depth + 1) for v in value]
        return (type(value).__name__, tuple(sorted(items) if isinstance(value, (set, frozenset)) else items))
    if isinstance(value, pytypes.ModuleType):
        return ("module", value.__name__)
    np = sys.modules.get("numpy")
    if np is not None:
        if isinstance(value, np.ndarray):
            data = np.ascontiguousarray(value)
            return ("ndarray", value.dtype.descr if value.dtype.fields else value.dtype.str, value.shape,
                    hashlib.sha256(data.view(np.uint8).reshape(-1) if data.size else b"").hexdigest())
        if isinstance(value, (np.generic, np.dtype)):
            return (type(value).__name__, repr(value), str(getattr(value, "dtype", value)))


    if isinstance(value, Type):
        return ("type", _type_fp(value))
    if isinstance(value, DeviceArrayRef):  # numba-cuda's error: the pointer is valid in this process only
        raise pickle.PicklingError("Cannot serialize kernels or device functions referencing global device "
                                   "arrays. Pass the array(s) as arguments to the kernel instead.")
    if isinstance(value, ForeignFunction):
        links.extend(value.link)
        return ("foreign", value.name, _type_fp(value.argtypes), _type_fp(value.return_type), value.abi,
                value.use_cooperative)
    pyfunc = getattr(value, "__cudalite_pyfunc__", None) or getattr(value, "py_func", None)
    if pyfunc is not None:  # a dispatcher: its code is in the callee graph, its links here
        links.extend(getattr(value, "__cudalite_links__", ()) or ())
        choice, force = getattr(value, "__cudalite_inline__", ("never", False))
        if callable(choice):  # a cost model: by name (its repr holds an address)
            choice = (getattr(choice, "__module__", None), getattr(choice, "__qualname__", None))
        return ("dispatcher", type(value).__name__, pyfunc.__module__, pyfunc.__qualname__, choice, force)
    if isinstance(value, (type, pytypes.FunctionType, pytypes.BuiltinFunctionType)):
        return ("callable", getattr(value, "__module__", None), getattr(value, "__qualname__", repr(value)))

    if isinstance(value, enum.Enum):
        return ("enum", type(value).__module__, type(value).__qualname__, value.name, repr(value.value))
    text = repr(value)
    if " at 0x" in text or "object at" in text:
        raise Uncacheable(f"{type(value).__qualname__} has no stable repr")
    return (type(value).__module__, type(value).__qualname__, text)


def _source_fp(pyfunc):
    from cudalite.core.frontend import capture  # lazy: the frontend loads with the first key

    src = capture(pyfunc)
    node = src.node
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    text = "".join(src.lines[first - 1: node.end_lineno])
    return (src.filename, first + src.line_offset, hashlib.sha256(text.encode()).hexdigest())


def _graph(tf):
    """The typed functions reachable from ``tf`` (itself first), each once."""
    order, seen, stack = [], set(), [tf]
    while stack:
        f = stack.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        order.append(f)
        stack.extend(reversed(f.callees))
    return order


def _path_hash(item):
    from cudalite.linker import LinkableCode  # lazy: the linker, with a key that links files

    return LinkableCode.from_path(item).content_hash


def link_hashes(items: Any) -> Any:
    """Content hashes of link items (linkable-code objects or paths), sorted, once each."""
    out = set()
    for item in items:
        h = getattr(item, "content_hash", None)
        out.add(h if h is not None else _path_hash(item))
    return tuple(sorted(out))


@functools.lru_cache(maxsize=None)
def compiler_fingerprint() -> str:
    """size+mtime of every module of the compiler (core, nvvm, linker) and of this
    runtime's compile modules: a changed or reinstalled compiler invalidates entries."""


    h = hashlib.sha256(f"{FORMAT}|{sys.version}".encode())
    roots = []
    for name in ("cudalite.core", "cudalite.nvvm", "cudalite.linker"):
        spec = importlib.util.find_spec(name)
        roots.extend(spec.submodule_search_locations or [] if spec else [])
    for root in sorted(roots):
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for fn in sorted(filenames):
                if fn.endswith(".py"):
                    st = os.stat(os.path.join(dirpath, fn))
                    h.update(f"{os.path.relpath(dirpath, root)}/{fn}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    jit_compiler = importlib.util.find_spec("cudalite.cuda._compiler").submodule_search_locations[0]  # type: ignore
    paths = [os.path.join(jit_compiler, fn) for fn in sorted(os.listdir(jit_compiler)) if fn.endswith(".py")]
    for path in paths + [os.path.abspath(__file__)]:  # the jit's compile side, and this module
        st = os.stat(path)
        h.update(f"jit/{os.path.basename(path)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _toolchain_fp(cfg) -> str:
    h = hashlib.sha256(repr(cfg.toolchain_env).encode())
    for p in sys.path:  # pip renames a wheel's .dist-info on every version change
        if os.path.basename(p.rstrip(os.sep)) not in ("site-packages", "dist-packages"):
            continue
        try:
            h.update(f"{p}:{os.stat(p or '.').st_mtime_ns}\n".encode())
        except OSError:
            h.update(f"{p}:-\n".encode())
    return h.hexdigest()[:24]


def real_toolchain_versions() -> tuple:
    """(libNVVM version, NVVM IR version, nvJitLink version): loads both libraries."""
    from cudalite.linker import nvjitlink_version  # lazy: the toolchain versions are read with the first key
    from cudalite.nvvm.libnvvm import ir_version, nvvm_version  # lazy: as above

    return (tuple(nvvm_version()), tuple(ir_version()), tuple(nvjitlink_version()))


def _stamp_path(directory, cfg):
    return os.path.join(directory, f"toolchain-{_toolchain_fp(cfg)}.stamp")


def toolchain_versions(directory: Any, cfg: Any, refresh: bool = False) -> tuple:
    """The toolchain versions, from the stamp when it exists (no library loaded)."""
    path = _stamp_path(directory, cfg)
    if not refresh:
        versions = _read_stamp(path)
        if versions is not None:
            return versions
    versions = real_toolchain_versions()
    try:
        _atomic_write(path, json.dumps([list(v) for v in versions]).encode())
    except OSError:
        pass
    return versions


def _read_stamp(path):
    """The versions in a stamp: three lists of at most 8 small ints, else None."""

    blob = _read_regular(path, 4096)
    try:
        data = json.loads(blob.decode()) if blob is not None else None
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not (isinstance(data, list) and len(data) == 3 and all(
            isinstance(v, list) and len(v) <= 8 and all(type(i) is int and 0 <= i < 1 << 20 for i in v)
            for v in data)):
        return None
    return tuple(tuple(v) for v in data)


def _options_fp(opts):  # link/cache: not code; programmatic_dependent_launch: a launch attribute
    skip = ("link", "cache", "programmatic_dependent_launch")
    return tuple((f.name, repr(getattr(opts, f.name))) for f in fields(opts) if f.name not in skip)


class KernelProbe:
    """A kernel typed for the cache: its typing context (reused when compiling on a
    miss), typed function, key (None: not cacheable, ``reason`` says why), the link
    items the key covers and the parse/infer/key times."""

    def __init__(self) -> None:  # its attributes are set by probe_kernel (typed Any)
        unset: Any = None
        self.context = self.typed = self.key = self.reason = self.parts = unset
        self.links: list = []
        self.timings: dict = {}

    def rekey(self, versions: Any) -> None:
        self.parts = self.parts[:-1] + (("toolchain", versions),)
        self.key = hashlib.sha256(repr(self.parts).encode()).hexdigest()


def probe_kernel(pyfunc: Any, argtypes: Any, opts: Any, cc: Any, *, directory: Any = None, kind: str = "kernel",
                 compile_options: Any = None) -> KernelProbe:
    """Type ``pyfunc`` for ``argtypes`` and compute its cache key.  ``compile_options``:
    the compiler's options for the typing context (the compile on a miss reuses it)."""

    from cudalite.core import registry, typing  # lazy: typing loads with the first key

    p = KernelProbe()
    t0 = time.perf_counter()
    try:
        p.context = typing.TypingContext(registry.registry, compile_options)
        p.context.function_ir(pyfunc)
        t1 = time.perf_counter()
        tf = p.typed = p.context.type_function(pyfunc, tuple(argtypes))
    except Exception as e:  # a compile error: the pipeline reports it (with its location)
        p.context, p.reason = None, f"{type(e).__name__}"
        return p
    t2 = time.perf_counter()
    p.timings.update(parse=t1 - t0, infer=t2 - t1)
    directory = directory or cache_dir()
    refused = directory_refusal(directory, create=True)
    if refused is not None:  # warned once: compile without the cache
        p.reason = "cache directory unusable" if refused.startswith(_UNUSABLE) else "untrusted cache directory"
        p.timings["key"] = time.perf_counter() - t2
        return p
    links = list(opts.link)
    try:
        funcs = []
        for f in _graph(tf):
            consts: list = []
            _walk_consts(f.fir.body, consts)
            for info in f.calls.values():
                links.extend(info.links or ())
                links.extend(getattr(info.key, "link", ()) if _is_foreign(info.key) else ())
            funcs.append((f.fir.module, f.fir.qualname, _source_fp(f.fir.pyfunc), _type_fp(f.argtypes),
                          _type_fp(f.return_type),
                          tuple(sorted((name, repr(_value_fp(v, links))) for name, v in consts))))
        p.links = links
        cfg = _config()
        parts = (("format", FORMAT), ("kind", kind), ("compiler", compiler_fingerprint()),
                 ("argtypes", _type_fp(tuple(argtypes))), ("options", _options_fp(opts)),
                 ("arch", f"sm_{cc[0]}{cc[1]}"), ("functions", tuple(funcs)), ("links", link_hashes(links)))
        p.parts = parts + (("toolchain", toolchain_versions(directory, cfg)),)
        p.key = hashlib.sha256(repr(p.parts).encode()).hexdigest()
    except Uncacheable as e:
        p.reason = str(e)
    except (OSError, ImportError) as e:  # a link file vanished, no toolchain: compile normally
        p.reason = f"{type(e).__name__}: {e}"
    p.timings["key"] = time.perf_counter() - t2
    return p


def _is_foreign(obj):
    return isinstance(obj, ForeignFunction)


def verify_after_compile(probe: KernelProbe, result: Any, directory: Any) -> bool:
    """After a miss: repair the toolchain stamp (re-keying if it was stale) and check
    that every linked item was covered by the key.  False: do not store."""
    cfg = _config()
    versions = toolchain_versions(directory, cfg, refresh=True)
    if versions != probe.parts[-1][1]:
        probe.rekey(versions)
    try:
        covered = set(link_hashes(probe.links))
        return set(link_hashes(result.link_items)) <= covered
    except OSError:
        return False
