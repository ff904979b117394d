"""LinkerOptions -> nvJitLink flags (a pure function), arch normalisation, config."""

from __future__ import annotations

import dataclasses

import pytest

from cudalite.linker import LinkerOptions, linker_flags, normalize_arch
from cudalite.linker.config import load_config


def test_defaults_give_only_arch():
    assert linker_flags(LinkerOptions(), "sm_90") == ["-arch=sm_90"]


def test_every_option_maps_to_its_flag():
    opts = LinkerOptions(max_registers=32, lineinfo=True, debug=True, ftz=True, prec_div=False,
                         prec_sqrt=False, fma=True, optimization_level=2, verbose=True,
                         extra=("-time",))
    flags = linker_flags(opts, (8, 6))
    assert flags == ["-arch=sm_86", "-maxrregcount=32", "-Xptxas=-O2", "-g", "-lineinfo", "-ftz=true",
                     "-prec-div=false", "-prec-sqrt=false", "-fma=true", "-verbose", "-time"]


def test_optimization_levels_nvjitlink_accepts():
    """nvJitLink takes -O0 and -O3 only (it rejects -O1/-O2 with ERROR_UNRECOGNIZED_OPTION):
    levels 1 and 2 go to ptxas."""
    flags = {level: linker_flags(LinkerOptions(optimization_level=level), "sm_90")[1:] for level in range(4)}
    assert flags == {0: ["-O0"], 1: ["-Xptxas=-O1"], 2: ["-Xptxas=-O2"], 3: ["-O3"]}


def test_lto_and_ptx_modes():
    assert linker_flags(LinkerOptions(), "sm_90", lto=True) == ["-arch=sm_90", "-lto"]
    assert linker_flags(LinkerOptions(), "sm_90", ptx=True) == ["-arch=sm_90", "-lto", "-ptx"]
    assert linker_flags(LinkerOptions(lto=True), "sm_90") == ["-arch=sm_90", "-lto"]


def test_options_frozen_and_validated():
    opts = LinkerOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.debug = True
    with pytest.raises(ValueError, match="max_registers"):
        LinkerOptions(max_registers=0)
    with pytest.raises(ValueError, match="optimization_level"):
        LinkerOptions(optimization_level=7)
    assert LinkerOptions(extra="-time").extra == ("-time",)
    assert LinkerOptions(extra=["-a", "-b"]).extra == ("-a", "-b")


@pytest.mark.parametrize("given, expected", [
    ("sm_90", "sm_90"), ((9, 0), "sm_90"), ((12, 0), "sm_120"), (80, "sm_80"), ("86", "sm_86"),
    ("sm_90a", "sm_90a"), ("SM_75", "sm_75"), ("compute_90", "sm_90"), ("9.0", "sm_90"), ([10, 3], "sm_103"),
    (100, "sm_100"), ("sm_100f", "sm_100f"), ("compute_120a", "sm_120a"), (" 8.6 ", "sm_86"),
])
def test_normalize_arch(given, expected):
    assert normalize_arch(given) == expected


@pytest.mark.parametrize("bad, why", [
    ("sm90", "expected a compute capability such as 90, '9.0', (9, 0), 'sm_90', 'sm_90a' or 'compute_90'"),
    ("", "expected a compute capability such as"),
    (None, "expected a compute capability such as"),
    (True, "expected a compute capability such as"),
    ((9,), "a tuple or list is (major, minor), two ints"),
    (9.0, "a float is ambiguous; write the string '9.0' or a tuple such as (9, 0)"),
    (9, "a number names a target with 2 or 3 digits"),
    ("sm_70", "7.0 (sm_70) is older than the oldest target of the CUDA 13 toolchain, 7.5 (sm_75)"),
    ("sm_80a", "the arch-specific suffix 'a' needs compute capability 9.0 or newer"),
    ("sm_90f", "the family-specific suffix 'f' needs compute capability 10.0 or newer"),
])
def test_normalize_arch_rejects(bad, why):
    with pytest.raises(ValueError) as e:
        normalize_arch(bad)
    assert str(e.value).startswith(f"invalid compute capability {bad!r}: {why}")


def test_linker_flags_keep_the_arch_suffix():
    assert linker_flags(LinkerOptions(), "sm_90a")[0] == "-arch=sm_90a"
    assert linker_flags(LinkerOptions(), "compute_100f")[0] == "-arch=sm_100f"


def test_config_reads_only_the_given_environment():
    assert load_config({}).cuda_include_path is None
    assert load_config({"CUDALITE_CUDA_INCLUDE_PATH": "/opt/x"}).cuda_include_path == "/opt/x"
