"""KernelArtifact: one compiled kernel specialization, as an immutable value.

The same value comes out of a fresh compile (:meth:`KernelArtifact.from_compile`)
and out of the on-disk cache (:meth:`KernelArtifact.from_payload`), and the
runtime loads a kernel from it the same way in both cases.  It holds the stage
texts (typed IR, NVVM IR, PTX or LTO-IR), the linked cubin for one ``sm_XY``,
the entry name, the :class:`~cudalite.core.abi.KernelABI` (how arguments are
flattened), the debug exception table, whether a cooperative launch is needed,
and the link items (kept in hand, never stored: their setup callbacks are code).

The stored form (:meth:`to_payload`) is plain, versioned data::

    MAGIC | u32 version | u32 n = len(json) | json (n bytes, UTF-8) | blob 0 | blob 1 ...

where the JSON object holds the scalar fields and texts, names each binary blob
(``cubin``, ``ltoir``) with its length, in order, and holds the SHA-256 of the code
(``sha256``: the stage texts and the blobs, :func:`_code_digest`).  Loading
validates every field's type and every length, then the digest, before anything is
used: a changed byte of the cubin or of a stage text is refused, wherever the payload
came from (the disk cache, whose entries also carry a digest of the whole entry, or a
pickle, whose carried code has no other check).  It never unpickles, imports or
executes anything.
"""

from __future__ import annotations

import hashlib
import json
import struct
from dataclasses import dataclass, field

from cudalite.core.abi import KernelABI
from cudalite.nvvm.artifacts import ExceptionTable, PayloadError

__all__ = ["KernelArtifact", "PayloadError", "PAYLOAD_VERSION"]

MAGIC = b"CUDALITE-KERNEL-ARTIFACT\n"
#: 2: exception-table entries carry a runtime-value message template (bounds checks)
#: 3: the SHA-256 of the code (``sha256``)
PAYLOAD_VERSION = 3
_HEAD = struct.Struct("<II")
_TEXT_STAGES = ("typed-ir", "nvvm-ir", "ptx")
_BLOB_STAGES = ("ltoir",)
_MAX_JSON = 64 << 20


