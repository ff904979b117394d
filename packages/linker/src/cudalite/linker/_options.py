"""Linker options and the one pure function that turns them into nvJitLink flags.

:class:`LinkerOptions` is a frozen dataclass; :func:`linker_flags` maps it,
the target and the link mode (LTO, PTX output) to the flag list.  ``None``
means "nvJitLink's default" and adds no flag.  :func:`normalize_arch` turns every
spelling of a target (``90``, ``"9.0"``, ``(9, 0)``, ``"sm_90a"``, ``"compute_90"``)
into the ``sm_XY`` nvJitLink and NVRTC take, the same way as
``cudalite.core.target.parse_cc`` (see the note above it).
"""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["LinkerOptions", "linker_flags", "normalize_arch"]

# -- the target ------------------------------------------------------------------------
# A twin of cudalite.core.target.parse_cc: cudalite.linker imports nothing of core
# (DESIGN.md: linker and core are siblings, and the linker serves other frontends
# too), so it carries its own normalizer instead of a shared one.  It accepts the
# same spellings and raises the same error text; tests-integration/
# test_cc_spellings.py runs one table and random inputs through both to keep the
# two equal.  Change one, change the other.
_MIN_CC = (7, 5)  # the oldest target nvJitLink/NVRTC 13 accept
_MAX_MAJOR = 12  # their newest major (sm_120, sm_121)
_SUFFIXES = {"": ((0, 0), ""), "a": ((9, 0), "arch-specific"), "f": ((10, 0), "family-specific")}
_SPELLINGS = "90, '9.0', (9, 0), 'sm_90', 'sm_90a' or 'compute_90'"
_NAMED = re.compile(r"(?:sm_|compute_)?([1-9][0-9]{1,2})([af]?)")
_DOTTED = re.compile(r"([0-9]{1,2})\.([0-9])")


def _invalid(value, why=f"expected a compute capability such as {_SPELLINGS}") -> ValueError:
    return ValueError(f"invalid compute capability {value!r}: {why}")


def _sm(value, major: int, minor: int, suffix: str = "") -> str:
    if not 1 <= major <= 99 or not 0 <= minor <= 9:
        raise _invalid(value, "expected 1 <= major <= 99 and 0 <= minor <= 9")
    if major > _MAX_MAJOR:
        hint = f"; did you mean sm_{major // 10}{major % 10}?" if major >= 20 else ""
        raise _invalid(value, f"{major}.{minor} (sm_{major}{minor}) is newer than any target of the CUDA 13 "
                              f"toolchain (the newest are {_MAX_MAJOR}.x){hint}")
    if (major, minor) < _MIN_CC:
        raise _invalid(value, f"{major}.{minor} (sm_{major}{minor}) is older than the oldest target of the "
                              f"CUDA 13 toolchain, {_MIN_CC[0]}.{_MIN_CC[1]} (sm_{_MIN_CC[0]}{_MIN_CC[1]})")
    oldest, name = _SUFFIXES[suffix]
    if (major, minor) < oldest:
        raise _invalid(value, f"the {name} suffix '{suffix}' needs compute capability "
                              f"{oldest[0]}.{oldest[1]} or newer")
    return f"sm_{major}{minor}{suffix}"


