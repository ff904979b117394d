"""Typing of ``print()`` in device code: numbers, booleans, string constants, tuples of
those (nested too) and the ``cuda.threadIdx``/``blockIdx``/``blockDim``/``gridDim``
namespaces (printed as a 3-tuple, as numba's dim3), lowered to CUDA's ``vprintf``
(output appears on the host after synchronization).

CUDA's ``vprintf`` formats at most 32 values: a ``print()`` of more (tuple elements
counted one by one) emits its raw format string instead, with a :class:`NumbaWarning`
at compile time, as numba-cuda does."""

from __future__ import annotations

import builtins
import warnings

from ... import device_api as api
from ..._compat import is_number
from ...errors import NumbaWarning
from ...registry import registry
from ...types import BFloat16, Complex, Fp8, Opaque, Signature, StringLiteral, Tuple, none

__all__ = ["DIM3_NAMESPACES", "MAX_PRINT_VALUES", "print_value_count"]

DIM3_NAMESPACES = (api.threadIdx, api.blockIdx, api.blockDim, api.gridDim)
MAX_PRINT_VALUES = 32
TOO_MANY = ("CUDA print() cannot print more than 32 items. The raw format string will be emitted by the "
            "kernel instead.")


def print_value_count(t):
    """How many vprintf values printing ``t`` takes, or None when it cannot be printed."""
    if isinstance(t, StringLiteral):
        return 0
    if isinstance(t, Complex):
        return 2
    if is_number(t) or isinstance(t, (BFloat16, Fp8)):
        return 1
    if isinstance(t, Opaque) and any(t.obj is ns for ns in DIM3_NAMESPACES):
        return 3
    if isinstance(t, Tuple):
        counts = [print_value_count(e) for e in t.types]
        return None if None in counts else sum(counts)
    return None


@registry.call(builtins.print)
def _print(site):
    total = 0
    for i, t in enumerate(site.args):
        n = print_value_count(t)
        if n is None:
            raise site.error(f"cannot print argument {i + 1} of type {t}; print() in device code takes "
                             "numbers, booleans, string constants, tuples of them and cuda.threadIdx-like "
                             "dim3 values")
        total += n
    if total > MAX_PRINT_VALUES:
        warnings.warn(TOO_MANY, NumbaWarning, stacklevel=2)
    return Signature(none, site.args)
