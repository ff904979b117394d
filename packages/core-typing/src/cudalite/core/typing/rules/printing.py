"""Typing of ``print()`` in device code: numbers, booleans and string constants,
lowered to CUDA's ``vprintf`` (output appears on the host after synchronization)."""

from __future__ import annotations

import builtins

from ..._compat import is_number
from ...registry import registry
from ...types import BFloat16, Signature, StringLiteral, none

__all__ = []


@registry.call(builtins.print)
def _print(site):
    for i, t in enumerate(site.args):
        if not (is_number(t) or isinstance(t, (StringLiteral, BFloat16))):
            raise site.error(f"cannot print argument {i + 1} of type {t}; print() in device code takes "
                             "numbers, booleans and string constants")
    return Signature(none, site.args)
