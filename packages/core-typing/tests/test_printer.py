"""inspect_types text: every source line, with the types of the variables on it."""

from __future__ import annotations

import cudalite.core.typing  # noqa: F401
from cudalite import types as T
from cudalite.core.ir.printer import format_typed_function
from cudalite.core.registry import registry
from cudalite.core.typing import TypingContext


def scale(a, k):
    total = 0.0
    if k > 0:
        for i in range(a.shape[0]):
            total += a[i] * k
    return total


def test_every_line_with_variable_types():
    tf = TypingContext(registry).type_function(scale, (T.float32[::1], T.int32))
    text = format_typed_function(tf)
    first = scale.__code__.co_firstlineno
    lines = text.splitlines()
    assert lines[0].endswith("scale(a: array(float32, 1d, C), k: int32) -> float64")
    numbered = [ln for ln in lines if ln[:5].strip().isdigit()]
    assert [int(ln[:5]) for ln in numbered] == list(range(first, first + 6))
    body = "\n".join(lines)
    assert f"{first + 2:5d}      if k > 0:\n       # k: int32" in body
    assert "# total = float64" in body and "# i = int64 (range)" in body
    assert "# return float64" in body
