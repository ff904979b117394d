"""The one compute-capability parser: every spelling of a GPU target, one value.

:func:`parse_cc` turns what a user writes for a target -- in ``compile(cc=...)``,
the CLI's ``--cc``, ``CUDALITE_DEFAULT_CC`` or the jit's ``compile_ptx_for(sig,
cc=...)`` -- into a frozen :class:`ComputeCapability`, or raises one clear
:class:`ValueError` whose text is the same wherever the spelling entered:

==========================================  ==============================
spelling                                    meaning
==========================================  ==============================
``90``, ``120`` (an int of 2 or 3 digits)   major ``n // 10``, minor ``n % 10``
``"90"``, ``"sm_90"``, ``"compute_90"``     the same, as text (case-insensitive)
``"9.0"``                                   ``major.minor``
``(9, 0)``, ``[9, 0]``                      ``(major, minor)``
``"sm_90a"``, ``"compute_100f"``            with NVIDIA's arch-specific (``a``)
                                            or family-specific (``f``) suffix
==========================================  ==============================

A float (``9.0``) is rejected: ``8.10`` and ``8.1`` are the same float, so the
message suggests the string ``"9.0"`` or the tuple ``(9, 0)``.  Bools, negative
numbers, one-digit ints and garbage are rejected too.

The suffix is kept, never dropped: ``ComputeCapability(9, 0, "a").virtual_arch``
is ``compute_90a`` (the libNVVM ``-arch``; it emits ``.target sm_90a``) and
``.arch`` is ``sm_90a`` (the nvJitLink/NVRTC ``-arch``).  The limits are those of
the CUDA 13 toolchain the packages require (libNVVM, NVRTC and nvJitLink 13.x,
checked against the 13.5 wheels): nothing older than :data:`MIN_CC` (7.5; they
reject ``compute_70``/``sm_70``), nothing newer than major :data:`MAX_MAJOR` (12:
``sm_900`` is refused here, naming ``sm_90``, not deep in libNVVM), ``a`` from 9.0 on,
``f`` from 10.0 on.  Other targets the toolchain does not know (``10.1``, ``9.9``)
parse, and libNVVM / nvJitLink reject them with their own message.

cudalite.linker cannot import core (DESIGN.md: linker and core are siblings), so
``cudalite.linker.normalize_arch`` is a small twin of this parser;
``tests-integration/test_cc_spellings.py`` runs one table (and random inputs)
through both and asserts the same ``sm_XY`` or the same error text.
"""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass

__all__ = ["ComputeCapability", "parse_cc", "MIN_CC", "MAX_MAJOR", "SPELLINGS"]

MIN_CC = (7, 5)
MAX_MAJOR = 12  # the newest major of the CUDA 13 toolchain (sm_120, sm_121)
# The suffix -> the oldest compute capability that has it, and its name.
_SUFFIXES = {"": ((0, 0), ""), "a": ((9, 0), "arch-specific"), "f": ((10, 0), "family-specific")}
SPELLINGS = "90, '9.0', (9, 0), 'sm_90', 'sm_90a' or 'compute_90'"
_NAMED = re.compile(r"(?:sm_|compute_)?([1-9][0-9]{1,2})([af]?)")
_DOTTED = re.compile(r"([0-9]{1,2})\.([0-9])")


def _invalid(value, why=f"expected a compute capability such as {SPELLINGS}") -> ValueError:
    return ValueError(f"invalid compute capability {value!r}: {why}")


def _validate(value, major: int, minor: int, suffix: str) -> None:
    """Raise the error for a target outside the toolchain's range (``value``: as given)."""
    if not 1 <= major <= 99 or not 0 <= minor <= 9:
        raise _invalid(value, "expected 1 <= major <= 99 and 0 <= minor <= 9")
    if major > MAX_MAJOR:
        hint = f"; did you mean sm_{major // 10}{major % 10}?" if major >= 20 else ""
        raise _invalid(value, f"{major}.{minor} (sm_{major}{minor}) is newer than any target of the CUDA 13 "
                              f"toolchain (the newest are {MAX_MAJOR}.x){hint}")
    if (major, minor) < MIN_CC:
        raise _invalid(value, f"{major}.{minor} (sm_{major}{minor}) is older than the oldest target of the "
                              f"CUDA 13 toolchain, {MIN_CC[0]}.{MIN_CC[1]} (sm_{MIN_CC[0]}{MIN_CC[1]})")
    oldest, name = _SUFFIXES[suffix]
    if (major, minor) < oldest:
        raise _invalid(value, f"the {name} suffix '{suffix}' needs compute capability "
                              f"{oldest[0]}.{oldest[1]} or newer")


@dataclass(frozen=True)
class ComputeCapability:
    """A GPU target: ``major``, ``minor`` and the ``arch_suffix`` ``''``, ``'a'`` or ``'f'``.

    ``cc`` is the ``(major, minor)`` tuple, ``arch`` the real architecture
    (``"sm_90a"``), ``virtual_arch`` the virtual one (``"compute_90a"``).
    """

    major: int
    minor: int
    arch_suffix: str = ""

    def __post_init__(self):
        given = (self.major, self.minor, self.arch_suffix)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in given[:2]):
            raise _invalid(given, "major and minor must be ints")
        if self.arch_suffix not in _SUFFIXES:
            raise _invalid(given, "the suffix is '', 'a' (arch-specific) or 'f' (family-specific)")
        _validate(given, *given)

    @property
    def cc(self) -> tuple:
        return (self.major, self.minor)

    @property
    def arch(self) -> str:
        return f"sm_{self.major}{self.minor}{self.arch_suffix}"

    @property
    def virtual_arch(self) -> str:
        return f"compute_{self.major}{self.minor}{self.arch_suffix}"

    def __str__(self):
        return self.arch


def _make(value, major: int, minor: int, suffix: str = "") -> ComputeCapability:
    _validate(value, major, minor, suffix)
    return ComputeCapability(major, minor, suffix)


def _from_number(value, n: int, suffix: str = "") -> ComputeCapability:
    if not 10 <= n <= 999:
        raise _invalid(value, f"a number names a target with 2 or 3 digits, e.g. {SPELLINGS}")
    return _make(value, n // 10, n % 10, suffix)


def parse_cc(value) -> ComputeCapability:
    """``value`` in any accepted spelling (see the module docstring) as a
    :class:`ComputeCapability`; a clear :class:`ValueError` otherwise."""
    if isinstance(value, ComputeCapability):
        return value
    if isinstance(value, bool):
        raise _invalid(value)
    if isinstance(value, numbers.Integral):
        return _from_number(value, int(value))
    if isinstance(value, float):
        raise _invalid(value, f"a float is ambiguous; write the string '{value}' or a tuple such as (9, 0)")
    if isinstance(value, str):
        text = value.strip().lower()
        m = _DOTTED.fullmatch(text)
        if m:
            return _make(value, int(m.group(1)), int(m.group(2)))
        m = _NAMED.fullmatch(text)
        if m:
            return _from_number(value, int(m.group(1)), m.group(2))
        raise _invalid(value)
    if isinstance(value, (tuple, list)):
        if len(value) == 2 and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
            return _make(value, int(value[0]), int(value[1]))
        raise _invalid(value, "a tuple or list is (major, minor), two ints")
    raise _invalid(value)
