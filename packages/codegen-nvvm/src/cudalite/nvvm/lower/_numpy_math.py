"""Lowering of NumPy's scalar math in device code (``np.sqrt``, ``np.floor``,
``np.maximum`` ...), sharing libdevice and the math/builtin lowerings.  Registered
lazily: the tables are keyed by NumPy's functions, built when one is first used."""

from __future__ import annotations

import builtins
import math

from llvmlite import ir

from cudalite.core.typing.rules.numpyfuncs import numpy_table

from ._arith import binop
from ._math import is_nan, libm
from ._registry import lowerings

__all__ = []


def _unary(stem, table):
    if stem in ("radians", "degrees"):
        return table.lookup_call(getattr(math, stem))

    def lower(lc, node, args, info):
        return libm(lc, stem, info.sig.return_type, args[0])

    return lower


def _binary(stem):
    def lower(lc, node, args, info):
        return libm(lc, stem, info.sig.return_type, *args)

    return lower


def _nan_propagating(pick_first_when):
    """np.maximum/np.minimum: a NaN operand wins (unlike Python's max/min)."""

    def lower(lc, node, args, info):
        b = lc.builder
        a, c = args
        if not isinstance(a.type, (ir.FloatType, ir.DoubleType, ir.HalfType)):
            return lc.module.lowerings.lookup_call(builtins.max if pick_first_when == ">" else builtins.min)(
                lc, node, args, info)
        first = b.or_(is_nan(b, a), b.fcmp_ordered(pick_first_when, a, c))
        return b.select(first, a, c)

    return lower


def _square(lc, node, args, info):
    return binop(lc, "*", args[0], args[0], info.sig.return_type)


def _register(table=lowerings):
    """Register NumPy's lowerings in ``table`` (some are the math/builtin ones it holds)."""
    import numpy as np  # already imported: one of its functions is being compiled

    for fn, (kind, stem) in numpy_table(np).items():
        if kind == "unary":
            table.call(fn)(_unary(stem, table))
        elif kind == "binary":
            table.call(fn)(_binary(stem))
        elif kind == "predicate":
            table.call(fn)(table.lookup_call(getattr(math, stem)))
        elif kind == "abs":
            table.call(fn)(table.lookup_call(builtins.abs))
        elif kind == "maximum":
            table.call(fn)(_nan_propagating(">"))
        elif kind == "minimum":
            table.call(fn)(_nan_propagating("<"))
        elif kind == "square":
            table.call(fn)(_square)


lowerings.lazy("numpy", _register)
