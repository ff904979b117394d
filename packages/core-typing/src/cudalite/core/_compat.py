"""Small shared helpers over types (kept out of the rule tables)."""

from __future__ import annotations

from .types import Boolean, Complex, Float, Integer, NPDatetime, NPTimedelta

__all__ = ["numeric_kind", "is_number"]


def numeric_kind(t) -> str:
    """'b' bool, 'i' integer, 'f' float, 'c' complex, '' other."""
    if isinstance(t, Boolean):
        return "b"
    if isinstance(t, (NPDatetime, NPTimedelta)):  # integers underneath, but not numbers
        return ""
    if isinstance(t, Integer):
        return "i"
    if isinstance(t, Float):
        return "f"
    if isinstance(t, Complex):
        return "c"
    return ""


def is_number(t) -> bool:
    return numeric_kind(t) != ""
