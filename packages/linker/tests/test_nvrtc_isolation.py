"""NVRTC under isolation and a time bound (issue 28, finding 14).

A CUDA C++ source given to the linker is compiled by NVRTC in the isolated child
process; every isolated job (NVRTC or nvJitLink) is bounded by
``CUDALITE_LINK_TIMEOUT``/``Linker(timeout=)``; an ``#include`` that names a FIFO
is refused before NVRTC opens it.  NVRTC runs here (pip wheel), so the FIFO and
the macro bomb are real.  Hostile cases run in a subprocess with a timeout, so a
regression fails the test instead of hanging the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest
from cuda import pathfinder

import cudalite.linker as L
from cudalite.linker import LinkTimeout
from cudalite.linker._isolated import LinkServer
from cudalite.linker.config import load_config

from linker_testlib import DEFINES_F

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
SRC_PATHS = [os.path.join(os.path.dirname(__file__), "..", "..", p, "src")
             for p in os.listdir(os.path.join(os.path.dirname(__file__), "..", ".."))]


def bomb(depth: int) -> str:
    """Each macro doubles the previous one's expansion: 2**depth tokens."""
    return ("#define A0 1\n" + "".join(f"#define A{i + 1} (A{i}+A{i})\n" for i in range(depth))
            + f'extern "C" __device__ int bomb() {{ return A{depth}; }}\n')