def _from_number(value, n: int, suffix: str = "") -> str:
    if not 10 <= n <= 999:
        raise _invalid(value, f"a number names a target with 2 or 3 digits, e.g. {_SPELLINGS}")
    return _sm(value, n // 10, n % 10, suffix)


def normalize_arch(arch: Any) -> str:
    """The ``-arch`` for nvJitLink/NVRTC: ``"sm_90"`` from ``90``, ``"90"``, ``"9.0"``,
    ``(9, 0)``, ``"sm_90"`` or ``"compute_90"``; ``"sm_90a"`` from ``"sm_90a"`` (the
    ``a``/``f`` suffix is kept).  A clear :class:`ValueError` for anything else,
    for targets older than sm_75, and for a suffix the target cannot have.

    Parameters
    ----------
    arch : int, str, tuple or object
        The target, in one of the forms above, or an object whose ``arch`` attribute
        is an ``"sm_XY"`` string.

    Returns
    -------
    str
        ``"sm_XY"``, with its ``a``/``f`` suffix if given.

    Raises
    ------
    ValueError
        If ``arch`` is not a target cudalite can compile for.
    """
    value = arch
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
            return _sm(value, int(m.group(1)), int(m.group(2)))
        m = _NAMED.fullmatch(text)
        if m:
            return _from_number(value, int(m.group(1)), m.group(2))
        raise _invalid(value)
    if isinstance(value, (tuple, list)):
        if len(value) == 2 and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
            return _sm(value, int(value[0]), int(value[1]))
        raise _invalid(value, "a tuple or list is (major, minor), two ints")
    arch_attr = getattr(value, "arch", None)  # e.g. a cudalite.core.target.ComputeCapability
    if isinstance(arch_attr, str) and arch_attr.startswith("sm_"):
        return normalize_arch(arch_attr)
    raise _invalid(value)


def _bool(flag: str, value: bool) -> str:
    return f"-{flag}={'true' if value else 'false'}"


@dataclass(frozen=True)
class LinkerOptions:
    """nvJitLink options.

    max_registers: ``-maxrregcount=N``.  lineinfo: ``-lineinfo``.  debug: ``-g``.
    ftz / prec_div / prec_sqrt / fma: ``-ftz=`` ... (``None`` = nvJitLink's default;
    they apply to LTO code generation).  optimization_level: ``-O0`` or ``-O3``; 1 and 2
    reach ptxas only (``-Xptxas=-O1``: nvJitLink itself accepts 0 and 3).
    verbose: ``-verbose`` (the info log then reports registers, spills...).
    lto: force ``-lto`` even without LTO-IR inputs (CUDA sources then become LTO-IR).
    extra: further flags, passed through unchanged.

    Parameters
    ----------
    max_registers : int, optional
        Register limit per thread (``-maxrregcount``).
    lineinfo : bool, optional
        Generate line information (``-lineinfo``).
    debug : bool, optional
        Generate debug information (``-g``).
    ftz : bool, optional
        Flush denormals to zero (``-ftz``); ``None`` keeps nvJitLink's default.
    prec_div : bool, optional
        IEEE-rounded division (``-prec-div``); ``None`` keeps the default.
    prec_sqrt : bool, optional
        IEEE-rounded square root (``-prec-sqrt``); ``None`` keeps the default.
    fma : bool, optional
        Contract multiply-adds into FMAs (``-fma``); ``None`` keeps the default.
    optimization_level : int, optional
        0 to 3; ``None`` keeps the default (3).  0 and 3 are nvJitLink's ``-O0``/``-O3``;
        nvJitLink rejects ``-O1``/``-O2``, so 1 and 2 set ptxas's level (``-Xptxas=-ON``)
        and leave LTO optimisation at its default.
    verbose : bool, optional
        ``-verbose``.
    lto : bool, optional
        Force an LTO link.
    extra : str or sequence of str, optional
        Further flags.

    Raises
    ------
    ValueError
        If ``max_registers`` is not a positive int or ``optimization_level`` is not 0..3.
    """

    max_registers: int | None = None
    lineinfo: bool = False
    debug: bool = False
    ftz: bool | None = None
    prec_div: bool | None = None
    prec_sqrt: bool | None = None
    fma: bool | None = None
    optimization_level: int | None = None
    verbose: bool = False
    lto: bool = False
    extra: tuple = ()

    def __post_init__(self) -> None:
        if self.max_registers is not None and (not isinstance(self.max_registers, int) or self.max_registers <= 0):
            raise ValueError(f"max_registers must be a positive int, not {self.max_registers!r}")
        if self.optimization_level is not None and self.optimization_level not in (0, 1, 2, 3):
            raise ValueError(f"optimization_level must be 0..3, not {self.optimization_level!r}")
        if isinstance(self.extra, str):
            object.__setattr__(self, "extra", (self.extra,))
        else:
            object.__setattr__(self, "extra", tuple(self.extra))


def linker_flags(options: LinkerOptions, arch: Any, *, lto: bool = False, ptx: bool = False) -> list:
    """The nvJitLink flags for ``options``, target ``arch`` and link mode (pure).

    Parameters
    ----------
    options : LinkerOptions
        The options.
    arch : int, str or tuple
        The target (see :func:`normalize_arch`).
    lto : bool, optional
        An LTO link (``-lto``).
    ptx : bool, optional
        Produce PTX (``-lto -ptx``).

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        If ``arch`` is invalid.
    """
    flags = [f"-arch={normalize_arch(arch)}"]
    if lto or options.lto or ptx:
        flags.append("-lto")
    if ptx:
        flags.append("-ptx")
    if options.max_registers is not None:
        flags.append(f"-maxrregcount={options.max_registers}")
    if options.optimization_level in (0, 3):
        flags.append(f"-O{options.optimization_level}")
    elif options.optimization_level is not None:  # nvJitLink takes -O0/-O3 only
        flags.append(f"-Xptxas=-O{options.optimization_level}")
    if options.debug:
        flags.append("-g")
    if options.lineinfo:
        flags.append("-lineinfo")
    for field, flag in (("ftz", "ftz"), ("prec_div", "prec-div"), ("prec_sqrt", "prec-sqrt"), ("fma", "fma")):
        value = getattr(options, field)
        if value is not None:
            flags.append(_bool(flag, value))
    if options.verbose:
        flags.append("-verbose")
    flags.extend(options.extra)
    return flags
