"""cudalite-compile, run as ``python -m cudalite.nvvm.cli`` in a subprocess, plus
the pure argument parser."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from cudalite.core.target import ComputeCapability
from cudalite.nvvm.cli import parse_args

MODULE = textwrap.dedent(
    """
    def add(x, y):
        return x + y

    class Ops:
        @staticmethod
        def mul(x, y):
            return x * y

    def scale(a, s):
        a[0] = a[0] * s
    """
)


@pytest.fixture
def mod(tmp_path):
    path = tmp_path / "mymod.py"
    path.write_text(MODULE)
    return path


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "cudalite.nvvm.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def test_emit_ptx_c_abi_to_stdout(mod, assemble):
    r = cli(f"{mod}:add", "float32(float32, float32)", "--abi", "c", "--emit", "ptx", "--cc", "9.0")
    assert r.returncode == 0, r.stderr
    assert ".visible .func  (.param .b32 func_retval0) add(" in r.stdout
    assert "add_param_0" in r.stdout and "add_param_1" in r.stdout
    assert ".target sm_90" in r.stdout
    assert assemble(r.stdout)[:4] == b"\x7fELF"


def test_default_is_c_abi_ptx_and_dash_means_stdout(mod):
    r = cli(f"{mod}:add", "int32(int32, int32)", "-o", "-")
    assert r.returncode == 0, r.stderr
    assert "add_param_0" in r.stdout and ".visible .func" in r.stdout


def test_emit_nvvm_ir(mod):
    r = cli(f"{mod}:add", "float64(float64, float64)", "--emit", "nvvm-ir")
    assert r.returncode == 0, r.stderr
    assert 'target triple = "nvptx64-nvidia-cuda"' in r.stdout
    assert "!nvvmir.version" in r.stdout
    assert "fadd double" in r.stdout


def test_emit_typed_ir(mod):
    r = cli(f"{mod}:add", "int32(int32, int32)", "--emit", "typed-ir")
    assert r.returncode == 0, r.stderr
    assert "int32" in r.stdout and "add" in r.stdout


def test_output_ltoir_to_file(mod, tmp_path):
    out = tmp_path / "add.ltoir"
    r = cli(f"{mod}:add", "float32(float32, float32)", "--abi", "c", "--output", "ltoir", "-o", out)
    assert r.returncode == 0, r.stderr
    data = out.read_bytes()
    assert len(data) > 16 and not data.startswith(b"//")  # binary LTO-IR, not PTX text
    assert r.stdout == ""


def test_emit_all_writes_every_stage(mod, tmp_path):
    out = tmp_path / "build"
    r = cli(f"{mod}:add", "float32(float32, float32)", "--emit", "all", "-o", out, "--lineinfo")
    assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(["add.source.py", "add.ast.txt", "add.typed-ir.txt", "add.ll", "add.ptx", "add.ltoir"])
    assert ".visible .func" in (out / "add.ptx").read_text()
    assert "def add" in (out / "add.source.py").read_text()


def test_abi_name(mod):
    r = cli(f"{mod}:add", "float32(float32, float32)", "--abi-name", "add_f32")
    assert r.returncode == 0, r.stderr
    assert ".visible .func  (.param .b32 func_retval0) add_f32(" in r.stdout
    assert "add_f32_param_0" in r.stdout


def test_numba_abi_is_mangled(mod):
    r = cli(f"{mod}:add", "int32(int32, int32)", "--abi", "numba")
    assert r.returncode == 0, r.stderr
    assert "_Z" in r.stdout


def test_qualified_name_and_kernel(mod):
    r = cli(f"{mod}:Ops.mul", "int64(int64, int64)")
    assert r.returncode == 0, r.stderr
    assert "mul.lo.s64" in r.stdout
    r = cli(f"{mod}:scale", "void(float32[:], float32)", "--kernel", "--fastmath", "--cc", "sm_80")
    assert r.returncode == 0, r.stderr
    assert ".visible .entry" in r.stdout and ".target sm_80" in r.stdout


def test_bad_signature_exits_1_with_message(mod):
    r = cli(f"{mod}:add", "float32(float32, flot32)")
    assert r.returncode == 1
    assert "flot32" in r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""


def test_type_error_shows_location(mod):
    r = cli(f"{mod}:add", "(float32[:], float32)")
    assert r.returncode == 1
    first = r.stderr.splitlines()[0]
    assert first.startswith(f"{mod}:3:") and "TypingError" in first
    assert "return x + y" in r.stderr and "^" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("spec, needle", [
    ("{dir}/missing.py:add", "no such file"),
    ("{mod}:nope", "nope"),
])
def test_bad_function_spec(mod, tmp_path, spec, needle):
    r = cli(spec.format(mod=mod, dir=tmp_path), "int32(int32, int32)")
    assert r.returncode == 1
    assert needle in r.stderr and "Traceback" not in r.stderr


def test_parse_args_is_pure():
    req = parse_args(["m.py:f", "float32(float32)", "--output", "ltoir", "-o", "f.ltoir", "--cc", "9.0",
                      "--fastmath", "--lineinfo", "--opt", "0", "--abi-name", "g"])
    assert (req.path, req.qualname, req.emit, req.output, req.output_path) == ("m.py", "f", "ltoir", "ltoir", "f.ltoir")
    assert req.cc == ComputeCapability(9, 0) and req.fastmath and req.lineinfo and req.opt == 0 and req.abi == "c"
    assert req.abi_name == "g" and req.device
    k = parse_args(["C:/x/m.py:A.f", "void()", "--kernel"])
    assert (k.path, k.qualname, k.abi, k.device, k.emit) == ("C:/x/m.py", "A.f", "numba", False, "ptx")


@pytest.mark.parametrize("argv", [
    ["nocolon", "void()"],
    ["m.py:f", "void()", "--emit", "all"],
    ["m.py:f", "void()", "--kernel", "--abi", "c"],
    ["m.py:f", "void()", "--cc", "nine"],
    ["m.py:f", "void()", "--forceinline"],
])
def test_parse_args_usage_errors(argv, capsys):
    with pytest.raises(SystemExit) as e:
        parse_args(argv)
    assert e.value.code == 2
    assert "error" in capsys.readouterr().err


def test_bad_cc_is_a_usage_error_with_the_parser_message(mod):
    r = cli(f"{mod}:add", "float32(float32, float32)", "--cc", "sm_70")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert ("cudalite-compile: error: argument --cc: invalid compute capability 'sm_70': 7.0 (sm_70) is older "
            "than the oldest target of the CUDA 13 toolchain, 7.5 (sm_75)") in r.stderr


def test_bad_environment_is_reported_before_compiling(mod):
    import os

    env = dict(os.environ, CUDALITE_DEFAULT_CC="latest")
    r = subprocess.run([sys.executable, "-m", "cudalite.nvvm.cli", f"{mod}:add", "float32(float32, float32)",
                        "--cc", "9.0"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stdout == ""
    assert r.stderr.startswith("cudalite-compile: error: CUDALITE_DEFAULT_CC='latest': invalid compute capability")


def test_cc_with_arch_suffix(mod):
    r = cli(f"{mod}:add", "float32(float32, float32)", "--cc", "sm_90a")
    assert r.returncode == 0, r.stderr
    assert "\n.target sm_90a\n" in r.stdout