def run_isolated_snippet(code: str, limit: float = 60.0, env=None, path=()) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (``env`` added to the environment, ``path``
    first on its PYTHONPATH); a hang past ``limit`` fails the test."""
    env = dict(os.environ, **(env or {}),
               PYTHONPATH=os.pathsep.join([*path, *SRC_PATHS, os.environ.get("PYTHONPATH", "")]))
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                              timeout=limit, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung for more than {limit} s")


# --- the setting -------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, seconds", [(None, 600.0), ("", 600.0), ("2.5", 2.5), ("0", 0.0), (" 30 ", 30.0)])
def test_link_timeout_setting(value, seconds):
    env = {} if value is None else {"CUDALITE_LINK_TIMEOUT": value}
    assert load_config(env).link_timeout == seconds


@pytest.mark.parametrize("value", ["-1", "ten", "nan", "inf"])
def test_a_bad_link_timeout_names_the_variable(value):
    with pytest.raises(ValueError, match=rf"CUDALITE_LINK_TIMEOUT='{value}': expected a number of seconds >= 0"):
        load_config({"CUDALITE_LINK_TIMEOUT": value})


@pytest.mark.parametrize("value", [-1, "5", True, float("nan")])
def test_a_bad_linker_timeout_is_refused(value):
    with pytest.raises(ValueError, match="timeout must be a number of seconds >= 0"):
        L.Linker("sm_90", timeout=value)


# --- NVRTC runs in the child when isolation is on ----------------------------------------------------

@pytest.fixture
def no_tools_here(monkeypatch):
    """This process cannot load NVRTC or nvJitLink (the child, a fresh interpreter, can)."""
    def missing(name):
        raise pathfinder.DynamicLibNotFoundError(f"Failure finding {name!r}: no such library")

    monkeypatch.setattr(pathfinder, "load_nvidia_dynamic_lib", missing)


def test_a_linker_compiles_cuda_sources_in_the_child(no_tools_here):
    # NVRTC cannot be loaded in this process, so only the child can have compiled it
    ptx = L.Linker("sm_90", isolate=True).add(L.CUSource(DEFINES_F, name="f.cu"))._compile(
        L.CUSource(DEFINES_F, name="f.cu"), lto=False)
    assert isinstance(ptx, L.PTXSource) and ptx.name == "f.ptx" and ".target sm_90" in ptx.text
    with pytest.raises(L.ToolNotFoundError, match="nvrtc was not found: install it with 'pip install "
                                                  "nvidia-cuda-nvrtc'"):
        L.Linker("sm_90", isolate=False)._compile(L.CUSource(DEFINES_F, name="f.cu"), lto=False)


def test_a_trusted_cuda_source_and_isolate_false_compile_here(monkeypatch):
    import cudalite.linker._isolated as isolated_mod
    import cudalite.linker._linker as linker_mod

    def no_child():
        raise AssertionError("the link server was used")

    monkeypatch.setattr(linker_mod, "link_server", no_child)
    monkeypatch.setattr(isolated_mod, "link_server", no_child)
    with pytest.raises(AssertionError, match="the link server was used"):  # the patch does bite
        L.compile_cuda(DEFINES_F, isolate=True)
    src = L.CUSource(DEFINES_F, name="f.cu")
    assert ".target sm_90" in L.Linker("sm_90").add(src, trusted=True)._compile(src, lto=False).text
    other = L.CUSource(DEFINES_F + "\n", name="g.cu")
    assert ".target sm_90" in L.Linker("sm_90", isolate=False).add(other)._compile(other, lto=False).text


@pytest.mark.parametrize("kw", [{}, {"lto": True}, {"cubin": True}, {"relocatable": False}])
def test_isolated_compile_equals_in_process(kw):
    def setup(mod):
        pass

    src = L.CUSource(DEFINES_F, name="dir/thing.cu", setup_callback=setup)
    here = L.compile_cuda(src, arch="sm_86", **kw)
    there = L.compile_cuda(src, arch="sm_86", isolate=True, timeout=120, **kw)
    assert type(there) is type(here) and there.name == here.name and there.setup_callback is setup
    if not kw.get("lto"):  # LTO-IR embeds nothing process-specific either, but compare what is text
        assert there.data == here.data
    else:
        assert there.data[:4] == here.data[:4] == b"\xedCN\x7f"


def test_isolated_nvrtc_errors_are_the_same_errors():
    bad = 'extern "C" __device__ int f() {\n  return undefined_thing;\n}\n'
    with pytest.raises(L.NvrtcError) as here:
        L.compile_cuda(bad, name="bad.cu")
    with pytest.raises(L.NvrtcError) as there:
        L.compile_cuda(bad, name="bad.cu", isolate=True)
    assert str(there.value) == str(here.value)
    assert (there.value.file, there.value.line) == (here.value.file, here.value.line) == ("bad.cu", 2)
    assert there.value.log == here.value.log
    with pytest.raises(L.InvalidInputError, match=r"invalid CUDA C\+\+ input 'nul.cu': a NUL byte at line 1"):
        L.compile_cuda(b"int a;\0int b;\n", name="nul.cu", isolate=True)


def test_options_and_include_dirs_reach_the_child(tmp_path):
    (tmp_path / "val.h").write_text("#define VAL 41\n")
    src = '#include "val.h"\nextern "C" __device__ int f() { return VAL + ONE; }\n'
    ptx = L.Linker("sm_90", include_dirs=[tmp_path], nvrtc_options=["-DONE=1"])._compile(
        L.CUSource(src, name="v.cu"), lto=False)
    assert "42" in ptx.text


def test_a_link_with_a_cu_still_links_after_a_timeout():
    with pytest.raises(LinkTimeout):
        L.Linker("sm_90", timeout=0.5).add(L.CUSource(bomb(24), name="bomb.cu")).link()
    cubin = L.Linker("sm_90", timeout=120).add(L.CUSource(DEFINES_F, name="f.cu")).link()
    assert cubin.data == L.Linker("sm_90", isolate=False).add(L.CUSource(DEFINES_F, name="f.cu")).link().data


# --- the bound ---------------------------------------------------------------------------------------

def test_a_macro_bomb_ends_at_the_bound():
    start = time.monotonic()
    with pytest.raises(LinkTimeout) as e:
        L.Linker("sm_90", timeout=1).add(L.CUSource(bomb(24), name="bomb.cu")).link()
    took = time.monotonic() - start
    assert took < 30  # unbounded, depth 20 alone takes ~55 s and 24 ~15 minutes
    assert isinstance(e.value, L.LinkerError) and isinstance(e.value, TimeoutError)
    assert str(e.value) == ("NVRTC compiling 'bomb.cu' ran past the 1 s bound and its isolated process was "
                            "killed; if the input is trusted and just slow, raise CUDALITE_LINK_TIMEOUT "
                            "(seconds; 0: no bound) or pass timeout= to the Linker")
    assert (e.value.what, e.value.seconds, e.value.setting) == ("NVRTC compiling 'bomb.cu'", 1,
                                                                "CUDALITE_LINK_TIMEOUT")


def test_the_setting_bounds_the_linker_by_default():
    proc = run_isolated_snippet(f"""
        import cudalite.linker as L
        try:
            L.link(L.CUSource({bomb(24)!r}, name="bomb.cu"), arch="sm_90")
        except L.LinkerError as e:
            print(type(e).__name__, e.seconds)
    """, env={"CUDALITE_LINK_TIMEOUT": "0.5"})
    assert proc.stdout.strip() == "LinkTimeout 0.5", proc.stderr


@needs_fifo
def test_a_fifo_reached_through_a_macro_ends_at_the_bound(tmp_path):
    # a computed #include cannot be checked before preprocessing: the bound ends it
    os.mkfifo(tmp_path / "pipe.h")
    src = '#define HDR "pipe.h"\n#include HDR\nextern "C" __device__ int f() { return 1; }\n'
    with pytest.raises(LinkTimeout, match="NVRTC compiling 'k.cu' ran past the 1 s bound"):
        L.Linker("sm_90", include_dirs=[tmp_path], timeout=1).add(L.CUSource(src, name="k.cu")).link()


def test_a_job_of_the_link_server_past_its_bound_kills_the_child():
    server = LinkServer()
    try:
        with pytest.raises(LinkTimeout, match="NVRTC compiling 'b.cu' ran past the 0.5 s bound"):
            server.compile(bomb(24).encode(), name="b.cu", arch="sm_90", lto=False, include_dirs=(), options=(),
                           relocatable=True, cuda_include_path=None, cubin=False, timeout=0.5)
        assert server._proc is None  # killed and forgotten; the next job starts a new one
        data = server.compile(DEFINES_F.encode(), name="f.cu", arch="sm_90", lto=False, include_dirs=(),
                              options=(), relocatable=True, cuda_include_path=None, cubin=False, timeout=120)
        assert b".target sm_90" in data
    finally:
        server.close()


# --- FIFO includes refused before NVRTC opens them ---------------------------------------------------

@needs_fifo
@pytest.mark.parametrize("isolate", [False, True])
@pytest.mark.parametrize("how", ["source dir", "include dir", "nested header", "absolute", "option -I"])
def test_a_fifo_include_is_refused_up_front(tmp_path, isolate, how):
    fifo_dir = tmp_path / "inc"
    fifo_dir.mkdir()
    os.mkfifo(fifo_dir / "pipe.h")
    include_dirs, options, name = [], [], str(tmp_path / "k.cu")
    line, where, fifo = 1, "", fifo_dir / "pipe.h"
    if how == "source dir":
        os.rename(fifo, tmp_path / "pipe.h")
        src, fifo = '#include "pipe.h"\n', tmp_path / "pipe.h"
    elif how == "include dir":
        include_dirs, src = [str(fifo_dir)], '#include <pipe.h>\n'
    elif how == "option -I":
        options, src = [f"-I{fifo_dir}"], '#include "pipe.h"\n'
    elif how == "absolute":
        src = f'#include "{fifo_dir / "pipe.h"}"\n'
    else:
        (fifo_dir / "outer.h").write_text('// outer\n#include "pipe.h"\n')
        include_dirs, src, line, where = [str(fifo_dir)], '#include "outer.h"\n', 2, f" (in {fifo_dir / 'outer.h'})"
    src += 'extern "C" __device__ int f() { return 1; }\n'
    proc = run_isolated_snippet(f"""
        import cudalite.linker as L
        try:
            L.compile_cuda({src!r}, name={name!r}, include_dirs={include_dirs!r}, options={options!r},
                           isolate={isolate!r}, timeout=30)
        except L.LinkerError as e:
            print(type(e).__name__ + ": " + str(e))
    """)
    assert proc.stdout.strip() == (
        f"InvalidInputError: invalid CUDA C++ input {name!r}: #include at line {line}{where} names "
        f"{fifo}, a FIFO, not a regular file; NVRTC would block or read it forever"), proc.stderr


def test_a_device_include_is_refused(tmp_path):
    with pytest.raises(L.InvalidInputError, match="names /dev/zero, a character device, not a regular file"):
        L.compile_cuda('#include "/dev/zero"\n', name="z.cu")


def test_regular_includes_and_missing_ones_are_left_to_nvrtc(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.h").write_text('#include "b.h"\n#include <cuda_fp16.h>\n')
    (tmp_path / "sub" / "b.h").write_text("#define B 3\n")
    ptx = L.compile_cuda('#include "sub/a.h"\nextern "C" __device__ int f() { return B; }\n',
                         name=str(tmp_path / "k.cu"))
    assert "3" in ptx.text
    with pytest.raises(L.NvrtcError, match="cannot open source file"):
        L.compile_cuda('#include "nothing_here.h"\n', name=str(tmp_path / "k.cu"))


# --- a missing tool is a LinkerError on every path ---------------------------------------------------

def _ltoir():
    return L.compile_cuda(DEFINES_F, name="f.cu", lto=True)


@pytest.mark.parametrize("lib, wheel, call", [
    ("nvrtc", "nvidia-cuda-nvrtc",
     lambda d: L.Linker("sm_90", isolate=False).add(L.CUSource(DEFINES_F, name="f.cu")).link()),
    ("nvrtc", "nvidia-cuda-nvrtc", lambda d: L.link(_write(d, "f.cu", DEFINES_F), arch="sm_90", isolate=False)),
    ("nvJitLink", "nvidia-nvjitlink", lambda d: L.Linker("sm_90", isolate=False).add(d["ltoir"]).link()),
    ("nvJitLink", "nvidia-nvjitlink", lambda d: L.Linker("sm_90", isolate=False).add(d["ltoir"]).link_ptx()),
    ("nvJitLink", "nvidia-nvjitlink",
     lambda d: L.Linker("sm_90").add(L.PTXSource(d["ptx"].data, name="p.ptx")).link()),
    ("nvrtc", "nvidia-cuda-nvrtc", lambda d: L.compile_cuda(DEFINES_F, cubin=True)),
    ("nvrtc", "nvidia-cuda-nvrtc", lambda d: L.nvrtc_version()),
])
def test_a_missing_tool_is_a_linker_error_on_every_path(monkeypatch, tmp_path, lib, wheel, call):
    made = {"ltoir": _ltoir(), "ptx": L.compile_cuda(DEFINES_F, name="f.cu"), "dir": tmp_path}

    def missing(name):
        raise pathfinder.DynamicLibNotFoundError(f"Failure finding {name!r}: no such library")

    monkeypatch.setattr(pathfinder, "load_nvidia_dynamic_lib", missing)
    with pytest.raises(L.ToolNotFoundError, match=rf"^{lib} was not found: install it with 'pip install {wheel}'"):
        call(made)


def _write(d, name, text):
    path = d["dir"] / name
    path.write_text(text)
    return path


def test_a_missing_tool_in_the_child_is_a_tool_not_found_error(tmp_path):
    # both interpreters import this sitecustomize: neither can load NVRTC; the parent
    # never tries (isolate=True), the child reports it
    (tmp_path / "sitecustomize.py").write_text(textwrap.dedent("""
        from cuda import pathfinder
        def missing(name):
            raise pathfinder.DynamicLibNotFoundError(f"Failure finding {name!r}: no such library")
        pathfinder.load_nvidia_dynamic_lib = missing
    """))
    proc = run_isolated_snippet(f"""
        import cudalite.linker as L
        try:
            L.compile_cuda({DEFINES_F!r}, name="f.cu", isolate=True, timeout=60)
        except L.LinkerError as e:
            print(type(e).__name__ + ": " + str(e).split(" -- ")[0])
    """, path=[str(tmp_path)])
    assert proc.stdout.strip() == ("ToolNotFoundError: nvrtc was not found: install it with 'pip install "
                                   "nvidia-cuda-nvrtc' (cudalite-linker depends on it; a CUDA toolkit is not used)"), \
        proc.stderr
