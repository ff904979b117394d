"""GPU-less tests of the kernel cache's store and key layer (cudalite.cuda._compiler.cache):
entry format, checksums, atomic and concurrent writes (in subprocesses), the key's
sensitivity to sources, globals, types, options, targets and linked code, the
``cuda.cache`` API, the ``cudalite-cache`` CLI and the configuration."""

from __future__ import annotations

import importlib
import json
import logging
import os
import subprocess
import sys
import textwrap
import warnings

import pytest

from cudalite.cuda._compiler import cache as _cache
from cudalite.cuda._compiler import cache_cli as _cache_cli
from cudalite.cuda._compiler.options import JitOptions
from cudalite.cuda._compiler import timings as _timings
from cudalite.cuda.config import load_config
from cudalite.core.types import parse_signature

SIG = "void(float32[::1], float32[::1], float32)"


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def _payload(n=1000, tag=b""):
    return tag + bytes(range(256)) * n


def _meta():
    return {"qualname": "k", "signature": "(float32)", "arch": "sm_90", "created": 0.0}


# -- entries --------------------------------------------------------------------------------
def test_store_load_roundtrip(tmp_path):
    store = _cache.CacheStore(tmp_path)
    assert store.load("ab" * 32) is None
    assert store.store("ab" * 32, _payload(), _meta())
    meta, payload = store.load("ab" * 32)
    assert payload == _payload() and meta["qualname"] == "k" and meta["key"] == "ab" * 32
    assert [n for n in os.listdir(tmp_path) if n.endswith(".part")] == []  # no temporary left behind


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "garbage", "header-only"])
def test_corrupt_entry_is_a_miss_and_is_rewritten(tmp_path, damage):
    store = _cache.CacheStore(tmp_path)
    key = "cd" * 32
    store.store(key, _payload())
    path = store.entry_path(key)
    blob = open(path, "rb").read()
    damaged = {"flip": blob[:-10] + bytes([blob[-10] ^ 0xFF]) + blob[-9:], "truncate": blob[: len(blob) // 2],
               "empty": b"", "garbage": os.urandom(4096), "header-only": blob[:40]}[damage]
    with open(path, "wb") as f:
        f.write(damaged)
    assert store.load(key) is None  # detected, never raises
    assert store.info()["invalid"] == 1
    assert store.store(key, _payload(tag=b"new"))
    assert store.load(key)[1] == _payload(tag=b"new")


def test_entry_under_the_wrong_name_is_ignored(tmp_path):
    store = _cache.CacheStore(tmp_path)
    store.store("aa" * 32, _payload())
    os.replace(store.entry_path("aa" * 32), store.entry_path("bb" * 32))
    assert store.load("bb" * 32) is None


def test_unwritable_directory_does_not_raise(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    store = _cache.CacheStore(blocker / "sub")
    assert store.store("ee" * 32, _payload()) is False
    assert store.load("ee" * 32) is None


_WRITER = textwrap.dedent("""
    import sys, time
    from cudalite.cuda._compiler import cache as _cache
    path, key, tag, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    while time.time() < start:
        pass
    store = _cache.CacheStore(path)
    payload = bytes([tag]) * (4 << 20)
    for _ in range(5):
        assert store.store(key, payload, {"qualname": f"k{tag}"})
        got = store.load(key)
        assert got is not None and got[1] == bytes([int(got[0]["qualname"][1:])]) * (4 << 20)
    print("ok")
""")


def test_concurrent_writers_of_one_entry_all_succeed(tmp_path):
    import time

    key = "12" * 32
    start = time.time() + 1.5
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path), key, str(i), str(start)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
             for i in range(6)]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
        assert out.strip() == "ok"
    got = _cache.CacheStore(tmp_path).load(key)
    assert got is not None and len(got[1]) == 4 << 20
    assert sorted(os.listdir(tmp_path)) == [key + _cache.ENTRY_SUFFIX]


