"""The compile target and the environment: CUDALITE_DEFAULT_CC, CUDALITE_FULL_TRACEBACK,
``make_options(cc=...)`` and the libNVVM ``-arch`` they give."""

from __future__ import annotations

import pytest

from cudalite.core.target import ComputeCapability
from cudalite.nvvm import compile_ptx
from cudalite.nvvm import CompileOptions, make_options
from cudalite.nvvm._options import nvvm_flags
from cudalite.nvvm.config import DEFAULT_CC, Config, load_config


def add(x, y):
    return x + y


def test_config_defaults():
    assert load_config({}) == Config() == Config(full_traceback=False, default_cc=ComputeCapability(7, 5))
    assert load_config({"CUDALITE_DEFAULT_CC": "  "}).default_cc == DEFAULT_CC


@pytest.mark.parametrize("text, arch", [("9.0", "sm_90"), ("90", "sm_90"), ("sm_90a", "sm_90a"),
                                        ("compute_100f", "sm_100f"), ("8.6", "sm_86")])
def test_default_cc_spellings(text, arch):
    assert load_config({"CUDALITE_DEFAULT_CC": text}).default_cc.arch == arch


@pytest.mark.parametrize("text", ["nine", "7.0", "9.0.1", "sm_75a"])
def test_unparsable_default_cc_is_an_error_naming_the_variable(text):
    with pytest.raises(ValueError) as e:
        load_config({"CUDALITE_DEFAULT_CC": text})
    assert str(e.value).startswith(f"CUDALITE_DEFAULT_CC={text!r}: invalid compute capability {text!r}: ")


def test_unparsable_default_cc_fails_the_compile(monkeypatch):
    monkeypatch.setenv("CUDALITE_DEFAULT_CC", "7,5")
    with pytest.raises(ValueError, match=r"^CUDALITE_DEFAULT_CC='7,5': invalid compute capability"):
        compile_ptx(add, "float32(float32, float32)", device=True)
    monkeypatch.setenv("CUDALITE_DEFAULT_CC", "8.0")
    ptx, _ = compile_ptx(add, "float32(float32, float32)", device=True)
    assert "\n.target sm_80\n" in ptx


@pytest.mark.parametrize("text, expected", [("1", True), ("on", True), ("off", False), ("No", False), ("", False)])
def test_full_traceback_is_a_boolean_switch(text, expected):
    assert load_config({"CUDALITE_FULL_TRACEBACK": text}).full_traceback is expected


def test_full_traceback_rejects_other_words():
    with pytest.raises(ValueError, match=r"^CUDALITE_FULL_TRACEBACK='sometimes': expected a boolean switch"):
        load_config({"CUDALITE_FULL_TRACEBACK": "sometimes"})


@pytest.mark.parametrize("cc, flag, tup, suffix", [
    ((9, 0), "-arch=compute_90", (9, 0), ""), ("sm_90a", "-arch=compute_90a", (9, 0), "a"),
    (100, "-arch=compute_100", (10, 0), ""), ("sm_100f", "-arch=compute_100f", (10, 0), "f"),
    ("compute_90", "-arch=compute_90", (9, 0), ""),
])
def test_make_options_keeps_the_suffix(cc, flag, tup, suffix):
    o = make_options(cc=cc)
    assert (nvvm_flags(o)[0], o.cc, o.arch_suffix) == (flag, tup, suffix)
    assert o.target == ComputeCapability(*tup, suffix)


def test_make_options_targets_differ_in_their_suffix():
    assert make_options(cc="sm_90a") != make_options(cc="sm_90")  # they are cache keys
    assert make_options(cc="9.0") == make_options(cc=90) == make_options(cc=(9, 0)) == CompileOptions(cc=(9, 0))


def test_make_options_rejects_with_the_parser_message():
    with pytest.raises(ValueError, match=r"^invalid compute capability 9\.0: a float is ambiguous"):
        make_options(cc=9.0)
