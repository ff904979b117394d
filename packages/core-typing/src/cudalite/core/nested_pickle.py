"""A pickle stream nested inside another one, opened by the outer stream's unpickler.

cudalite pickles some Python functions by value with ``cloudpickle`` (a kernel or an
``@intrinsic`` defined in a function or in ``__main__``), so that a plain
``pickle.dumps`` of the enclosing object works.  :class:`NestedStream` carries such a
stream's bytes inside the user's pickle: its reduction names ``pickle.loads`` with the
bytes, so it is the unpickler running the *user's* ``pickle.loads`` that reads them,
as part of the stream the user chose to load.  cudalite's own code never unpickles
anything (its disk cache holds plain, versioned payloads).
"""

from __future__ import annotations

import pickle

__all__ = ["NestedStream"]


class NestedStream:
    """The bytes of a pickle stream; pickled, it becomes the object that stream holds."""

    __slots__ = ("data",)

    def __init__(self, data: bytes):
        self.data = data

    def __reduce__(self):
        return pickle.loads, (self.data,)