# -- the switch, the API, the CLI, the configuration -----------------------------------------
def test_config_reads_cache_and_timings():
    from cudalite.cuda.config import kernel_cache_dir

    cfg = load_config({"CUDALITE_CACHE": "1", "CUDALITE_CACHE_DIR": "/x/y", "CUDALITE_TIMINGS": "yes",
                       "CUDA_HOME": "/opt/cuda"})
    assert cfg.cache and cfg.timings and cfg.cache_dir == "/x/y" and ("CUDA_HOME", "/opt/cuda") in cfg.toolchain_env
    cfg = load_config({"HOME": "/home/u"})
    assert not cfg.cache and not cfg.timings and cfg.toolchain_env == ()
    assert kernel_cache_dir({"CUDALITE_CACHE_DIR": "/x/y"}) == os.path.join("/x/y", "kernels")
    assert kernel_cache_dir({"HOME": "/home/u"}) == os.path.join("/home/u", ".cache", "cudalite", "kernels")
    assert kernel_cache_dir({"XDG_CACHE_HOME": "/c"}) == os.path.join("/c", "cudalite", "kernels")


def test_enable_disable(tmp_path, monkeypatch):
    monkeypatch.setattr(_cache, "_settings", {"enabled": None, "dir": None})
    monkeypatch.delenv("CUDALITE_CACHE", raising=False)
    assert not _cache.is_enabled(JitOptions())
    assert _cache.is_enabled(JitOptions(cache=True))
    monkeypatch.setenv("CUDALITE_CACHE", "1")
    assert _cache.is_enabled(JitOptions())
    _cache.disable()
    assert not _cache.is_enabled(JitOptions()) and _cache.is_enabled(JitOptions(cache=True))
    _cache.enable(tmp_path)
    assert _cache.is_enabled(JitOptions()) and _cache.cache_dir() == str(tmp_path)


def test_cuda_cache_api(tmp_path):
    from cudalite import cuda

    store = _cache.CacheStore(tmp_path)
    store.store("01" * 32, _payload(1))
    store.store("02" * 32, _payload(2))
    info = cuda.cache.info(tmp_path)
    assert info["entries"] == 2 and info["bytes"] > 256 * 3 and info["path"] == str(tmp_path)
    assert {e["key"] for e in cuda.cache.entries(tmp_path)} == {"01" * 32, "02" * 32}
    assert cuda.cache.clear(tmp_path) == 2
    assert cuda.cache.info(tmp_path)["entries"] == 0


def test_cli(tmp_path, capsys):
    store = _cache.CacheStore(tmp_path)
    store.store("03" * 32, _payload(1), _meta())
    assert _cache_cli.main(["--dir", str(tmp_path), "info"]) == 0
    assert "1 entries" in capsys.readouterr().out
    assert _cache_cli.main(["--dir", str(tmp_path), "list"]) == 0
    out = capsys.readouterr().out
    assert "sm_90" in out and "k(float32)" in out
    assert _cache_cli.main(["--dir", str(tmp_path), "--json", "info"]) == 0
    assert json.loads(capsys.readouterr().out)["entries"] == 1
    proc = subprocess.run([sys.executable, "-m", "cudalite.cuda._compiler.cache_cli", "--dir", str(tmp_path), "clear"],
                          capture_output=True, text=True, env=_env())
    assert proc.returncode == 0 and "removed 1 entries" in proc.stdout
    assert store.info()["entries"] == 0


def test_console_script_declared():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    text = open(os.path.join(here, "pyproject.toml")).read()
    assert 'cudalite-cache = "cudalite.cuda._compiler.cache_cli:main"' in text


def test_report_timings_format():
    import io

    out = io.StringIO()
    argtypes = parse_signature(SIG)[1]
    _timings.report_timings("k", argtypes, {"parse": 0.001, "infer": 0.002, "lower": 0.003, "nvvm": 0.004,
                                          "link": 0.005, "load": 0.006, "total": 0.021}, "miss", file=out)
    line = out.getvalue()
    assert line.startswith("cudalite: compiled k(array(float32, 1d, C)")
    for piece in ("[cache: miss]", "parse=1.00ms", "infer=2.00ms", "lower=3.00ms", "nvvm=4.00ms", "link=5.00ms",
                  "load=6.00ms", "total=21.00ms"):
        assert piece in line


# -- keys -----------------------------------------------------------------------------------
def _module(tmp_path, name, body):
    import linecache

    path = tmp_path / f"{name}.py"
    existed = path.exists()
    path.write_text(textwrap.dedent(body))
    if existed:  # a rewrite within the same second: make the import and linecache see it
        st = path.stat()
        _module.bump = getattr(_module, "bump", 0) + 10
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + _module.bump * 10**9))
    linecache.checkcache(str(path))
    sys.path.insert(0, str(tmp_path))
    try:
        sys.modules.pop(name, None)
        importlib.invalidate_caches()
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


