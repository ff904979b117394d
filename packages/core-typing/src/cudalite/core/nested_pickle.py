"""A pickle stream nested inside another one, opened by the outer stream's unpickler.

cudalite pickles some Python functions by value with ``cloudpickle`` (a kernel or an
``@intrinsic`` defined in a function or in ``__main__``), so that a plain
``pickle.dumps`` of the enclosing object works.  :class:`NestedStream` carries such a
stream's bytes inside the user's pickle: its reduction names :func:`load_nested` (which
is ``pickle.loads``) with the bytes, so the stream is read while the *user's*
``pickle.loads`` runs, as part of the stream the user chose to load.  cudalite's own
code never unpickles anything else (its disk cache holds plain, versioned payloads).

A nested stream that was altered fails as pickle's own errors do: an internal error of
rebuilding its objects (a built-in ``AttributeError``, ``TypeError``, ``KeyError``...,
e.g. a function's globals replaced by a number) is a :class:`pickle.UnpicklingError`
naming it; cudalite's own errors and ``ImportError`` (a module this process lacks)
pass unchanged.
"""

from __future__ import annotations

import pickle

__all__ = ["NestedStream", "load_nested"]


class NestedStream:
    """The bytes of a pickle stream; pickled, it becomes the object that stream holds."""

    __slots__ = ("data",)

    def __init__(self, data: bytes):
        self.data = data

    def __reduce__(self):
        return load_nested, (self.data,)


_REBUILD_ERRORS = (AttributeError, TypeError, LookupError, ValueError, EOFError)


def load_nested(data):
    """The object of the nested stream ``data`` (``pickle.loads``), a malformed one
    being a :class:`pickle.UnpicklingError`."""
    try:
        return pickle.loads(data)
    except _REBUILD_ERRORS as e:
        if type(e).__module__ != "builtins":  # a located error of a library (cudalite's own...): as it is
            raise
        raise pickle.UnpicklingError(f"a pickle stream nested in this pickle is malformed ({type(e).__name__}: "
                                     f"{e}): it was not made by cudalite, or was altered") from e
