"""The runtime half of the pipeline as data (cudalite.cuda._compiler.stages), GPU-less:
the stage table and its loop (order, timings that add up, stop and resume), options
translated once per build, and the fatbin output -- cuda.compile(output="fatbin") and
cudalite-compile --emit fatbin -- with its usage errors; the ahead-of-time loader's
input checks (docs/aot.md)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cudalite import cuda
from cudalite.cuda._compiler import options as options_mod
from cudalite.cuda._compiler.options import JitOptions
from cudalite.cuda._compiler.stages import STAGE_NAMES, BuildState, make_job, run_build
from cudalite.cuda._dispatch import aot
from cudalite.linker import fatbin_archs, fatbin_cubins
from cudalite.types import float32

SIG = "void(float32[::1], float32[::1], float32[::1], float32)"


def _has_nvfatbin() -> bool:
    try:
        from cuda.bindings import nvfatbin

        nvfatbin.version()
        return True
    except Exception:  # cuda-bindings before 13.2 has no nvFatbin bindings (the minimum-versions run)
        return False


needs_nvfatbin = pytest.mark.skipif(not _has_nvfatbin(), reason="fatbins need cuda-bindings>=13.2 (nvFatbin)")
ARGS = (float32[::1], float32[::1], float32[::1], float32)


def saxpy(out, x, y, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def test_the_stage_table_is_the_pipeline_after_nvvm():
    assert STAGE_NAMES == ("key", "cache", "compile", "link", "fatbin", "store", "load")


def test_the_loop_records_every_stage_and_stops_where_asked():
    job = make_job(saxpy, ARGS, JitOptions(), (8, 0), cache=False)
    state = run_build(job, until="link")
    assert state.artifact is not None and state.artifact.arch == "sm_80" and state.artifact.cubin[:4] == b"\x7fELF"
    assert [a for a, _ in state.cubins] == ["sm_80"] and state.fatbin is None and state.loaded is None
    timed = set(state.timings)
    assert {"parse", "infer", "lower", "nvvm", "link"} <= timed <= {"parse", "infer", "lower", "nvvm", "link", "other"}
    assert all(v >= 0 for v in state.timings.values())
    # resume after link: store and load have nothing to do for this job; the artifact is kept
    later = run_build(job, state, start="fatbin", until="load")
    assert later.artifact is state.artifact and set(later.timings) == timed
    with pytest.raises(ValueError, match="unknown build stage 'ptx'"):
        run_build(job, until="ptx")


def test_an_artifact_in_hand_skips_compile_and_link():
    job = make_job(saxpy, ARGS, JitOptions(), (8, 0), cache=False)
    art = run_build(job, until="link").artifact
    again = run_build(job, BuildState(artifact=art), until="store")
    assert again.artifact is art and again.result is None and not again.cubins
    assert not ({"parse", "lower", "nvvm", "link"} & set(again.timings))


def test_options_are_translated_once_per_build(monkeypatch):
    calls = []
    real = options_mod.compile_options_of

    def counting(opts, cc):
        calls.append(cc)
        return real(opts, cc)

    monkeypatch.setattr(options_mod, "compile_options_of", counting)
    job = make_job(saxpy, ARGS, JitOptions(lineinfo=True, max_registers=32), (9, 0), cache=False)
    run_build(job, until="link")
    assert calls == [(9, 0)]  # make_job only: every stage reads job.compile_options / job.link_options
    assert job.link_options.max_registers == 32 and job.link_options.lineinfo


@needs_nvfatbin
def test_compile_output_fatbin_holds_a_cubin_per_target():
    fb, resty = cuda.compile(saxpy, SIG, device=False, output="fatbin", cc=[100, "8.0", (9, 0), 90])
    assert str(resty) == "void" and fb[:4] == b"\x50\xed\x55\xba"
    assert fatbin_archs(fb) == ["sm_80", "sm_90", "sm_100"]  # lowest first, each once
    for arch, cubin in fatbin_cubins(fb).items():
        assert cubin[:4] == b"\x7fELF" and b"saxpy" in cubin, arch
    one, _ = cuda.compile(cuda.jit(saxpy), SIG, device=False, output="fatbin", cc=(9, 0))  # a dispatcher, one cc
    assert fatbin_archs(one) == ["sm_90"]


def test_compile_output_fatbin_refuses_what_it_cannot_build():
    with pytest.raises(ValueError, match="output='fatbin' builds kernels"):
        cuda.compile(saxpy, SIG, device=True, output="fatbin", cc=[80])
    with pytest.raises(TypeError, match="a kernel returns nothing"):
        cuda.compile(saxpy, "float32(float32[::1], float32[::1], float32[::1], float32)", output="fatbin", cc=[80])
    with pytest.raises(ValueError, match="sm_70|7.0"):
        cuda.compile(saxpy, SIG, output="fatbin", cc=[70, 80])
    with pytest.raises(TypeError, match="abi"):
        cuda.compile(saxpy, SIG, output="fatbin", cc=[80], abi="c")


def _cli(*args, cwd):
    from plugin_path import fatbin_plugin_dir

    paths = [fatbin_plugin_dir(cwd)] + [p for p in sys.path if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    return subprocess.run([sys.executable, "-m", "cudalite.nvvm.cli", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd)


@needs_nvfatbin
def test_cli_emit_fatbin(tmp_path):
    here = os.path.abspath(__file__)
    out = tmp_path / "saxpy.fatbin"
    r = _cli(f"{here}:saxpy", SIG, "--kernel", "--emit", "fatbin", "--cc", "80,9.0,sm_100", "-o", out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert fatbin_archs(out.read_bytes()) == ["sm_80", "sm_90", "sm_100"]


def test_cli_fatbin_without_a_linking_package_says_what_to_install(tmp_path, monkeypatch, capsys):
    import importlib.metadata

    from cudalite.nvvm import cli

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: [])
    out = tmp_path / "x.fatbin"
    rc = cli.main([f"{os.path.abspath(__file__)}:saxpy", SIG, "--kernel", "--emit", "fatbin", "--cc", "80,90",
                   "-o", str(out)])
    assert rc == 1 and "--emit fatbin needs a package that links and packs fatbins: pip install cudalite-linker" \
        in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("args, message", [
    (["--emit", "fatbin", "--cc", "80,90", "-o", "x.fatbin"], "--emit fatbin builds kernels: add --kernel"),
    (["--kernel", "--emit", "fatbin", "--cc", "80,90"], "--emit fatbin is binary: give a file with -o FILE"),
    (["--kernel", "--emit", "fatbin", "-o", "x.fatbin"], "--emit fatbin needs its targets: --cc 80,90,100"),
    (["--kernel", "--emit", "ptx", "--cc", "80,90"], "--cc lists 2 targets: only --emit fatbin builds for several"),
    (["--kernel", "--emit", "fatbin", "--cc", "80,sm_70", "-o", "x.fatbin"], "sm_70"),
])
def test_cli_fatbin_usage_errors(tmp_path, args, message):
    r = _cli(f"{os.path.abspath(__file__)}:saxpy", SIG, *args, cwd=tmp_path)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert not (tmp_path / "x.fatbin").exists()


def test_load_kernel_checks_its_input_before_the_driver(tmp_path):
    with pytest.raises(ValueError, match="neither a fatbin nor a cubin"):
        aot._read_image(b"#!/bin/sh\n")
    with pytest.raises(ValueError, match="is not a regular file"):
        aot._read_image(tmp_path)
    with pytest.raises(FileNotFoundError, match="cannot open kernel image"):
        aot._read_image(tmp_path / "missing.fatbin")
    with pytest.raises(TypeError, match="takes a path or the image's bytes"):
        aot._read_image(42)
    big = tmp_path / "big.fatbin"
    big.write_bytes(b"\x50\xed\x55\xba" + b"\0" * 64)
    assert aot._read_image(big)[:4] == b"\x50\xed\x55\xba"
    old = aot.MAX_IMAGE_BYTES
    try:
        aot.MAX_IMAGE_BYTES = 16
        with pytest.raises(ValueError, match="is 68 bytes; the limit is 16"):
            aot._read_image(big)
    finally:
        aot.MAX_IMAGE_BYTES = old


def test_the_stand_in_function_has_the_kernels_arity_and_name():
    f = aot._stand_in("_ZN8__main__5saxpyB2v1", 4)
    assert f.__qualname__ == "_ZN8__main__5saxpyB2v1" and f.__code__.co_argcount == 4
    assert aot._stand_in("class", 0).__name__ == "kernel"  # a keyword is not a name