_KERNEL = """
    import math
    import numpy as np
    from cudalite import cuda
    SCALE = {scale}
    TABLE = np.array({table}, dtype=np.float32)

    @cuda.jit(device=True)
    def helper(v):
        return v * {helper_factor}

    @cuda.jit
    def kernel(out, x, a):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = helper(x[i]) * a * SCALE + TABLE[0] + math.pi
"""


def _key(mod, sig=SIG, opts=None, cc=(9, 0), tmp_path=None):
    argtypes = parse_signature(sig)[1]
    probe = _cache.probe_kernel(mod.kernel.py_func, argtypes, opts or mod.kernel.options, cc,
                                directory=str(tmp_path) if tmp_path else None)
    assert probe.reason is None, probe.reason
    return probe.key


@pytest.fixture
def stamp_dir(tmp_path):
    d = tmp_path / "cache"
    d.mkdir()
    return d


def _variant(tmp_path, stamp_dir, name, **kw):
    fields = dict(scale=2, table=[1.0, 2.0], helper_factor=3)
    fields.update(kw)
    mod = _module(tmp_path, name, _KERNEL.format(**fields))
    return mod, _key(mod, tmp_path=stamp_dir)


def test_key_depends_on_callee_globals_and_array_bytes(tmp_path, stamp_dir):
    _, base = _variant(tmp_path, stamp_dir, "kmod_a")
    _, same = _variant(tmp_path, stamp_dir, "kmod_a")  # same source, re-imported
    assert base == same
    assert _variant(tmp_path, stamp_dir, "kmod_a", helper_factor=4)[1] != base  # changed callee
    assert _variant(tmp_path, stamp_dir, "kmod_a", scale=5)[1] != base  # changed global
    assert _variant(tmp_path, stamp_dir, "kmod_a", table=[1.0, 2.5])[1] != base  # array contents


def test_key_depends_on_types_options_and_target(tmp_path, stamp_dir):
    mod, base = _variant(tmp_path, stamp_dir, "kmod_b")
    assert _key(mod, "void(float64[::1], float64[::1], float64)", tmp_path=stamp_dir) != base
    assert _key(mod, cc=(8, 0), tmp_path=stamp_dir) != base
    assert _key(mod, opts=JitOptions(fastmath=True), tmp_path=stamp_dir) != base
    assert _key(mod, opts=JitOptions(lineinfo=True), tmp_path=stamp_dir) != base
    assert _key(mod, opts=JitOptions(cache=True), tmp_path=stamp_dir) == base  # cache= is not a code option


def test_key_depends_on_linked_code(tmp_path, stamp_dir):
    mod, base = _variant(tmp_path, stamp_dir, "kmod_c")
    cu = tmp_path / "extra.cu"
    cu.write_text('extern "C" __device__ int f(int *r, int x) { *r = x; return 0; }\n')
    with_link = _key(mod, opts=JitOptions(link=(str(cu),)), tmp_path=stamp_dir)
    assert with_link != base
    assert _key(mod, opts=JitOptions(link=(str(cu),)), tmp_path=stamp_dir) == with_link
    cu.write_text('extern "C" __device__ int f(int *r, int x) { *r = x + 1; return 0; }\n')
    assert _key(mod, opts=JitOptions(link=(str(cu),)), tmp_path=stamp_dir) != with_link
    from cudalite.linker import CUSource

    code = CUSource(cu.read_text(), name="extra.cu")
    assert _key(mod, opts=JitOptions(link=(code,)), tmp_path=stamp_dir) == _key(
        mod, opts=JitOptions(link=(str(cu),)), tmp_path=stamp_dir)


def test_key_covers_links_of_callees_and_declarations(tmp_path, stamp_dir):
    cu = tmp_path / "dep.cu"
    cu.write_text('extern "C" __device__ int twice(int *r, int x) { *r = 2 * x; return 0; }\n')
    body = f"""
        from cudalite import cuda
        twice = cuda.declare_device("twice", "int32(int32)", link=[{str(cu)!r}])

        @cuda.jit
        def kernel(out, x, a):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = twice(i)
    """
    mod = _module(tmp_path, "kmod_d", body)
    probe = _cache.probe_kernel(mod.kernel.py_func, parse_signature(SIG)[1], mod.kernel.options, (9, 0),
                                directory=str(stamp_dir))
    assert probe.reason is None and str(cu) in probe.links
    first = probe.key
    cu.write_text('extern "C" __device__ int twice(int *r, int x) { *r = x + x; return 0; }\n')
    assert _key(mod, tmp_path=stamp_dir) != first


