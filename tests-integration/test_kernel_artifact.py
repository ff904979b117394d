"""GPU-less: one KernelArtifact per kernel specialization, the same value from a
fresh compile and from the on-disk cache; its stored form is plain versioned data
whose loader rejects anything malformed (PayloadError, a ValueError) and never
runs code."""

from __future__ import annotations

import json
import os
import struct

import pytest

from cudalite import cuda
from cudalite.core.types import parse_signature
from cudalite.cuda._compiler import cache as _cache
from cudalite.cuda._compiler.artifact import MAGIC, PAYLOAD_VERSION, KernelArtifact, PayloadError
from cudalite.cuda._compiler.kernel import build_kernel

SIG = "void(float32[::1], float32[:, :], int32, complex64, Tuple(int64, float32))"


class Overflow(ArithmeticError):
    pass


@cuda.jit(debug=True, opt=False)
def kern(out, grid, n, c, t):
    i = cuda.grid(1)
    if i >= n:
        raise Overflow("past the end", 7)
    assert grid.shape[0] > 0, "empty grid"
    out[i] = grid[0, i] + c.real + t[1]


def _argtypes():
    return tuple(parse_signature(SIG)[1])


def _build(cache_dir=None):
    if cache_dir is not None:
        _cache.enable(cache_dir)
    try:
        return build_kernel(kern.py_func, _argtypes(), kern.options, (9, 0))
    finally:
        _cache._settings.update(enabled=None, dir=None)


def test_fresh_and_cached_artifacts_are_equal(tmp_path):
    fresh = _build()
    assert fresh.status == "off"
    miss = _build(tmp_path)
    assert miss.status == "miss"
    hit = _build(tmp_path)
    assert hit.status == "hit"
    assert hit.artifact == fresh.artifact == miss.artifact
    art = hit.artifact
    assert art.arch == "sm_90" and art.cubin[:4] == b"\x7fELF"
    assert [k for k, _ in art.stages] == ["typed-ir", "nvvm-ir", "ptx"]
    assert art.abi.param_format == fresh.artifact.abi.param_format
    assert art.exc_symbol and len(art.exceptions) == 2
    index = 1 + [e.exc_qualname for e in art.exceptions].index("Overflow")
    exc = art.exceptions.decode([index, 3, 0, 0, 1, 0, 0])
    line = kern.py_func.__code__.co_firstlineno + 4  # the decorator's line, then def, i, if, raise
    assert type(exc) is Overflow and exc.args == (
        f"In function 'kern', file {os.path.abspath(__file__)}, line {line}, tid=[3, 0, 0] ctaid=[1, 0, 0]: "
        "past the end", 7)


def test_payload_round_trip():
    art = _build().artifact
    data = art.to_payload()
    assert data.startswith(MAGIC)
    back = KernelArtifact.from_payload(data, _argtypes())
    assert back == art and back.cubin == art.cubin and back.stages == art.stages


def _parts(data):
    start = len(MAGIC) + 8
    version, n = struct.unpack_from("<II", data, len(MAGIC))
    return version, json.loads(data[start:start + n]), data[start + n:]


def _assemble(doc, rest, version=PAYLOAD_VERSION):
    body = json.dumps(doc).encode()
    return MAGIC + struct.pack("<II", version, len(body)) + body + rest


@pytest.mark.parametrize("damage", [
    "empty", "magic", "version", "truncated", "trailing", "json", "deep", "extra-key", "missing-key",
    "blob-length", "abi", "grid-sync-type", "exceptions", "exception-template", "order",
])
def test_malformed_payloads_are_rejected(damage):
    art = _build().artifact
    data = art.to_payload()
    _v, doc, rest = _parts(data)
    if damage == "empty":
        bad = b""
    elif damage == "magic":
        bad = b"X" + data[1:]
    elif damage == "version":
        bad = _assemble(doc, rest, version=99)
    elif damage == "truncated":
        bad = data[:-100]
    elif damage == "trailing":
        bad = data + b"\0"
    elif damage == "json":
        bad = MAGIC + struct.pack("<II", PAYLOAD_VERSION, 5) + b"{nope" + rest
    elif damage == "deep":
        body = b"[" * 200000
        bad = MAGIC + struct.pack("<II", PAYLOAD_VERSION, len(body)) + body
    else:
        doc = dict(doc)
        if damage == "extra-key":
            doc["__reduce__"] = "os.system"
        elif damage == "missing-key":
            del doc["abi"]
        elif damage == "blob-length":
            doc["blobs"] = [["cubin", len(rest) + 1]]
        elif damage == "abi":
            doc["abi"] = {"version": 1, "slots": "nope"}
        elif damage == "grid-sync-type":
            doc["uses_grid_sync"] = "yes"
        elif damage == "exceptions":
            doc["exceptions"] = [["builtins", "ValueError", [["nested"]], "f.py", 1, 0]]
        elif damage == "exception-template":
            doc["exceptions"] = [["builtins", "IndexError", [], "f.py", 1, 0, "f", ["{0}"]]]
        elif damage == "order":
            doc["order"] = ["ptx"]
        bad = _assemble(doc, rest)
    with pytest.raises(PayloadError):
        KernelArtifact.from_payload(bad, _argtypes())


def test_exception_arguments_that_are_not_plain_constants_are_not_stored(tmp_path):
    import numpy as np

    marker = np.float32(2.5)

    @cuda.jit(debug=True, opt=False, cache=True)
    def k(a):
        if a[0] < 0:
            raise ValueError(marker)

    _cache.enable(tmp_path)
    try:
        build = build_kernel(k.py_func, (parse_signature("void(float32[:])")[1][0],), k.options, (9, 0))
    finally:
        _cache._settings.update(enabled=None, dir=None)
    art = build.artifact
    if not art.storable():
        assert not list(tmp_path.glob("*.cubin-entry"))
    else:  # the constant folded to a plain float: stored, and it round-trips
        assert KernelArtifact.from_payload(art.to_payload(), art.abi.argtypes) == art
