"""The root of the type hierarchy: hashable, immutable type objects.

Every cudalite type is an interned value object compared by its ``key``.  Types
are callable to build signatures (``int32(int32, int32)``) and subscriptable to
build array types (``float32[:, ::1]``), as in numba.
"""

from __future__ import annotations

__all__ = ["Type", "Signature"]


class Type:
    """Base class of all cudalite types.  Subclasses define ``key`` and ``name``."""

    __slots__ = ("_key", "name")

    def __init__(self, key, name: str):
        self._key = (type(self).__name__, key)
        self.name = name

    @property
    def key(self):
        return self._key

    def __eq__(self, other):
        return isinstance(other, Type) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        return self.name

    __str__ = __repr__

    # -- signature building: ``types.int32(types.int32, types.int32)`` --------
    def __call__(self, *args):
        from ._signature import Signature as _Sig, as_type

        return _Sig(self, tuple(as_type(a) for a in args))

    @property
    def is_scalar(self) -> bool:
        return False

    @property
    def is_precise(self) -> bool:
        return True


class Signature:
    """A function signature: return type plus argument types (immutable)."""

    __slots__ = ("return_type", "args")

    def __init__(self, return_type, args):
        self.return_type = return_type
        self.args = tuple(args)

    def __eq__(self, other):
        return (
            isinstance(other, Signature)
            and self.return_type == other.return_type
            and self.args == other.args
        )

    def __hash__(self):
        return hash((self.return_type, self.args))

    def __repr__(self):
        rt = "?" if self.return_type is None else str(self.return_type)
        return f"{rt}({', '.join(str(a) for a in self.args)})"

    __str__ = __repr__
