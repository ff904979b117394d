"""One compute-capability contract, everywhere a target enters (GPU-less).

Each spelling of a target gives the same ``sm_XY`` -- or the same error text -- from
the core parser (:func:`cudalite.core.target.parse_cc`), ``cudalite.nvvm.compile_ptx``
(the ``.target`` line of the PTX), the CLI's ``--cc``, ``CUDALITE_DEFAULT_CC``, the
jit's ``compile_ptx_for`` and the linker's own twin normalizer
(:func:`cudalite.linker.normalize_arch`, kept equal to core's by the conformance
tests at the end, over the table and a generated corpus of spellings).
"""

from __future__ import annotations

import io
import itertools
import re
import sys

import pytest

from cudalite import cuda
from cudalite.core.target import parse_cc
from cudalite.linker import normalize_arch
from cudalite.nvvm import cli, compile_ptx
from cudalite.nvvm.config import load_config

GOOD = [90, "90", "9.0", (9, 0), [9, 0], "sm_90", "compute_90", " SM_90 ", "sm_90a", "compute_90a",
        120, "12.0", "sm_100f", (8, 6)]
BAD = ["sm_70", 70, "garbage", "", "sm_75a", "sm_90f", "9.10", "sm90", 9.0, True, (0, 0), (9,), -90, 9, 1000,
       "sm_900", 130, (13, 0), "compute_990"]
TEXT_GOOD = [s for s in GOOD if isinstance(s, (str, int)) and str(s).strip()]
TEXT_BAD = [s for s in BAD if isinstance(s, str) and s or isinstance(s, int) and not isinstance(s, bool)]


def add(x, y):
    return x + y


def scale(a, s):
    a[0] = a[0] * s


def _expected_arch(spelling) -> str:
    """The table's answer, written out (not computed by the parser under test)."""
    text = str(list(spelling) if isinstance(spelling, tuple) else spelling).strip().lower()
    suffix = text[-1] if text[-1] in "af" else ""
    digits = "".join(c for c in text if c.isdigit())
    return f"sm_{digits}{suffix}"


def _error(call, *args, **kwargs) -> str:
    with pytest.raises(ValueError) as e:
        call(*args, **kwargs)
    return str(e.value)


def _ptx_target(ptx: str) -> str:
    return re.search(r"^\.target (\S+)$", ptx, re.M).group(1)


def _run_cli(tmp_path, *argv):
    src = tmp_path / "mod.py"
    src.write_text("def add(x, y):\n    return x + y\n")
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        try:
            code = cli.main([f"{src}:add", "float32(float32, float32)", *argv])
        except SystemExit as e:  # argparse usage errors
            code = e.code
    finally:
        sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


# -- the same target everywhere -------------------------------------------------------------
@pytest.mark.parametrize("spelling", GOOD, ids=repr)
def test_core_linker_compile_and_jit_agree(spelling):
    arch = _expected_arch(spelling)
    assert parse_cc(spelling).arch == arch
    assert normalize_arch(spelling) == arch
    ptx, _ = compile_ptx(add, "float32(float32, float32)", device=True, cc=spelling)
    assert _ptx_target(ptx) == arch
    jit_ptx = cuda.jit(scale).compile_ptx_for("void(float32[::1], float32)", cc=spelling)
    assert _ptx_target(jit_ptx) == arch


@pytest.mark.parametrize("spelling", TEXT_GOOD, ids=repr)
def test_cli_and_environment_agree(spelling, tmp_path, monkeypatch):
    arch = _expected_arch(spelling)
    code, out, err = _run_cli(tmp_path, "--cc", str(spelling))
    assert (code, err) == (0, "") and _ptx_target(out) == arch
    assert load_config({"CUDALITE_DEFAULT_CC": str(spelling)}).default_cc.arch == arch
    monkeypatch.setenv("CUDALITE_DEFAULT_CC", str(spelling))  # the default target of every entry point
    code, out, err = _run_cli(tmp_path)
    assert (code, err) == (0, "") and _ptx_target(out) == arch
    ptx, _ = compile_ptx(add, "float32(float32, float32)", device=True)
    assert _ptx_target(ptx) == arch
    assert _ptx_target(cuda.jit(scale).compile_ptx_for("void(float32[::1], float32)")) == arch


# -- the same error everywhere --------------------------------------------------------------
@pytest.mark.parametrize("spelling", BAD, ids=repr)
def test_the_same_error_everywhere(spelling):
    message = _error(parse_cc, spelling)
    assert message.startswith(f"invalid compute capability {spelling!r}: ")
    assert _error(normalize_arch, spelling) == message
    assert _error(compile_ptx, add, "float32(float32, float32)", device=True, cc=spelling) == message
    kernel = cuda.jit(scale)
    assert _error(kernel.compile_ptx_for, "void(float32[::1], float32)", cc=spelling) == message


