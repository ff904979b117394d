"""``cudalite-compile -o NAME`` where NAME is a special file given relative to the
working directory (``-o null`` in ``/dev``, a FIFO): it is written in place, not
refused with an empty directory name (GPU-less)."""

from __future__ import annotations

import io
import os
import stat
import sys

import pytest

from cudalite.nvvm import cli

SIG = "float32(float32, float32)"


def _module(tmp_path):
    src = tmp_path / "mymod.py"
    src.write_text("def add(x, y):\n    return x + y\n")
    return src


def _main(*argv):
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = cli.main(list(argv))
    finally:
        sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_dev_null_relative(tmp_path, monkeypatch):
    src = _module(tmp_path)
    monkeypatch.chdir("/dev")
    assert _main(f"{src}:add", SIG, "-o", "null") == (0, "", "")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_relative_fifo_is_planned_in_place(tmp_path, monkeypatch):
    src = _module(tmp_path)
    os.mkfifo(tmp_path / "pipe")
    monkeypatch.chdir(tmp_path)
    req = cli.parse_args([f"{src}:add", SIG, "-o", "pipe"])
    plan = cli.plan_outputs(req)
    assert plan.files == (("ptx", str(tmp_path / "pipe")),)


def test_missing_directory_is_named(tmp_path, monkeypatch):
    src = _module(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = _main(f"{src}:add", SIG, "-o", "nodir/out.ptx")
    assert (code, out) == (2, "")
    assert err == f"cudalite-compile: error: -o nodir/out.ptx: directory {tmp_path / 'nodir'} does not exist\n"
