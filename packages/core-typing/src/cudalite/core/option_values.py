"""The one check of compile-option values shared by the compiler and the jit:
on/off switches and ``fastmath``.

``cudalite.nvvm.make_options`` (``compile_ptx``, ``compile``) and ``cuda.jit``'s
argument check both call these, so an option means the same and fails the same
wherever it is given.  A value of the wrong type raises :class:`OptionTypeError`,
both a ``TypeError`` (Python's convention) and a ``ValueError`` (numba raises
``ValueError`` for a bad ``fastmath``, and numba code catches that).  NumPy is never
imported here: a NumPy bool is recognised by its type's module and name.
"""

from __future__ import annotations

__all__ = ["OptionTypeError", "FASTMATH_FLAGS", "is_bool", "switch", "fastmath_of"]

FASTMATH_FLAGS = frozenset({"fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"})


class OptionTypeError(TypeError, ValueError):
    """An option given a value of the wrong type (``lineinfo='no'``, ``fastmath='yes'``)."""


def is_bool(value) -> bool:
    """A Python or NumPy bool."""
    return isinstance(value, bool) or (type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool"))


def switch(name: str, value) -> bool:
    """An on/off option: a bool (a NumPy bool too); :class:`OptionTypeError` naming the
    option otherwise (``lineinfo='no'`` is a mistake, not a true value)."""
    if is_bool(value):
        return bool(value)
    raise OptionTypeError(f"{name} must be True or False, not {value!r}")


def fastmath_of(value) -> bool:
    """``fastmath``: a bool, or a set (or ``{flag: bool}`` dict) of LLVM fast-math flag
    names (numba's spellings); on CUDA any flag turns fast math on as a whole (numba-cuda
    passes the option's truth to libNVVM and its math lowerings).  ``ValueError`` names
    unknown flags (numba's message), :class:`OptionTypeError` another type."""
    if isinstance(value, (set, frozenset)):
        flags = names = set(value)
    elif isinstance(value, dict):
        flags, names = {k for k, on in value.items() if on}, set(value)
    elif is_bool(value):
        return bool(value)
    else:
        raise OptionTypeError(f"fastmath must be a bool, dict or set of fast-math flag names, not {value!r}")
    unknown = names - FASTMATH_FLAGS
    if unknown:
        raise ValueError(f"Unrecognized fastmath flags: {unknown} (known: {', '.join(sorted(FASTMATH_FLAGS))})")
    return bool(flags)
