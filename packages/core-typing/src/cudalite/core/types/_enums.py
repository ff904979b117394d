"""Types of ``enum`` classes and plain ``Enum`` members used as compile-time
constants in device code (numba-cuda's ``EnumClass`` / ``EnumMember``).

``IntEnum`` members are ints: they type as ``int64`` like any int constant.
A plain ``Enum`` member has no runtime value here: comparisons of two members
(``==``, ``!=``, ``is``, ``is not``) are decided at compile time, by identity as
in Python."""

from __future__ import annotations

from ._functions import Opaque

__all__ = ["EnumClass", "EnumMember"]


class EnumClass(Opaque):
    """An ``Enum`` / ``IntEnum`` class: ``Color.red`` and ``Color["red"]``."""

    __slots__ = ()


class EnumMember(Opaque):
    """One member of a plain ``Enum`` class (keyed by the member's identity)."""

    __slots__ = ()

    @property
    def enum_class(self):
        return type(self.obj)
