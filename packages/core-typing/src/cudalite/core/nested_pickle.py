"""A pickle stream nested inside another one, opened by the outer stream's unpickler.

cudalite pickles some Python functions by value with ``cloudpickle`` (a kernel or an
``@intrinsic`` defined in a function or in ``__main__``), so that a plain
``pickle.dumps`` of the enclosing object works.  :class:`NestedStream` carries such a
stream's bytes inside the user's pickle: its reduction names ``pickle.loads`` itself
with the bytes, so the stream is read by the *user's* ``pickle.loads``, as part of the
stream the user chose to load.  cudalite's own code never unpickles anything (its disk
cache holds plain, versioned payloads).  A nested stream that was altered fails as the
user's unpickling of any altered stream does (with the error of the object being
rebuilt: cudalite does not open the stream, so it cannot rename that error).
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
