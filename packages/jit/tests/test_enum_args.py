"""Enum members as kernel arguments, GPU-less: an ``IntEnum`` member passes as
the int it is (``int64``); a plain ``Enum`` member specializes the kernel on it
(a compile-time constant in device code, no parameter slots)."""

from enum import Enum, IntEnum


from cudalite import types
from cudalite.cuda._launch.keys import key_to_type
from cudalite.cuda._launch.kinds import kind_for


class Color(Enum):
    red = 1


class Status(IntEnum):
    ok = 200
    missing = 404


def test_int_enum_kernel_argument_is_an_int():
    def resolve(cls, x):
        return kind_for(cls, x, resolve)

    h = resolve(Status, Status.missing)
    assert h.key(Status.missing) is int
    assert key_to_type(h.key(Status.missing)) == types.int64


def test_plain_enum_kernel_argument_specializes_on_the_member():
    from cudalite.core.abi import kernel_abi
    from cudalite.core.types import EnumMember

    h = kind_for(Color, Color.red, None)
    assert h.key(Color.red) is Color.red and h.flat(Color.red, None, None) == ()
    t = key_to_type(h.key(Color.red))
    assert isinstance(t, EnumMember) and t.obj is Color.red
    abi = kernel_abi((t, types.int32))
    assert [s.arg for s in abi.slots] == [1]  # the member takes no parameter slot
