"""``isinstance(x, cls)`` in device code: a compile-time constant, as in numba.

numba's rule (``ol_isinstance``): the variable's type must be one of the well-known
kinds (numbers -- bfloat16 and fp8 included --, booleans, tuples, arrays, None, datetimes); each class is mapped with
``as_numba_type`` and the answer is True when it *equals* the variable's type
(``isinstance(x, int)`` is True for an int64 ``x`` and False for an int32 one, like
``isinstance(np.int32(1), int)`` in CPython); ``tuple`` matches any tuple, a datetime
class any unit.  cudalite adds ``np.ndarray`` (any array) and ``type(None)``.  A class
that has no type, or a variable of another kind, is refused: a wrong ``False`` would
silently take the other branch.  Branch pruning uses the same answer, so only the
branch that can run is typed.
"""

from __future__ import annotations

import numpy as np

from ..._compat import is_number
from ...registry import registry
from .._records import Resolved
from ...types._scalar import _Number
from ...types import Array, NoneType, NPDatetime, NPTimedelta, Signature, Tuple, as_numba_type, boolean

__all__ = ["isinstance_value"]


def _supported(t) -> bool:
    return t == boolean or is_number(t) or isinstance(t, (_Number, Tuple, Array, NoneType, NPDatetime, NPTimedelta))


def _matches(var, cls) -> bool:
    if cls is tuple:
        return isinstance(var, Tuple)
    if cls is np.ndarray:
        return isinstance(var, Array)
    if cls is type(None):
        return isinstance(var, NoneType)
    try:
        t = as_numba_type(cls)
    except TypeError:
        raise ValueError(f"{cls!r} is not a class that device code has a type for") from None
    if var == t:
        return True
    return isinstance(t, (NPDatetime, NPTimedelta)) and type(var) is type(t)


def isinstance_value(var, classes) -> bool:
    """``isinstance`` of a value of type ``var`` and ``classes`` (a class or a tuple of
    them); ValueError (the message) when numba's rule gives no answer."""
    if not _supported(var):
        raise ValueError(f'does not support variables of type "{var}"')
    for cls in classes if isinstance(classes, tuple) else (classes,):
        if isinstance(cls, tuple):
            if isinstance_value(var, cls):
                return True
        elif _matches(var, cls):
            return True
    return False


@registry.call(isinstance, params=("obj", "class_or_tuple"))
def _isinstance(site):
    if len(site.args) != 2:
        raise site.error(f"takes 2 arguments ({len(site.args)} given)")
    classes = site.consts[1]
    if not (isinstance(classes, tuple) or isinstance(classes, type) or hasattr(classes, "key")):
        raise site.error("the class (or tuple of classes) must be a compile-time constant")
    try:
        value = isinstance_value(site.args[0], classes)
    except ValueError as e:
        raise site.error(str(e)) from None
    return Resolved(Signature(boolean, tuple(site.args)), value)
