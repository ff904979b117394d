"""Calls of a device function compiled with eager signatures
(``@cuda.jit("int32(int32, int32)", device=True)``).

As numba: such a function is not specialized on the caller's argument types; the
call picks the signature the arguments convert to best -- fewest unsafe conversions,
then fewest safe ones, then fewest promotions (``rules.conversion_rank``), the first
declared on a tie -- the arguments are converted to its parameter types, and the
result has its declared return type.
"""

from __future__ import annotations

from ..errors import TypingError
from .rules.conversion_rank import signature_rank

__all__ = ["eager_signature"]


def eager_signature(ft, args, loc):
    """``(argtypes, return type)`` for a call of the PyFunction type ``ft`` with ``args``:
    ``(args, None)`` when it has no eager signatures; else the chosen signature's."""
    if not ft.sigs:
        return tuple(args), None
    args = tuple(args)
    best, best_rank = None, None
    for params, rt in ft.sigs:
        rank = signature_rank(args, params)
        if rank is not None and (best_rank is None or rank < best_rank):
            best, best_rank = (params, rt), rank
    if best is not None:
        return best
    name = getattr(ft.obj, "__qualname__", str(ft.obj))
    shown = "; ".join(f"({', '.join(map(str, p))})" for p, _ in ft.sigs)
    given = ", ".join(map(str, args))
    raise TypingError(f"Invalid use of type({ft.obj!r}) with parameters ({given}): No matching definition for "
                      f"argument type(s) {given} of device function {name}; its signatures are: {shown}", loc)
