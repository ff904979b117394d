"""The one compute-capability parser: every spelling, the value it gives, the errors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cudalite.core.target import MIN_CC, ComputeCapability, parse_cc

SUCH_AS = "expected a compute capability such as 90, '9.0', (9, 0), 'sm_90', 'sm_90a' or 'compute_90'"


@pytest.mark.parametrize("given, cc, arch", [
    (90, (9, 0), "sm_90"), ("90", (9, 0), "sm_90"), ("9.0", (9, 0), "sm_90"), ((9, 0), (9, 0), "sm_90"),
    ([9, 0], (9, 0), "sm_90"), ("sm_90", (9, 0), "sm_90"), ("compute_90", (9, 0), "sm_90"),
    ("sm_90a", (9, 0), "sm_90a"), ("compute_90a", (9, 0), "sm_90a"), ("SM_90A", (9, 0), "sm_90a"),
    (75, (7, 5), "sm_75"), (" 8.6\n", (8, 6), "sm_86"), (100, (10, 0), "sm_100"), (120, (12, 0), "sm_120"),
    ("10.3", (10, 3), "sm_103"), ("sm_100f", (10, 0), "sm_100f"), ("121", (12, 1), "sm_121"),
    (np.int64(89), (8, 9), "sm_89"), ((np.int32(8), np.int32(0)), (8, 0), "sm_80"),
])
def test_spellings(given, cc, arch):
    target = parse_cc(given)
    assert (target.cc, target.arch, str(target)) == (cc, arch, arch)
    assert target.virtual_arch == arch.replace("sm_", "compute_")
    assert target.arch_suffix == arch[len(f"sm_{cc[0]}{cc[1]}"):]
    assert parse_cc(target) is target and parse_cc(target.arch) == target  # round trip


@pytest.mark.parametrize("bad, why", [
    (True, SUCH_AS), (None, SUCH_AS), ("", SUCH_AS), ("garbage", SUCH_AS), ("sm90", SUCH_AS),
    ("9.10", SUCH_AS), ("sm_9.0", SUCH_AS), ("090", SUCH_AS), ("sm_90x", SUCH_AS), (b"90", SUCH_AS),
    (-90, "a number names a target with 2 or 3 digits, e.g. 90, '9.0', (9, 0), 'sm_90', 'sm_90a' or 'compute_90'"),
    (9, "a number names a target with 2 or 3 digits, e.g."), (1000, "a number names a target with 2 or 3 digits"),
    (9.0, "a float is ambiguous; write the string '9.0' or a tuple such as (9, 0)"),
    ((0, 0), "expected 1 <= major <= 99 and 0 <= minor <= 9"), ("0.0", "expected 1 <= major <= 99"),
    ((9, 10), "expected 1 <= major <= 99 and 0 <= minor <= 9"), ((-9, 0), "expected 1 <= major"),
    ((9,), "a tuple or list is (major, minor), two ints"), ((9, 0, 0), "a tuple or list is (major, minor)"),
    (("9", "0"), "a tuple or list is (major, minor), two ints"), ((True, 0), "a tuple or list is (major, minor)"),
    (70, "7.0 (sm_70) is older than the oldest target of the CUDA 13 toolchain, 7.5 (sm_75)"),
    ("5.2", "5.2 (sm_52) is older than the oldest target of the CUDA 13 toolchain, 7.5 (sm_75)"),
    ("sm_75a", "the arch-specific suffix 'a' needs compute capability 9.0 or newer"),
    ("compute_89a", "the arch-specific suffix 'a' needs compute capability 9.0 or newer"),
    ("sm_90f", "the family-specific suffix 'f' needs compute capability 10.0 or newer"),
])
def test_rejected_with_a_clear_message(bad, why):
    with pytest.raises(ValueError) as e:
        parse_cc(bad)
    assert str(e.value).startswith(f"invalid compute capability {bad!r}: {why}")


def test_the_value_is_frozen_hashable_and_checked():
    t = ComputeCapability(9, 0, "a")
    assert {t: 1}[parse_cc("sm_90a")] == 1 and t != ComputeCapability(9, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.major = 8
    with pytest.raises(ValueError, match="older than the oldest target"):
        ComputeCapability(7, 0)
    with pytest.raises(ValueError, match="the suffix is '', 'a'"):
        ComputeCapability(9, 0, "b")
    with pytest.raises(ValueError, match="major and minor must be ints"):
        ComputeCapability("9", 0)
    assert ComputeCapability(*MIN_CC).arch == "sm_75"
