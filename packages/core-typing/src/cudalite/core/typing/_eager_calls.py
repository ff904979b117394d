"""Calls of a device function compiled with eager signatures
(``@cuda.jit("int32(int32, int32)", device=True)``).

As numba: such a function is not specialized on the caller's argument types; the
call picks the first of its signatures that the arguments convert to (an exact match
first), the arguments are converted to its parameter types, and the result has its
declared return type.
"""

from __future__ import annotations

from ..errors import TypingError
from .rules.casts import can_convert

__all__ = ["eager_signature"]


def eager_signature(ft, args, loc):
    """``(argtypes, return type)`` for a call of the PyFunction type ``ft`` with ``args``:
    ``(args, None)`` when it has no eager signatures; else the chosen signature's."""
    if not ft.sigs:
        return tuple(args), None
    args = tuple(args)
    for params, rt in ft.sigs:
        if params == args:
            return params, rt
    for params, rt in ft.sigs:
        if len(params) == len(args) and all(can_convert(a, p) for a, p in zip(args, params)):
            return params, rt
    name = getattr(ft.obj, "__qualname__", str(ft.obj))
    shown = "; ".join(f"({', '.join(map(str, p))})" for p, _ in ft.sigs)
    raise TypingError(f"No matching definition for argument type(s) {', '.join(map(str, args))} of device "
                      f"function {name}; its signatures are: {shown}", loc)
