"""The root of the type hierarchy: hashable, immutable type objects.

Every cudalite type is an interned value object compared by its ``key``.  Types
are callable to build signatures (``int32(int32, int32)``) and subscriptable to
build array types (``float32[:, ::1]``), as in numba.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Type", "Signature"]


class Type:
    """Base class of all cudalite types.  Subclasses define ``key`` and ``name``."""

    __slots__ = ("_key", "name")

    # How ``__call__`` turns an argument that is not a Type (a type name, a NumPy
    # dtype) into one: ``as_type``, which needs every type class -- and they all
    # derive from this one -- so the package facade (cudalite.core.types) installs
    # it once they exist, instead of this module importing the parser back.
    _convert_arg: Callable[[Any], Type] | None = None

    def __init__(self, key=None, name: str | None = None):
        # cudalite's subclasses pass ``(key, name)``; numba's form ``Type(name)`` /
        # ``Type(name=...)`` (a user type class) is keyed by its name.
        if name is None:
            if key is None:
                raise TypeError(f"{type(self).__name__}() needs a name")
            name = str(key)
        elif key is None:
            key = name
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

    # How ``my_type[::1]`` makes an array type: ``array_from_subscript``, installed by the
    # package facade (the array class derives from this one), like ``_convert_arg``.
    _array_of: Callable[..., Type] | None = None

    def __getitem__(self, spec):
        """``my_type[::1]``: an array type of this element type (numba's spelling, for
        extension types too)."""
        return Type._array_of(self, spec)

    # -- signature building: ``types.int32(types.int32, types.int32)`` --------
    def __call__(self, *args):
        return Signature(self, tuple(a if isinstance(a, Type) else Type._convert_arg(a) for a in args))

    @property
    def is_scalar(self) -> bool:
        return False

    @property
    def is_precise(self) -> bool:
        return True


@dataclass(frozen=True, slots=True, repr=False)
class Signature:
    """A function signature: return type plus argument types (immutable)."""

    return_type: Type | None
    args: tuple

    def __post_init__(self):
        object.__setattr__(self, "args", tuple(self.args))

    def __repr__(self):
        rt = "?" if self.return_type is None else str(self.return_type)
        return f"{rt}({', '.join(str(a) for a in self.args)})"

    __str__ = __repr__
