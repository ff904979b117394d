"""``cuda.typeof(value)``: the cudalite type of a Python value, as ``numba.typeof``.

A kernel argument (array of any kind, scalar, tuple, record, IntEnum member) gets
the type a kernel launched with it is specialized for; any other value (a dtype, a
function, a module, a plain Enum member...) the type device code gives it as a
global constant.  ``TypeError`` when the value has neither.
"""

from __future__ import annotations

from cudalite.core.types import Type, typeof_constant

from .kinds import kind_for
from .keys import key_to_type

__all__ = ["typeof"]


def _resolve(cls, obj):
    return kind_for(cls, obj, _resolve)


def typeof(value: object) -> Type:
    """The cudalite type of ``value`` (``numba.typeof``'s counterpart).

    Parameters
    ----------
    value : object
        A kernel argument (array, scalar, tuple, record, IntEnum member) or a value
        device code can use as a global constant.

    Returns
    -------
    cudalite.types.Type
        E.g. ``float32[:, ::1]`` for a C-contiguous 2-d float32 array.

    Raises
    ------
    TypeError
        If cudalite has no type for ``value``, or reading it as an array failed (a
        malformed ``__cuda_array_interface__``, say).
    """
    try:
        key = _resolve(type(value), value).key(value)
    except TypeError:
        key = None
    except (KeyError, AttributeError, IndexError) as exc:  # a malformed array interface
        raise TypeError(f"cannot determine the cudalite type of {value!r} (of class {type(value).__qualname__}): "
                        f"reading it as a kernel argument failed with {type(exc).__name__}: {exc}") from exc
    if key is not None:
        return key_to_type(key)
    t = typeof_constant(value)
    if t is None:
        raise TypeError(f"cannot determine the cudalite type of {value!r} (of class {type(value).__qualname__})")
    return t