@pytest.mark.parametrize("spelling", TEXT_BAD, ids=repr)
def test_cli_and_environment_report_the_same_error(spelling, tmp_path):
    message = _error(parse_cc, str(spelling))
    code, out, err = _run_cli(tmp_path, f"--cc={spelling}")
    assert code == 2 and out == "" and f"cudalite-compile: error: argument --cc: {message}\n" in err
    assert "Traceback" not in err
    env_message = _error(load_config, {"CUDALITE_DEFAULT_CC": str(spelling)})
    assert env_message == f"CUDALITE_DEFAULT_CC={str(spelling)!r}: {message}"


def test_none_means_the_default_target_in_the_apis():
    assert _error(parse_cc, None) == _error(normalize_arch, None)  # the parsers take a target, not "default"
    assert _error(parse_cc, None).startswith("invalid compute capability None: expected a compute capability")
    ptx, _ = compile_ptx(add, "float32(float32, float32)", device=True, cc=None)
    assert _ptx_target(ptx) == load_config({}).default_cc.arch == "sm_75"


def test_a_bad_default_is_an_error_not_a_fallback(monkeypatch, tmp_path):
    kernel = cuda.jit(scale)
    monkeypatch.setenv("CUDALITE_DEFAULT_CC", "9,0")
    expected = "CUDALITE_DEFAULT_CC='9,0': " + _error(parse_cc, "9,0")
    assert _error(compile_ptx, add, "float32(float32, float32)", device=True) == expected
    assert _error(kernel.compile_ptx_for, "void(float32[::1], float32)") == expected
    assert _error(cuda.jit, scale) == expected  # @cuda.jit validates its options when it decorates
    code, out, err = _run_cli(tmp_path)
    assert (code, out, err) == (2, "", f"cudalite-compile: error: {expected}\n")


# -- the linker's twin equals the core parser --------------------------------------------------
def _corpus():
    prefixes = ["", "sm_", "compute_", "SM_", "sm", "cc", " "]
    numbers = ["7", "75", "70", "9.0", "90", "100", "103", "1000", "0", "00", "9.10", "10.3", "-90", "090", "7.5", ""]
    suffixes = ["", "a", "f", "A", "F", "x", " ", "af"]
    yield from ("".join(p) for p in itertools.product(prefixes, numbers, suffixes))
    yield from range(-12, 1010, 7)
    values = [-1, 0, 1, 7, 9, 10, 12, 99, 100, True, "9", 9.0]
    yield from itertools.product(values, values)
    yield from ([9], (9, 0, 0), [], 7.5, 10.0, b"sm_90", object(), {"major": 9})


def test_linker_twin_conforms_to_the_core_parser():
    checked = 0
    for spelling in _corpus():
        try:
            want = parse_cc(spelling).arch
        except ValueError as e:
            want = f"ValueError: {e}"
        try:
            got = normalize_arch(spelling)
        except ValueError as e:
            got = f"ValueError: {e}"
        assert got == want, spelling
        checked += 1
    assert checked > 1000


def test_linker_takes_the_core_value():
    assert normalize_arch(parse_cc("compute_100f")) == "sm_100f"


@pytest.mark.parametrize("spelling", ["sm_90a", "compute_100f"])
def test_a_suffixed_target_is_kept_from_compile_to_link(spelling):
    from cudalite.linker import LTOIR, Linker, PTXSource
    from cudalite.nvvm import compile as nvvm_compile

    arch = parse_cc(spelling).arch
    ptx, _ = nvvm_compile(add, "float32(float32, float32)", cc=spelling)
    assert _ptx_target(ptx) == arch
    ltoir, _ = nvvm_compile(add, "float32(float32, float32)", cc=spelling, output="ltoir")
    for code in (PTXSource(ptx, name="add.ptx"), LTOIR(ltoir, name="add.ltoir")):
        linker = Linker(spelling)
        assert linker.arch == arch
        cubin = linker.add(code).link()
        assert cubin.arch == arch[:-1]  # the ELF header names the SM number, not the suffix


def test_a_target_newer_than_the_toolchain_is_refused_with_the_likely_meaning():
    from cudalite.core.target import parse_cc

    for spelling in ("sm_900", 900):
        with pytest.raises(ValueError, match=r"90\.0 \(sm_900\) is newer than any target of the CUDA 13 toolchain "
                                             r"\(the newest are 12\.x\); did you mean sm_90\?"):
            parse_cc(spelling)
    assert parse_cc("sm_121").arch == "sm_121"
