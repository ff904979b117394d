"""``cudalite-cache`` on an untrusted directory (issue 28, finding 12): a file name that
is not UTF-8 is listed (escaped), metadata never reaches the terminal raw, ``clear``
removes only what cudalite's naming and header prove it wrote, and a bad
``CUDALITE_CACHE_MAX_SIZE`` is a one-line error."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cudalite.cuda._compiler import cache as _cache
from cudalite.cuda._compiler import cache_cli as _cache_cli

KEY = "ab" * 32


def _run(*args, env=None):
    env = dict(os.environ if env is None else env, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([sys.executable, "-m", "cudalite.cuda._compiler.cache_cli", *args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=120)


@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes on Linux")
def test_list_with_a_name_that_is_not_utf8(tmp_path):
    store = _cache.CacheStore(tmp_path)
    assert store.store(KEY, b"payload", {"qualname": "k", "signature": "(int32)", "arch": "sm_90"})
    with open(os.path.join(os.fsencode(tmp_path), b"\xff\xfe.cubin-entry"), "wb") as f:
        f.write(b"not an entry")
    r = _run("--dir", str(tmp_path), "list")
    assert (r.returncode, r.stderr) == (0, b"")
    lines = r.stdout.decode("ascii").splitlines()
    size = _cache_cli._size(os.path.getsize(store.entry_path(KEY)))
    assert lines[0] == f"{KEY[:16]}  {size:>10}  sm_90   k(int32)"
    assert lines[1].startswith("\\xff\\xfe  ") and lines[1].endswith("  [invalid]")
    assert lines[2] == f"2 entries in {tmp_path}"


def test_list_escapes_control_characters_of_metadata(tmp_path, capsys):
    store = _cache.CacheStore(tmp_path)
    evil = "k\x1b]0;owned\x07\x1b[2J\u202eevil\n"
    assert store.store(KEY, b"payload", {"qualname": evil, "signature": "(\x1b[31mint32)", "arch": "sm_\r90"})
    assert _cache_cli.main(["--dir", str(tmp_path), "list"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "\r" not in out
    line = out.splitlines()[0]
    assert line.endswith("  k\\x1b]0;owned\\x07\\x1b[2J\\u202eevil\\n(\\x1b[31mint32)")
    assert "sm_\\r90" in line
    assert len(out.splitlines()) == 2  # the newline in the qualname did not start a line


def test_list_keeps_printable_unicode(tmp_path, capsys):
    store = _cache.CacheStore(tmp_path)
    assert store.store(KEY, b"payload", {"qualname": "noyau_é_λ", "signature": "(int32)", "arch": "sm_90"})
    assert _cache_cli.main(["--dir", str(tmp_path), "list"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("  sm_90   noyau_é_λ(int32)")


def _stamp_name():
    return "toolchain-" + "0123456789abcdef01234567" + ".stamp"


def test_clear_removes_only_what_cudalite_wrote(tmp_path):
    store = _cache.CacheStore(tmp_path)
    assert store.store(KEY, b"payload")
    ours_stamp = tmp_path / _stamp_name()
    ours_stamp.write_text("[[2, 0], [2, 0], [12, 8]]")
    torn = _cache._encode({"key": "cd" * 32, "format": _cache.FORMAT}, b"x" * 100)
    (tmp_path / ".tmp-ab12_xyz.part").write_bytes(torn[:40])  # a writer killed mid-entry
    (tmp_path / ".tmp-zz99_abc.part").write_bytes(b"[[2, 0], [2")  # ... mid-stamp
    (tmp_path / ("cd" * 32 + ".cubin-entry")).write_bytes(torn[:50])  # truncated, still ours
    foreign = {
        "notes.part": b"my notes",
        ".tmp-ab12_xyq.part": b"not cudalite's",
        "build.stamp": b"[[1]]",
        "toolchain-nothex.stamp": b"[[1]]",
        "important.cubin-entry": _cache._encode({"key": "important", "format": _cache.FORMAT}, b"x"),
        "ef" * 32 + ".cubin-entry": b"someone else's file with our suffix",
    }
    for name, data in foreign.items():
        (tmp_path / name).write_bytes(data)
    os.symlink(tmp_path / "notes.part", tmp_path / ("12" * 32 + ".cubin-entry"))
    assert _cache.CacheStore(tmp_path).clear() == 2
    assert sorted(os.listdir(tmp_path)) == sorted([*foreign, "12" * 32 + ".cubin-entry"])
    assert all((tmp_path / name).read_bytes() == data for name, data in foreign.items())


def test_clear_cli_count(tmp_path):
    store = _cache.CacheStore(tmp_path)
    assert store.store(KEY, b"payload")
    (tmp_path / "mine.cubin-entry").write_bytes(b"x")
    r = _run("--dir", str(tmp_path), "clear")
    assert (r.returncode, r.stdout.decode(), r.stderr) == (0, f"removed 1 entries from {tmp_path}\n", b"")
    assert os.listdir(tmp_path) == ["mine.cubin-entry"]


@pytest.mark.parametrize("command", ["info", "prune"])
def test_bad_max_size_is_a_one_line_error(tmp_path, command):
    r = _run("--dir", str(tmp_path), command, env=dict(os.environ, CUDALITE_CACHE_MAX_SIZE="-1"))
    assert (r.returncode, r.stdout) == (2, b"")
    assert r.stderr.decode() == ("cudalite-cache: error: CUDALITE_CACHE_MAX_SIZE='-1': expected a size in bytes "
                                 "such as 500M, 2G or 0 (no cap)\n")


def test_bad_max_size_does_not_block_list_or_explicit_prune(tmp_path):
    env = dict(os.environ, CUDALITE_CACHE_MAX_SIZE="-1")
    r = _run("--dir", str(tmp_path), "list", env=env)
    assert (r.returncode, r.stdout.decode()) == (0, f"0 entries in {tmp_path}\n")
    r = _run("--dir", str(tmp_path), "--max-size", "1M", "prune", env=env)
    assert (r.returncode, r.stdout.decode()) == (0, f"removed 0 entries (0 B) from {tmp_path}; cap 1.0 MiB\n")
