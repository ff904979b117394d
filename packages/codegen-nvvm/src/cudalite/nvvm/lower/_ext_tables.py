"""The extension API's conversion tables, which the backend's casts and constants ask.

``lower_cast`` and ``lower_constant`` (:mod:`cudalite.nvvm.extending`) register here;
:func:`~._casts.cast` asks :data:`casts` for a pair of types it does not know, and
:func:`~._constants.lower_constant` asks :data:`constants` for a frozen value of an
extension type.  Entries are ``run(lc, builder, *args)`` callables (the extension
module wraps the user's function with its lowering context), so this module depends
on nothing above the backend.
"""

from __future__ import annotations

from cudalite.core.types import Any, Type

__all__ = ["casts", "constants", "matches"]


def matches(pattern, ty) -> bool:
    """Whether type ``ty`` matches one pattern item: a type (equal), a type class
    (an instance of it) or ``types.Any`` (anything)."""
    if pattern is Any or pattern is None:
        return True
    if isinstance(pattern, type):
        return isinstance(ty, pattern)
    if isinstance(pattern, Type):
        return pattern == ty
    return False


class _PairTable:
    """``(from pattern, to pattern) -> run`` (lower_cast), class pairs looked up along
    both MROs, then type-instance patterns."""

    def __init__(self):
        self._impls: dict = {}

    def add(self, key, run):
        self._impls[key] = run

    def find(self, fromty, toty):
        if not self._impls:
            return None
        for a in type(fromty).__mro__:
            for b in type(toty).__mro__:
                run = self._impls.get((a, b))
                if run is not None:
                    return run
        for (a, b), run in self._impls.items():
            if not (isinstance(a, type) and isinstance(b, type)) and matches(a, fromty) and matches(b, toty):
                return run
        return None


class _ClassTable:
    """``type class -> run`` looked up along the MRO (lower_constant)."""

    def __init__(self):
        self._impls: dict = {}

    def add(self, cls, run):
        self._impls[cls] = run

    def find(self, ty):
        if not self._impls:
            return None
        for c in type(ty).__mro__:
            run = self._impls.get(c)
            if run is not None:
                return run
        return None


#: ``lower_cast`` registrations: ``run(None, builder, fromty, toty, value)``
casts = _PairTable()
#: ``lower_constant`` registrations: ``run(lc, builder, typ, pyval)``
constants = _ClassTable()
