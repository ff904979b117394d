"""GPU-less, end to end through the cache: kernels compiled to a cubin for sm_90
(typing -> NVVM -> nvJitLink, never loaded) in fresh processes, with the on-disk
cache on: a miss fills an entry, a hit skips lowering, libNVVM and the link and
gives the same cubin; corrupt entries are rewritten; concurrent builders all
succeed; a changed callee or linked file misses; kernels with ``link=`` hit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

SIG = "void(float32[::1], float32[::1], float32)"

KERNEL = """
from cudalite import cuda

@cuda.jit(device=True)
def helper(v):
    return v * {factor}

@cuda.jit(cache=True{link})
def kernel(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = helper(x[i]) * a
"""

CHILD = """
import hashlib, json, sys, time
start = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
sys.path.insert(0, sys.argv[1])
import kmod
from cudalite.cuda._compiler import cache as _cache
from cudalite.cuda._compiler.kernel import CompiledKernel
from cudalite.core.types import parse_signature
_cache.enable(sys.argv[2])
while time.time() < start:
    pass
k = CompiledKernel(kmod.kernel.py_func, parse_signature({sig!r})[1], kmod.kernel.options, (9, 0), load=False)
print(json.dumps({{"status": k.status, "stages": sorted(k.timings), "name": k.name, "fmt": k.param_format,
                  "cubin": hashlib.sha256(k.artifact.cubin).hexdigest(), "size": len(k.artifact.cubin),
                  "nvvm_ir": "define" in k.stage("nvvm-ir") if "--inspect" in sys.argv else None}}))
""".format(sig=SIG)


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env.pop("CUDALITE_CACHE", None)
    return env


def _write(src_dir, factor=2, link=""):
    path = src_dir / "kmod.py"
    old = path.stat().st_mtime_ns if path.exists() else None
    path.write_text(KERNEL.format(factor=factor, link=link))
    if old is not None:  # a rewrite within the same second must still look new to the import system
        os.utime(path, ns=(old + 10**9, old + 10**9))


def _run(src_dir, cache_dir, *extra):
    proc = subprocess.run([sys.executable, "-c", CHILD, str(src_dir), str(cache_dir), *extra],
                          capture_output=True, text=True, env=_env(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture
def dirs(tmp_path):
    src, cache = tmp_path / "src", tmp_path / "cache"
    src.mkdir()
    return src, cache


def _entries(cache_dir):
    return sorted(n for n in os.listdir(cache_dir) if n.endswith(".cubin-entry"))


def test_miss_then_hit_in_fresh_processes(dirs):
    src, cache = dirs
    _write(src)
    miss = _run(src, cache)
    assert miss["status"] == "miss"
    assert {"lower", "nvvm", "link", "store"} <= set(miss["stages"])
    assert len(_entries(cache)) == 1
    hit = _run(src, cache, "0", "--inspect")
    assert hit["status"] == "hit"
    assert not {"lower", "nvvm", "link"} & set(hit["stages"])  # no lowering, libNVVM or link
    assert (hit["cubin"], hit["name"], hit["fmt"]) == (miss["cubin"], miss["name"], miss["fmt"])
    assert hit["nvvm_ir"] is True  # a cached kernel's stages are still inspectable (stored with it)


def test_corrupt_entry_is_ignored_and_rewritten(dirs):
    src, cache = dirs
    _write(src)
    first = _run(src, cache)
    (entry,) = _entries(cache)
    path = cache / entry
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])  # truncated
    again = _run(src, cache)
    assert again["status"] == "miss" and again["cubin"] == first["cubin"]
    from cudalite.cuda._compiler import cache as _cache

    assert _cache.CacheStore(cache).info() == {"path": str(cache), "entries": 1, "bytes": len(path.read_bytes()),
                                               "invalid": 0, "max_size": 1 << 30}  # rewritten whole
    assert _run(src, cache)["status"] == "hit"
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # one flipped bit
    assert _run(src, cache)["status"] == "miss"
    assert _run(src, cache)["status"] == "hit"


def test_concurrent_builders_all_succeed(dirs):
    src, cache = dirs
    _write(src)
    start = str(time.time() + 4.0)
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(src), str(cache), start], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=_env()) for _ in range(4)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert len({r["cubin"] for r in results}) == 1
    assert len(_entries(cache)) == 1
    assert not [n for n in os.listdir(cache) if n.endswith(".part")]
    assert _run(src, cache)["status"] == "hit"


def test_changed_callee_misses(dirs):
    src, cache = dirs
    _write(src, factor=2)
    a = _run(src, cache)
    assert _run(src, cache)["status"] == "hit"
    _write(src, factor=3)
    b = _run(src, cache)
    assert b["status"] == "miss" and b["cubin"] != a["cubin"]
    assert len(_entries(cache)) == 2
    _write(src, factor=2)
    assert _run(src, cache)["status"] == "hit"  # the first entry is still good


def test_kernel_with_link_is_cached(dirs):
    src, cache = dirs
    cu = src / "extra.cu"
    cu.write_text('extern "C" __device__ int unused_extra(int *r, int x) { *r = x; return 0; }\n')
    _write(src, link=f", link=[{str(cu)!r}]")
    miss = _run(src, cache)
    assert miss["status"] == "miss" and "link" in miss["stages"]
    hit = _run(src, cache)
    assert hit["status"] == "hit" and "link" not in hit["stages"] and hit["cubin"] == miss["cubin"]
    cu.write_text('extern "C" __device__ int unused_extra(int *r, int x) { *r = x + 1; return 0; }\n')
    assert _run(src, cache)["status"] == "miss"