def test_key_stable_across_processes(tmp_path, stamp_dir):
    (tmp_path / "kmod_e.py").write_text(textwrap.dedent(_KERNEL.format(scale=2, table=[1.0], helper_factor=3)))
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import kmod_e
        from cudalite.cuda._compiler import cache as _cache
        from cudalite.core.types import parse_signature
        p = _cache.probe_kernel(kmod_e.kernel.py_func, parse_signature({SIG!r})[1], kmod_e.kernel.options,
                                (9, 0), directory={str(stamp_dir)!r})
        print(p.key)
    """)
    keys = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), check=True)
            .stdout.strip() for _ in range(2)]
    assert len(keys[0]) == 64 and keys[0] == keys[1]


def test_unstable_constant_is_not_cached(tmp_path, stamp_dir):
    body = """
        from cudalite import cuda

        class Opaque:
            pass

        THING = Opaque()

        @cuda.jit
        def kernel(out, x, a):
            if THING is None:
                out[0] = a
    """
    mod = _module(tmp_path, "kmod_f", body)
    probe = _cache.probe_kernel(mod.kernel.py_func, parse_signature(SIG)[1], mod.kernel.options, (9, 0),
                                directory=str(stamp_dir))
    assert probe.key is None or probe.reason is None  # either refused, or typing rejected it first


def test_toolchain_stamp_is_written_and_reused(stamp_dir):
    cfg = load_config()
    versions = _cache.toolchain_versions(str(stamp_dir), cfg)
    stamps = [n for n in os.listdir(stamp_dir) if n.endswith(".stamp")]
    assert len(stamps) == 1
    assert versions == _cache.real_toolchain_versions()
    with open(stamp_dir / stamps[0], "w") as f:  # a stale stamp is what the key uses ...
        f.write("[[0, 0], [0, 0, 0, 0], [0, 0]]")
    assert _cache.toolchain_versions(str(stamp_dir), cfg) == ((0, 0), (0, 0, 0, 0), (0, 0))
    assert _cache.toolchain_versions(str(stamp_dir), cfg, refresh=True) == versions  # ... until a miss repairs it
    assert _cache.toolchain_versions(str(stamp_dir), cfg) == versions


@pytest.mark.parametrize("stamp", ["[" * 100000, "((0, 0), (0, 0, 0, 0), (0, 0))", '[[0], [0], "x"]',
                                   "[[0, 0], [0, 0]]", "[[1e99], [0], [0]]", "\xff\xfe"])
def test_crafted_toolchain_stamp_is_ignored(stamp_dir, stamp):
    cfg = load_config()
    versions = _cache.toolchain_versions(str(stamp_dir), cfg)
    (name,) = [n for n in os.listdir(stamp_dir) if n.endswith(".stamp")]
    (stamp_dir / name).write_bytes(stamp.encode("latin-1"))
    assert _cache.toolchain_versions(str(stamp_dir), cfg) == versions  # re-read from the libraries


def test_entries_are_never_unpickled_or_imported(tmp_path):
    """An entry is plain data: a pickle planted under an entry's name is not an entry."""
    import pickle

    store = _cache.CacheStore(tmp_path)
    key = "ef" * 32
    with open(store.entry_path(key), "wb") as f:
        f.write(_cache.MAGIC + pickle.dumps({"key": key, "format": _cache.FORMAT}))
    assert store.load(key) is None
    assert store.info()["invalid"] == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_fifo_or_symlinked_entry_is_not_read(tmp_path):
    store = _cache.CacheStore(tmp_path)
    fifo = store.entry_path("a1" * 32)
    os.mkfifo(fifo)
    assert store.load("a1" * 32) is None  # no hang
    os.symlink("/dev/zero", store.entry_path("a2" * 32))
    assert store.load("a2" * 32) is None  # no unbounded read
    assert store.info()["entries"] == 2 and store.info()["invalid"] == 2


# -- the directory is untrusted input ---------------------------------------------------------
from cudalite import cuda  # noqa: E402


