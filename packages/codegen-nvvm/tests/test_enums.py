"""``enum`` constants in device code, GPU-less (numba-cuda's test_enums):
plain ``Enum`` members compared at compile time (by identity, as Python),
``Color["red"]`` by constant name, ``IntEnum`` members as ints (arithmetic,
casts, comparisons).  Kernel arguments: packages/jit/tests/test_enum_args.py."""

from __future__ import annotations

import re
from enum import Enum, IntEnum

import pytest

from cudalite import types
from cudalite.core.errors import TypingError
from cudalite.core.types import EnumClass, EnumMember, typeof_constant
from cudalite.nvvm import compile_ptx

CC = (9, 0)


class Color(Enum):
    red = 1
    green = 2
    crimson = 1  # an alias: the same member as red


class Planet(Enum):
    EARTH = (5.976e24, 6.37814e6)
    MARS = (6.421e23, 3.3972e6)


class Status(IntEnum):
    ok = 200
    missing = 404
    broken = 500


def _stores(ptx):
    """The constant bytes stored into the output array, in order (through the
    registers they were moved into)."""
    regs = dict(re.findall(r"mov\.u16\s+(%rs\d+),\s*(\d+);", ptx))
    stored = re.findall(r"st\.global\.u8\s+\[[^\]]+\],\s*(%rs\d+|\d+);", ptx)
    return [int(regs.get(v, v)) for v in stored]


def test_enum_types():
    assert isinstance(typeof_constant(Color), EnumClass)
    assert isinstance(typeof_constant(Color.red), EnumMember)
    assert typeof_constant(Color.crimson) == typeof_constant(Color.red)
    assert typeof_constant(Status.ok) == types.int64  # IntEnum members are ints


def _compare(out):
    out[0] = Color.red == Color.green
    out[1] = Color.red == Color.crimson
    out[2] = Color.red != Color.green
    out[3] = Color.red is Color.red
    out[4] = Color.red is not Color.green
    out[5] = Planet.EARTH == Planet.EARTH
    out[6] = Planet.EARTH == Planet.MARS
    out[7] = Color["red"] == Color["green"]
    out[8] = Color["green"] == Color.green


def test_plain_enum_comparisons_fold_like_python():
    ptx, _ = compile_ptx(_compare, "void(uint8[:])", cc=CC)
    expected = [Color.red == Color.green, Color.red == Color.crimson, Color.red != Color.green,
                Color.red is Color.red, Color.red is not Color.green, Planet.EARTH == Planet.EARTH,
                Planet.EARTH == Planet.MARS, Color["red"] == Color["green"],
                Color["green"] == Color.green]
    assert _stores(ptx) == [int(e) for e in expected]


def _int_enum(x):
    if x > Status.broken:
        return x - Status["missing"]
    return x + Status.ok + int(Status.missing)


def test_int_enum_members_are_ints():
    ptx, rt = compile_ptx(_int_enum, "int64(int64)", device=True, cc=CC)
    assert rt == types.int64
    assert "404" in ptx and "500" in ptx


def _ordering(out):
    out[0] = Color.red < Color.green


def _bad_name(out):
    out[0] = Color["purple"] == Color.red


def _runtime_name(out, s):
    out[0] = Color[s] == Color.red


def test_enum_errors_are_located():
    with pytest.raises(TypingError, match="cannot compare"):
        compile_ptx(_ordering, "void(uint8[:])", cc=CC)
    with pytest.raises(TypingError, match="Color has no member 'purple'"):
        compile_ptx(_bad_name, "void(uint8[:])", cc=CC)
    with pytest.raises(TypingError, match="needs a constant member name"):
        compile_ptx(_runtime_name, "void(uint8[:], int64)", cc=CC)
