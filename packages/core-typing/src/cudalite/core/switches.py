"""The one parser of boolean environment switches (``CUDALITE_FULL_TRACEBACK``,
``CUDALITE_CACHE``, ...).

:func:`parse_bool` is pure: each package's ``config`` module reads the environment
and passes the text here.  True: ``1``, ``true``, ``yes``, ``on``; false: ``0``,
``false``, ``no``, ``off`` (case-insensitive, surrounding whitespace ignored);
unset or empty: the default; anything else: a :class:`ValueError` naming the
variable, never a silent guess.

cudalite.linker and cudalite.driver cannot import core (DESIGN.md) and have no
boolean switch today; one added there gets a twin of this function and a row
in ``tests-integration/test_cc_spellings.py``'s conformance test.
"""

from __future__ import annotations

__all__ = ["parse_bool", "TRUE_WORDS", "FALSE_WORDS"]

TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


def parse_bool(name: str, text, default: bool) -> bool:
    """``text``, the value of environment variable ``name``, as a bool
    (``None`` or empty: ``default``)."""
    value = (text or "").strip().lower()
    if not value:
        return default
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    raise ValueError(f"{name}={text!r}: expected a boolean switch, one of "
                     f"{'/'.join(TRUE_WORDS)} (on) or {'/'.join(FALSE_WORDS)} (off)")