@cuda.jit
def _scale(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * a


@cuda.jit(debug=True, opt=False)
def _raiser(out, n):
    i = cuda.grid(1)
    if i >= n:
        raise ValueError("past the end")
    out[i] = 1.0


def _build(kernel, sig, directory, monkeypatch):
    from cudalite.cuda._compiler.kernel import build_kernel

    monkeypatch.setattr(_cache, "_settings", {"enabled": True, "dir": str(directory)})
    return build_kernel(kernel.py_func, parse_signature(sig)[1], kernel.options, (9, 0))


def _mode(path):
    return os.stat(path).st_mode & 0o777


@pytest.fixture
def umask_002():
    old = os.umask(0o002)
    try:
        yield
    finally:
        os.umask(old)


def _untrusted_warnings(record):
    from cudalite.driver.cachedir import UntrustedCacheWarning

    return [str(w.message) for w in record if issubclass(w.category, UntrustedCacheWarning)]


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX modes")
def test_fresh_cache_dirs_are_private_under_umask_002(tmp_path, monkeypatch, umask_002):
    kernels = tmp_path / "home" / ".cache" / "cudalite" / "kernels"
    assert _build(_scale, SIG, kernels, monkeypatch).status == "miss"
    assert _build(_scale, SIG, kernels, monkeypatch).status == "hit"
    for d in (tmp_path / "home", tmp_path / "home" / ".cache", kernels.parent, kernels):
        assert _mode(d) == 0o700, d
    names = os.listdir(kernels)
    assert len(names) == 2 and {n.rsplit(".", 1)[-1] for n in names} == {"stamp", "cubin-entry"}
    for n in names:
        assert _mode(kernels / n) == 0o600, n
    store = _cache.CacheStore(tmp_path / "other" / "k")  # the store alone, too
    assert store.store("ab" * 32, _payload())
    assert _mode(tmp_path / "other") == _mode(tmp_path / "other" / "k") == 0o700
    assert _mode(store.entry_path("ab" * 32)) == 0o600


def _refused_twice(kernels, monkeypatch):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")  # a second warning would be seen: the once is ours
        builds = [_build(_scale, SIG, kernels, monkeypatch) for _ in range(2)]
    for b in builds:
        assert b.status == "off (untrusted cache directory)"
        assert b.artifact.cubin[:4] == b"\x7fELF"  # compiled all the same
    return _untrusted_warnings(record)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX modes")
@pytest.mark.parametrize("mode, why", [(0o777, "writable by group and others (mode 0777)"),
                                       (0o775, "writable by group (mode 0775)"),
                                       (0o702, "writable by others (mode 0702)")])
def test_group_or_other_writable_dir_is_refused_with_one_warning(tmp_path, monkeypatch, mode, why):
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    os.chmod(kernels, mode)
    (message,) = _refused_twice(kernels, monkeypatch)
    assert message == (f"cudalite: not using the kernel cache directory {kernels}: it is {why}; kernels are "
                       f"compiled and run without the cache. Fix: make it yours and private (chown to you, "
                       f"chmod 700 {kernels}) or set CUDALITE_CACHE_DIR to a directory only you can write.")
    assert os.listdir(kernels) == []  # no entry, no stamp


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX modes")
def test_shared_default_cache_root_is_refused(tmp_path, monkeypatch):
    """``$CUDALITE_CACHE_DIR/kernels``: the root is judged too (others could swap
    ``kernels`` for their own directory)."""
    from cudalite.cuda._compiler.kernel import build_kernel

    root = tmp_path / "root"
    (root / "kernels").mkdir(parents=True, mode=0o700)
    os.chmod(root, 0o775)
    monkeypatch.setenv("CUDALITE_CACHE_DIR", str(root))
    monkeypatch.setattr(_cache, "_settings", {"enabled": True, "dir": None})
    assert _cache.cache_dir() == str(root / "kernels")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        builds = [build_kernel(_scale.py_func, parse_signature(SIG)[1], _scale.options, (9, 0)) for _ in range(2)]
    assert [b.status for b in builds] == ["off (untrusted cache directory)"] * 2
    (message,) = _untrusted_warnings(record)
    assert message.startswith(f"cudalite: not using the kernel cache directory {root}: it is writable by group "
                              f"(mode 0775);")
    os.chmod(root, 0o700)
    assert _build(_scale, SIG, root / "kernels", monkeypatch).status == "miss"  # fixed: used again


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX ownership")
def test_foreign_owner_is_refused_with_one_warning(tmp_path, monkeypatch):
    kernels = tmp_path / "kernels"
    store = _cache.CacheStore(kernels)
    assert store.store("ab" * 32, _payload())  # a valid entry, written while it was ours
    me = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: me + 1)  # now someone else's directory
    (message,) = _refused_twice(kernels, monkeypatch)
    assert f"it is owned by uid {me}, not by you (uid {me + 1})" in message and str(kernels) in message
    assert sorted(os.listdir(kernels)) == ["ab" * 32 + _cache.ENTRY_SUFFIX]
    assert store.load("ab" * 32) is None and store.store("cd" * 32, _payload()) is False  # warned already
    assert _cache_cli.main(["--dir", str(kernels), "--json", "info"]) == 0  # listing still works


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX modes")
def test_load_from_a_dir_made_writable_later_is_refused(tmp_path, capsys):
    store = _cache.CacheStore(tmp_path / "k")
    assert store.store("ab" * 32, _payload())
    os.chmod(store.path, 0o777)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert store.load("ab" * 32) is None and store.load("ab" * 32) is None
    assert len(_untrusted_warnings(record)) == 1
    assert _cache_cli.main(["--dir", store.path, "info"]) == 0
    out = capsys.readouterr().out
    assert "1 entries" in out and "refused: it is writable by group and others (mode 0777)" in out


