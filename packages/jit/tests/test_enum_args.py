"""Enum members as kernel arguments, GPU-less: an ``IntEnum`` member passes as
the int it is (``int64``); a plain ``Enum`` member is refused with a reason
(cudalite keeps those as compile-time constants)."""

from enum import Enum, IntEnum

import pytest

from cudalite import types
from cudalite.cuda import _args


class Color(Enum):
    red = 1


class Status(IntEnum):
    ok = 200
    missing = 404


def test_int_enum_kernel_argument_is_an_int():
    def resolve(cls, x):
        return _args.handler_for(cls, x, resolve)

    h = resolve(Status, Status.missing)
    assert h.key(Status.missing) is int
    assert _args.key_to_type(h.key(Status.missing)) == types.int64


def test_plain_enum_kernel_argument_is_refused_with_a_reason():
    with pytest.raises(TypeError, match="plain Enum members are compile-time constants"):
        _args.handler_for(Color, Color.red, None)
