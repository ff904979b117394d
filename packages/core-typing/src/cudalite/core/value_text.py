"""Text for a user's Python value inside a compiler message, safe on any object.

A global or closure value frozen into device code is the user's object: its
``repr`` may raise, run for ever on a huge container or exceed Python's limit on
int-to-string conversion (an int of thousands of digits), and its
``__getattr__`` may raise for any name.  Messages go through :func:`value_text`,
:func:`exception_text` and :func:`safe_attr`, which never raise and stay short.
"""

from __future__ import annotations

import reprlib

__all__ = ["value_text", "exception_text", "safe_attr", "type_text"]

_DIGITS_SHOWN = 40  # ints longer than this are described by their digit count


def _make_repr():
    r = reprlib.Repr()
    r.maxlevel = 3
    r.maxstring = r.maxother = r.maxlong = 60
    return r


def type_text(value) -> str:
    """The qualified name of ``value``'s class (``module.Class``; builtins unqualified)."""
    cls = type(value)
    mod = cls.__module__
    return cls.__qualname__ if mod == "builtins" else f"{mod}.{cls.__qualname__}"


def value_text(value, limit: int = 120) -> str:
    """A short ``repr`` of ``value``: ints past ``_DIGITS_SHOWN`` digits read
    ``<int of N digits>``, containers are abridged with ``...``, and an object whose
    ``repr`` raises reads ``<module.Class object>``."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3.33 * _DIGITS_SHOWN:
        return f"<int of {_digit_count(value)} digits>"
    try:
        if isinstance(value, (list, tuple, dict, set, frozenset)):  # abridged, level by level (cycles end)
            text = _make_repr().repr(value)  # made per call: messages are rare
        else:
            text = repr(value)
    except Exception:  # a user __repr__ that raises, an int past sys.get_int_max_str_digits()
        return f"<{type_text(value)} object>"
    if not isinstance(text, str):
        return f"<{type_text(value)} object>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def exception_text(exc) -> str:
    """``KeyError: 'boom'``: an exception a user's code raised, short, whatever its
    ``__str__`` does."""
    try:
        detail = str(exc)
    except Exception:
        detail = ""
    detail = detail if len(detail) <= 120 else detail[:117] + "..."
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def safe_attr(obj, name: str, default=None):
    """``getattr(obj, name, default)`` that also answers ``default`` when looking the
    attribute up raises something other than AttributeError (a user ``__getattr__``)."""
    try:
        return getattr(obj, name, default)
    except Exception:
        return default


def _digit_count(value: int) -> int:
    """The number of decimal digits of ``abs(value)``, without converting it to text."""
    v = abs(value)
    n = max(1, int(v.bit_length() * 0.30102999566398120))  # log10(2): exact or one short
    return n + 1 if v >= 10 ** n else n