@pytest.mark.skipif(not hasattr(os, "symlink") or not hasattr(os, "getuid"), reason="POSIX")
def test_symlinked_cache_dir_is_judged_by_its_target(tmp_path, monkeypatch):
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(mine)
    assert _build(_scale, SIG, link, monkeypatch).status == "miss"  # the user's own symlink: followed
    assert _build(_scale, SIG, link, monkeypatch).status == "hit"
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    link2 = tmp_path / "link2"
    link2.symlink_to(shared)
    (message,) = _refused_twice(link2, monkeypatch)
    assert str(link2) in message and "writable by group and others" in message


def test_exception_table_names_are_not_imported(tmp_path, monkeypatch):
    """A crafted entry naming a module in its exception table loads without importing it."""
    import struct

    from cudalite.cuda._compiler.artifact import MAGIC, PAYLOAD_VERSION

    marker = tmp_path / "imported"
    src = tmp_path / "mods"
    src.mkdir()
    (src / "evil_module_xyz.py").write_text(f"open({str(marker)!r}, 'w').close()\nclass Boom(Exception): pass\n")
    monkeypatch.syspath_prepend(str(src))
    sig = "void(float32[::1], int32)"
    art = _build(_raiser, sig, tmp_path / "k", monkeypatch).artifact
    data = art.to_payload()
    n = struct.unpack_from("<II", data, len(MAGIC))[1]
    start = len(MAGIC) + 8
    doc = json.loads(data[start:start + n])
    assert doc["exceptions"] and doc["exceptions"][0][:2] == ["builtins", "ValueError"]
    doc["exceptions"][0][:3] = ["evil_module_xyz", "Boom", ["x"]]
    body = json.dumps(doc).encode()
    crafted = MAGIC + struct.pack("<II", PAYLOAD_VERSION, len(body)) + body + data[start + n:]
    store = _cache.CacheStore(tmp_path / "k")
    assert store.store("ee" * 32, crafted)
    before = set(sys.modules)
    loaded = store.load_artifact("ee" * 32, parse_signature(sig)[1])
    assert loaded is not None and loaded.cubin == art.cubin
    info = loaded.exceptions.entries[0]
    assert (info.exc_module, info.exc_qualname) == ("evil_module_xyz", "Boom") and info.resolve_class() is None
    exc = loaded.exceptions.decode([1, 3, 0, 0, 1, 0, 0])
    assert type(exc) is RuntimeError
    assert exc.args[0].endswith("tid=[3, 0, 0] ctaid=[1, 0, 0]: evil_module_xyz.Boom('x',)")
    assert "evil_module_xyz" not in sys.modules and set(sys.modules) == before and not marker.exists()


