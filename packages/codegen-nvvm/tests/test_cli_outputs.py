"""cudalite-compile's outputs are safe: never the input, all or nothing, and a
closed or broken stdout is one clean error; the user's file cannot shadow modules.

Subprocess tests run ``python -m cudalite.nvvm.cli`` from a neutral directory (so
the interpreter's own ``sys.path[0]`` is not the input's folder); the failure
injections (a failing ``os.replace`` / ``os.write``) run :func:`cli.main` in-process.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap

import pytest

from cudalite.nvvm import cli

MODULE = textwrap.dedent(
    """
    def add(x, y):
        return x + y
    """
)
SIG = "int32(int32, int32)"
STAGE_FILES = sorted(["add.source.py", "add.ast.txt", "add.typed-ir.txt", "add.ll", "add.ptx", "add.ltoir"])


@pytest.fixture
def src(tmp_path):
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "mymod.py").write_text(MODULE)
    return folder


def run_cli(*args, cwd, **kw):
    kw.setdefault("stdout", subprocess.PIPE)
    return subprocess.run([sys.executable, "-m", "cudalite.nvvm.cli", *map(str, args)],
                          stderr=subprocess.PIPE, text=True, cwd=cwd, timeout=120, **kw)


def listing(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if "__pycache__" not in p.parts)


# -- never overwrite an input ---------------------------------------------------------------
@pytest.mark.parametrize("how", ["same", "spelled differently", "symlink", "hard link"])
def test_output_naming_the_input_is_refused(src, tmp_path, how):
    mod = src / "mymod.py"
    target = {"same": mod, "spelled differently": src / ".." / "src" / "." / "mymod.py",
              "symlink": tmp_path / "link.py", "hard link": tmp_path / "hard.py"}[how]
    if how == "symlink":
        target.symlink_to(mod)
    elif how == "hard link":
        os.link(mod, target)
    before = listing(tmp_path)
    r = run_cli(f"{mod}:add", SIG, "-o", target, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr == f"cudalite-compile: error: -o {target} is the input file {mod}; refusing to overwrite it\n"
    assert mod.read_text() == MODULE and listing(tmp_path) == before


def test_output_naming_a_module_the_input_imports_is_refused(src, tmp_path):
    (src / "helpers.py").write_text("K = 3\n")
    (src / "mymod.py").write_text("import helpers\n\ndef add(x, y):\n    return x + y + helpers.K\n")
    r = run_cli(f"{src / 'mymod.py'}:add", SIG, "-o", src / "helpers.py", cwd=tmp_path)
    assert r.returncode == 2
    assert f"is the input file {src / 'helpers.py'}; refusing to overwrite it" in r.stderr
    assert (src / "helpers.py").read_text() == "K = 3\n"


def test_emit_all_never_overwrites_the_input(tmp_path):
    # the input is named like the source stage of --emit all into its own folder
    mod = tmp_path / "add.source.py"
    mod.write_text(MODULE)
    r = run_cli(f"{mod}:add", SIG, "--emit", "all", "-o", tmp_path, cwd=tmp_path)
    assert r.returncode == 2 and "refusing to overwrite it" in r.stderr
    assert mod.read_text() == MODULE and listing(tmp_path) == ["add.source.py"]


def test_single_stage_output_that_is_a_directory_is_a_usage_error(src, tmp_path):
    r = run_cli(f"{src / 'mymod.py'}:add", SIG, "-o", src, cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr == (f"cudalite-compile: error: -o {src} is a directory; give a file name "
                        "(a directory is for --emit all)\n")


def test_emit_all_into_a_file_is_a_usage_error(src, tmp_path):
    (tmp_path / "build").write_text("not a directory")
    r = run_cli(f"{src / 'mymod.py'}:add", SIG, "--emit", "all", "-o", tmp_path / "build", cwd=tmp_path)
    assert r.returncode == 2 and "is not a directory" in r.stderr
    assert (tmp_path / "build").read_text() == "not a directory"


def test_output_in_a_missing_directory_is_a_usage_error(src, tmp_path):
    r = run_cli(f"{src / 'mymod.py'}:add", SIG, "-o", tmp_path / "nowhere" / "add.ptx", cwd=tmp_path)
    assert r.returncode == 2 and "does not exist" in r.stderr
    assert not (tmp_path / "nowhere").exists()


def test_symlinked_output_is_written_through(src, tmp_path):
    real = tmp_path / "real.ptx"
    real.write_text("old")
    (tmp_path / "out.ptx").symlink_to(real)
    r = run_cli(f"{src / 'mymod.py'}:add", SIG, "-o", tmp_path / "out.ptx", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.ptx").is_symlink() and ".visible .func" in real.read_text()


# -- all or nothing ---------------------------------------------------------------------------
@pytest.mark.parametrize("emit", ["ptx", "all"])
def test_a_failed_compile_leaves_no_output(src, tmp_path, emit):
    out = tmp_path / ("add.ptx" if emit == "ptx" else "build")
    before = listing(tmp_path)
    r = run_cli(f"{src / 'mymod.py'}:add", "int32(int32, flot32)", "--emit", emit, "-o", out, cwd=tmp_path)
    assert r.returncode == 1 and "flot32" in r.stderr
    assert listing(tmp_path) == before  # no output, no temporary file, no directory


def test_a_failed_compile_keeps_the_old_output(src, tmp_path):
    out = tmp_path / "add.ptx"
    out.write_text("old")
    r = run_cli(f"{src / 'mymod.py'}:nope", SIG, "-o", out, cwd=tmp_path)
    assert r.returncode == 1 and out.read_text() == "old" and listing(tmp_path) == ["add.ptx", "src", "src/mymod.py"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE / SIGXFSZ semantics of Linux")
def test_a_write_that_hits_the_file_size_limit_leaves_no_truncated_output(src, tmp_path):
    """The disk fills up mid-write (RLIMIT_FSIZE: EFBIG after 64 bytes): no 0-byte or
    truncated output that a build system would take as up to date."""
    import resource
    import signal

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a signal; kept across exec
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))

    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    out = tmp_path / "add.ptx"
    r = run_cli(f"{src / 'mymod.py'}:add", SIG, "-o", out, cwd=tmp_path, preexec_fn=limit, env=env)
    assert r.returncode == 1, r.stderr
    assert r.stderr == f"cudalite-compile: error: {out}: cannot write: File too large\n"
    assert listing(tmp_path) == ["src", "src/mymod.py"]
    out.write_text("old")
    r = run_cli(f"{src / 'mymod.py'}:add", SIG, "-o", out, cwd=tmp_path, preexec_fn=limit, env=env)
    assert r.returncode == 1 and out.read_text() == "old"
    assert listing(tmp_path) == ["add.ptx", "src", "src/mymod.py"]


def _failing(real, fail_on):
    calls = []

    def fake(*args, **kw):
        calls.append(args)
        if len(calls) == fail_on:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kw)

    return fake


@pytest.mark.parametrize("which", ["write", "replace"])
def test_a_failed_write_keeps_the_old_output(src, tmp_path, monkeypatch, capsys, which):
    out = tmp_path / "add.ptx"
    out.write_text("old")
    monkeypatch.setattr(os, which, _failing(getattr(os, which), 1))
    code = cli.main([f"{src / 'mymod.py'}:add", SIG, "-o", str(out)])
    monkeypatch.undo()
    assert code == 1
    assert capsys.readouterr().err == f"cudalite-compile: error: {out}: cannot write: No space left on device\n"
    assert out.read_text() == "old" and listing(tmp_path) == ["add.ptx", "src", "src/mymod.py"]


@pytest.mark.parametrize("fail_on", [1, 4])
def test_emit_all_is_all_or_nothing_in_a_new_directory(src, tmp_path, monkeypatch, capsys, fail_on):
    out = tmp_path / "build" / "add"
    monkeypatch.setattr(os, "replace", _failing(os.replace, fail_on))
    code = cli.main([f"{src / 'mymod.py'}:add", SIG, "--emit", "all", "-o", str(out)])
    monkeypatch.undo()
    assert code == 1 and "cannot write: No space left on device" in capsys.readouterr().err
    assert listing(tmp_path) == ["src", "src/mymod.py"]  # the directories it made are gone too


def test_emit_all_failure_leaves_no_new_output_in_an_existing_directory(src, tmp_path, monkeypatch, capsys):
    out = tmp_path / "build"
    out.mkdir()
    for name in STAGE_FILES:
        (out / name).write_text("old")
    monkeypatch.setattr(os, "replace", _failing(os.replace, 3))
    code = cli.main([f"{src / 'mymod.py'}:add", SIG, "--emit", "all", "-o", str(out)])
    monkeypatch.undo()
    assert code == 1
    # the two outputs already renamed are removed (a stale set would look up to date); the rest are old
    left = sorted(p.name for p in out.iterdir())
    assert len(left) == 4 and set(left) < set(STAGE_FILES)
    assert all((out / name).read_text() == "old" for name in left)


def test_emit_all_success_writes_no_temporary_files(src, tmp_path):
    r = run_cli(f"{src / 'mymod.py'}:add", SIG, "--emit", "all", "-o", tmp_path / "b", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(tmp_path / "b")) == STAGE_FILES
    assert oct(os.stat(tmp_path / "b" / "add.ptx").st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_output_to_dev_null_is_written_in_place(src, tmp_path):
    r = run_cli(f"{src / 'mymod.py'}:add", SIG, "-o", os.devnull, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert not os.path.isfile(os.devnull) and listing(tmp_path) == ["src", "src/mymod.py"]


# -- the user's module shadows nothing ------------------------------------------------------------
SHADOWS = ("cuda", "random", "typing", "numpy", "cudalite", "inspect")


def test_modules_next_to_the_input_do_not_shadow_anything(src, tmp_path):
    for name in SHADOWS:
        (src / f"{name}.py").write_text(f"raise ImportError('the {name}.py next to the input was imported')\n")
    (src / "helpers.py").write_text("K = 7\n")
    (src / "mymod.py").write_text(textwrap.dedent(
        """
        import random, typing
        import numpy as np
        from cudalite import nvvm as cuda
        import helpers                      # a sibling module still imports

        SCALE = np.int32(5)

        def add(x, y):
            return x * SCALE + y + helpers.K
        """))
    r = run_cli(f"{src / 'mymod.py'}:add", SIG, "--abi", "numba", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert ".visible .func  (.param .b32 func_retval0) _ZN5mymod3addEii(" in r.stdout  # named after the file
    assert "mul.lo.s32" in r.stdout or "mad.lo.s32" in r.stdout or "shl.b32" in r.stdout
    assert "7;" in r.stdout  # helpers.K folded in


@pytest.mark.parametrize("stem", ["numpy", "random", "typing", "cuda"])
def test_an_input_named_like_a_module_compiles(tmp_path, stem):
    mod = tmp_path / f"{stem}.py"
    mod.write_text(MODULE)
    work = tmp_path / "work"
    work.mkdir()
    r = run_cli(f"{mod}:add", SIG, "--abi", "numba", cwd=work)
    assert r.returncode == 0, r.stderr
    assert f"_ZN{len(stem)}{stem}3addEii(" in r.stdout


def test_load_module_registers_a_private_name_only(tmp_path):
    import random

    path = tmp_path / "random.py"
    path.write_text(MODULE)
    meta_path = list(sys.meta_path)
    module, sources = cli.load_module(str(path))
    assert sys.modules["random"] is random and module is not random
    assert module.__name__ == "random" and module.add.__module__ == "random"
    assert sys.modules[cli.private_module_name(str(path))] is module
    assert sys.meta_path == meta_path and sources == (str(path),)


def test_a_sibling_import_failure_is_reported(tmp_path):
    (tmp_path / "mymod.py").write_text("import no_such_sibling_module_xyz\n" + MODULE)
    r = run_cli(f"{tmp_path / 'mymod.py'}:add", SIG, cwd=tmp_path.parent)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "ModuleNotFoundError: No module named 'no_such_sibling_module_xyz'" in r.stderr


# -- stdout: closed, full, broken -------------------------------------------------------------------
def _close_stdout():
    os.close(1)


@pytest.mark.skipif(os.name != "posix", reason="closes fd 1 in the child")
def test_closed_stdout_is_one_clean_error(src, tmp_path):
    r = run_cli(f"{src / 'mymod.py'}:add", SIG, cwd=tmp_path, stdout=None, preexec_fn=_close_stdout)
    assert r.returncode == 1
    assert r.stderr == "cudalite-compile: error: standard output is closed; write to a file with -o FILE\n"
    # stdout is not needed when the output goes to a file
    r = run_cli(f"{src / 'mymod.py'}:add", SIG, "-o", tmp_path / "a.ptx", cwd=tmp_path, stdout=None,
                preexec_fn=_close_stdout)
    assert r.returncode == 0 and r.stderr == ""
    assert ".visible .func" in (tmp_path / "a.ptx").read_text()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_full_stdout_is_one_clean_error(src, tmp_path):
    with open("/dev/full", "w") as full:
        r = run_cli(f"{src / 'mymod.py'}:add", SIG, cwd=tmp_path, stdout=full)
    assert r.returncode == 1
    assert r.stderr == "cudalite-compile: error: cannot write to standard output: No space left on device\n"


@pytest.mark.skipif(os.name != "posix", reason="EPIPE")
@pytest.mark.parametrize("emit", ["ptx", "ltoir"])
def test_broken_pipe_is_one_clean_error(src, tmp_path, emit):
    read, write = os.pipe()
    os.close(read)  # the reader went away, as after `| head -c 10`
    try:
        r = run_cli(f"{src / 'mymod.py'}:add", SIG, "--output", emit, cwd=tmp_path, stdout=write)
    finally:
        os.close(write)
    assert r.returncode == 1
    assert r.stderr == "cudalite-compile: error: cannot write to standard output: Broken pipe\n"


@pytest.mark.skipif(os.name != "posix", reason="closes fd 2 in the child")
def test_closed_stderr_keeps_the_error_out_of_stdout(src, tmp_path):
    r = subprocess.run([sys.executable, "-m", "cudalite.nvvm.cli", f"{src / 'mymod.py'}:nope", SIG],
                       stdout=subprocess.PIPE, text=True, cwd=tmp_path, timeout=120,
                       preexec_fn=lambda: os.close(2))
    assert r.returncode == 1 and r.stdout == ""
