"""``cudalite-cache`` with a closed, full or broken stdout: one line on stderr, exit 1,
no traceback (and no second failure when the interpreter flushes at exit)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def _run(tmp_path, *args, **kw):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([sys.executable, "-m", "cudalite.cuda._compiler.cache_cli", "--dir", str(tmp_path), *args],
                          stderr=subprocess.PIPE, text=True, env=env, timeout=120, **kw)


@pytest.mark.skipif(os.name != "posix", reason="closes fd 1 in the child")
@pytest.mark.parametrize("command", ["info", "path", "clear"])
def test_closed_stdout(tmp_path, command):
    r = _run(tmp_path, command, preexec_fn=lambda: os.close(1))
    assert (r.returncode, r.stderr) == (1, "cudalite-cache: error: standard output is closed\n")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [("path",), ("list",), ("--json", "info")])
def test_full_stdout(tmp_path, args):
    with open("/dev/full", "w") as full:
        r = _run(tmp_path, *args, stdout=full)
    assert r.returncode == 1
    assert r.stderr == "cudalite-cache: error: cannot write to standard output: No space left on device\n"


@pytest.mark.skipif(os.name != "posix", reason="EPIPE")
def test_broken_pipe(tmp_path):
    read, write = os.pipe()
    os.close(read)  # the reader went away, as after `| head -1`
    try:
        r = _run(tmp_path, "list", stdout=write)
    finally:
        os.close(write)
    assert (r.returncode, r.stderr) == (1, "cudalite-cache: error: cannot write to standard output: Broken pipe\n")


def test_output_is_unchanged(tmp_path):
    r = _run(tmp_path, "path", stdout=subprocess.PIPE)
    assert (r.returncode, r.stdout, r.stderr) == (0, f"{tmp_path}\n", "")
    r = _run(tmp_path, "list", stdout=subprocess.PIPE)
    assert (r.returncode, r.stdout) == (0, f"0 entries in {tmp_path}\n")