def test_kernel_cache_dir_is_never_relative(monkeypatch, tmp_path):
    import tempfile

    from cudalite.cuda.config import kernel_cache_dir
    from cudalite.driver import config as driver_config

    monkeypatch.setattr(driver_config.os.path, "expanduser", lambda p: p)  # no HOME, no password entry
    assert kernel_cache_dir({}) == os.path.join(tempfile.gettempdir(), f"cudalite-{os.getuid()}", "kernels")
    monkeypatch.chdir(tmp_path)
    assert kernel_cache_dir({"CUDALITE_CACHE_DIR": "c"}) == str(tmp_path / "c" / "kernels")


# -- unusable directories, the size cap, clearing everything --------------------------------
def _unusable_warnings(record):
    from cudalite.driver.cachedir import CacheUnavailableWarning

    return [str(w.message) for w in record if issubclass(w.category, CacheUnavailableWarning)]


def test_unusable_directory_warns_once_and_kernels_still_compile(tmp_path, monkeypatch):
    """A cache directory that cannot be created (here: below a regular file; in a
    container: a read-only or missing HOME) gives one warning per process, then
    kernels compile and run without the cache."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    kernels = blocker / "kernels"
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        builds = [_build(_scale, SIG, kernels, monkeypatch) for _ in range(2)]
    assert [b.status for b in builds] == ["off (cache directory unusable)"] * 2
    assert all(b.artifact.cubin[:4] == b"\x7fELF" for b in builds)
    assert _unusable_warnings(record) == [
        f"cudalite: the kernel cache directory {kernels} is unusable: it cannot be created (FileExistsError: "
        f"File exists); kernels are compiled and run without the cache. Set CUDALITE_CACHE_DIR to a "
        f"writable directory to keep compiled kernels between runs."]


def test_failed_entry_write_warns_once(tmp_path, monkeypatch, caplog):
    import errno

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_cache, "_atomic_write", full)
    store = _cache.CacheStore(tmp_path / "fresh-dir-for-this-test")
    with caplog.at_level("WARNING", logger="cudalite.cuda._compiler.cache"):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            assert store.store("aa" * 32, _payload()) is False
            assert store.store("bb" * 32, _payload()) is False
    (message,) = _unusable_warnings(record)
    assert "is unusable: an entry cannot be written (OSError: No space left on device)" in message
    assert [r.getMessage() for r in caplog.records] == [message]


def _aged(store, key, payload, when):
    assert store.store(key, payload, max_size=0)
    os.utime(store.entry_path(key), (when, when))


def test_size_cap_evicts_least_recently_used(tmp_path):
    store = _cache.CacheStore(tmp_path)
    keys = [f"{i:02x}" * 32 for i in range(5)]
    for i, key in enumerate(keys):  # 5 entries of ~256 KB, written at t = 1000, 1001, ...
        _aged(store, key, _payload(1000, bytes([i])), 1000 + i)
    size = os.path.getsize(store.entry_path(keys[0]))
    assert store.load(keys[0]) is not None  # a hit: now the most recently used
    assert os.path.getmtime(store.entry_path(keys[0])) > 1000 + 4
    removed, freed = store.evict(3 * size)
    assert (removed, freed) == (2, 2 * size)
    left = sorted(e["key"] for e in store.entries())
    assert left == sorted([keys[0], keys[3], keys[4]])  # keys[1], keys[2]: least recently used
    # a store over the cap evicts others, never the entry just written
    assert store.store("ff" * 32, _payload(1000, b"new"), max_size=size)
    assert [e["key"] for e in store.entries()] == ["ff" * 32]
    assert store.evict(0) == (0, 0) or store.entries() == []  # evict(0) empties (cap 0 = nothing fits)


def test_store_applies_the_configured_cap(tmp_path, monkeypatch):
    store = _cache.CacheStore(tmp_path)
    for i in range(3):
        _aged(store, f"{i:02x}" * 32, _payload(1000, bytes([i])), 1000 + i)
    size = os.path.getsize(store.entry_path("00" * 32))
    monkeypatch.setenv("CUDALITE_CACHE_MAX_SIZE", str(2 * size))
    assert store.store("ee" * 32, _payload(1000, b"e"))
    assert sorted(e["key"] for e in store.entries()) == sorted(["02" * 32, "ee" * 32])
    monkeypatch.setenv("CUDALITE_CACHE_MAX_SIZE", "0")  # no cap
    for i in range(3):
        assert store.store(f"{i + 5:02x}" * 32, _payload(1000, bytes([i])))
    assert len(store.entries()) == 5


def test_cache_max_size_configuration(monkeypatch):
    assert load_config({}).cache_max_size == 1 << 30
    assert load_config({"CUDALITE_CACHE_MAX_SIZE": "500M"}).cache_max_size == 500 << 20
    assert load_config({"CUDALITE_CACHE_MAX_SIZE": "2g"}).cache_max_size == 2 << 30
    assert load_config({"CUDALITE_CACHE_MAX_SIZE": "0"}).cache_max_size == 0
    for bad in ("lots", "-1", "5Q", "inf"):
        with pytest.raises(ValueError, match=f"CUDALITE_CACHE_MAX_SIZE='{bad}': expected a size in bytes"):
            load_config({"CUDALITE_CACHE_MAX_SIZE": bad})


def test_clear_removes_everything_cudalite_wrote(tmp_path, monkeypatch, capsys):
    root = tmp_path / "root"
    monkeypatch.setenv("CUDALITE_CACHE_DIR", str(root))
    store = _cache.CacheStore(root / "kernels")
    store.store("aa" * 32, _payload())
    (root / "kernels" / "toolchain-0123.stamp").write_text("{}")
    shim = root / "driver-cp311-0123456789abcdef"
    shim.mkdir()
    (shim / "lib.so").write_bytes(b"x")
    mine = root / "driver-notes"  # not a name cudalite makes: kept
    mine.mkdir()
    assert _cache_cli.main(["clear"]) == 0
    out = capsys.readouterr().out
    assert out == f"removed 1 entries from {root / 'kernels'}; 1 launch shim builds from {root}\n"
    assert sorted(os.listdir(root)) == ["driver-notes", "kernels"] and os.listdir(root / "kernels") == []


def test_cli_prune_and_help(tmp_path, capsys):
    store = _cache.CacheStore(tmp_path)
    for i in range(3):
        _aged(store, f"{i:02x}" * 32, _payload(1000, bytes([i])), 1000 + i)
    size = os.path.getsize(store.entry_path("00" * 32))
    assert _cache_cli.main(["--dir", str(tmp_path), "--max-size", str(size), "prune"]) == 0
    assert capsys.readouterr().out.startswith(f"removed 2 entries ({2 * size / 1024:.1f} KiB) from {tmp_path}")
    assert [e["key"] for e in store.entries()] == ["02" * 32]
    with pytest.raises(SystemExit):
        _cache_cli.main(["--help"])
    text = capsys.readouterr().out
    for command in ("info", "list", "clear", "prune", "path"):
        assert f"\n  {command} " in text
    with pytest.raises(SystemExit) as info:
        _cache_cli.main(["--dir", str(tmp_path), "--max-size", "huge", "prune"])
    assert info.value.code == 2
    assert "--max-size='huge': expected a size in bytes" in capsys.readouterr().err


@pytest.fixture
def timings_logger_reset():
    from cudalite.cuda._compiler import timings as _timings_log

    logger = logging.getLogger(_timings_log.TIMINGS_LOGGER)
    saved = (list(logger.handlers), logger.level, logger.propagate)
    yield logger
    logger.handlers[:], logger.level, logger.propagate = saved[0], saved[1], saved[2]


def test_timings_go_through_logging(timings_logger_reset, caplog, capsys):
    from cudalite.cuda._compiler.timings import TIMINGS_LOGGER, _CurrentStderr

    argtypes = parse_signature(SIG)[1]
    times = {"parse": 0.001, "total": 0.002}
    with caplog.at_level(logging.INFO, logger=TIMINGS_LOGGER):
        _timings.report_timings("k", argtypes, times, "miss", to_stderr=False)  # logging asked, not the variable
    (record,) = [r for r in caplog.records if r.name == TIMINGS_LOGGER]
    assert record.levelno == logging.INFO
    assert record.getMessage().startswith("cudalite: compiled k(array(float32, 1d, C)") and "[cache: miss]" in \
        record.getMessage()
    assert capsys.readouterr().err == ""
    _timings.report_timings("k", argtypes, times, "hit", to_stderr=True)  # CUDALITE_TIMINGS=1: the bare line
    _timings.report_timings("k", argtypes, times, "hit", to_stderr=True)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith("cudalite: compiled k(") and "[cache: hit]" in line for line in err)
    assert sum(isinstance(h, _CurrentStderr) for h in timings_logger_reset.handlers) == 1