@dataclass(frozen=True, slots=True)
class KernelArtifact:
    """A kernel compiled and linked for one ``sm_XY`` (see the module docstring)."""

    entry_name: str
    arch: str
    cubin: bytes
    abi: object  # cudalite.core.abi.KernelABI
    exceptions: ExceptionTable = ExceptionTable()
    exc_symbol: str | None = None
    uses_grid_sync: bool = False
    stages: tuple = ()  # ((stage name, text or bytes), ...) in pipeline order
    link_items: tuple = field(default=(), compare=False, repr=False)

    @classmethod
    def from_compile(cls, result, cubin: bytes, arch: str, link_items=()) -> "KernelArtifact":
        """From a pipeline result (``cudalite.nvvm.pipeline.PipelineResult``) and its linked cubin."""
        stages = tuple((k, result.artifacts[k].data) for k in (*_TEXT_STAGES, *_BLOB_STAGES)
                       if k in result.artifacts)
        return cls(entry_name=result.entry_name, arch=arch, cubin=bytes(cubin), abi=result.abi,
                   exceptions=result.exceptions, exc_symbol=result.exc_symbol,
                   uses_grid_sync=bool(result.uses_grid_sync), stages=stages,
                   link_items=tuple(link_items))

    def stage(self, name):
        """The text (or bytes) of stage ``name``, or None when it is not held."""
        for k, v in self.stages:
            if k == name:
                return v
        return None

    @property
    def param_format(self) -> str:
        return self.abi.param_format

    def setup_callback(self):
        """One callable running the link items' setup callbacks on a loaded module, or None."""
        callbacks = [cb for cb in (getattr(i, "setup_callback", None) for i in self.link_items) if cb is not None]
        if not callbacks:
            return None

        def setup(module):
            for cb in callbacks:
                cb(module)

        return setup

    # -- stored form ---------------------------------------------------------------------
    def storable(self) -> bool:
        return self.exceptions.storable()

    def to_payload(self) -> bytes:
        blobs = [("cubin", self.cubin)] + [(k, v) for k, v in self.stages if isinstance(v, bytes)]
        doc = {
            "entry_name": self.entry_name, "arch": self.arch, "abi": self.abi.to_payload(),
            "exceptions": self.exceptions.to_payload(), "exc_symbol": self.exc_symbol,
            "uses_grid_sync": self.uses_grid_sync,
            "texts": [[k, v] for k, v in self.stages if isinstance(v, str)],
            "blobs": [[k, len(v)] for k, v in blobs],
            "order": [k for k, _ in self.stages],
        }
        doc["sha256"] = _code_digest(doc["texts"], [v for _, v in blobs])
        body = json.dumps(doc, separators=(",", ":"), allow_nan=True).encode()
        return b"".join([MAGIC, _HEAD.pack(PAYLOAD_VERSION, len(body)), body, *(bytes(v) for _, v in blobs)])

    @classmethod
    def from_payload(cls, data: bytes, argtypes, link_items=()) -> "KernelArtifact":
        """Rebuild the artifact stored by :meth:`to_payload` for a kernel of
        ``argtypes``; :class:`PayloadError` (a ValueError) when ``data`` is not one."""

        data = bytes(data)
        if not data.startswith(MAGIC) or len(data) < len(MAGIC) + _HEAD.size:
            raise PayloadError("not a kernel artifact")
        version, n = _HEAD.unpack_from(data, len(MAGIC))
        if version != PAYLOAD_VERSION:
            raise PayloadError(f"kernel artifact version {version} (this cudalite reads {PAYLOAD_VERSION})")
        start = len(MAGIC) + _HEAD.size
        if n > _MAX_JSON or start + n > len(data):
            raise PayloadError("kernel artifact: truncated header")
        try:
            doc = json.loads(data[start:start + n].decode())
        except (ValueError, UnicodeDecodeError, RecursionError) as e:
            raise PayloadError(f"kernel artifact: bad header ({type(e).__name__})") from None
        _expect(isinstance(doc, dict) and set(doc) == {
            "entry_name", "arch", "abi", "exceptions", "exc_symbol", "uses_grid_sync", "texts", "blobs", "order",
            "sha256"})
        _expect(isinstance(doc["entry_name"], str) and doc["entry_name"])
        _expect(isinstance(doc["arch"], str) and doc["arch"].startswith("sm_"))
        _expect(doc["exc_symbol"] is None or isinstance(doc["exc_symbol"], str))
        _expect(isinstance(doc["uses_grid_sync"], bool))
        texts = _pairs(doc["texts"], str, _TEXT_STAGES)
        lengths = _pairs(doc["blobs"], int, ("cubin", *_BLOB_STAGES))
        _expect(lengths and lengths[0][0] == "cubin" and all(v >= 0 for _, v in lengths))
        pos, blobs = start + n, {}
        for k, size in lengths:
            _expect(pos + size <= len(data))
            blobs[k] = data[pos:pos + size]
            pos += size
        _expect(pos == len(data))
        _expect(isinstance(doc["sha256"], str))
        if _code_digest(doc["texts"], [blobs[k] for k, _ in lengths]) != doc["sha256"]:
            raise PayloadError("kernel artifact: the carried code does not match its SHA-256 (altered or corrupted)")
        held = dict(texts)
        held.update((k, v) for k, v in blobs.items() if k != "cubin")
        order = doc["order"]
        _expect(isinstance(order, list) and sorted(map(str, order)) == sorted(held) and len(order) == len(held))
        try:
            abi = KernelABI.from_payload(doc["abi"], tuple(argtypes))
        except (TypeError, ValueError) as e:
            raise PayloadError(f"kernel artifact: bad ABI ({e})") from None
        return cls(entry_name=doc["entry_name"], arch=doc["arch"], cubin=blobs["cubin"], abi=abi,
                   exceptions=ExceptionTable.from_payload(doc["exceptions"]), exc_symbol=doc["exc_symbol"],
                   uses_grid_sync=doc["uses_grid_sync"], stages=tuple((k, held[k]) for k in order),
                   link_items=tuple(link_items))


def _code_digest(texts, blobs) -> str:
    """The SHA-256 (hex) of a payload's code: its stage texts (``[[name, text], ...]``,
    as JSON) and its binary blobs, each blob preceded by its length."""
    h = hashlib.sha256(json.dumps(texts, separators=(",", ":")).encode())
    for blob in blobs:
        h.update(len(blob).to_bytes(8, "little"))
        h.update(blob)
    return h.hexdigest()


def _expect(ok):
    if not ok:
        raise PayloadError("kernel artifact: malformed field")


def _pairs(value, kind, names):
    _expect(isinstance(value, list))
    out = []
    for item in value:
        _expect(isinstance(item, list) and len(item) == 2 and item[0] in names
                and isinstance(item[1], kind) and not isinstance(item[1], bool))
        out.append((item[0], item[1]))
    _expect(len({k for k, _ in out}) == len(out))
    return out
