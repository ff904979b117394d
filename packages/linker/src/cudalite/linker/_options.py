"""Linker options and the one pure function that turns them into nvJitLink flags.

:class:`LinkerOptions` is a frozen dataclass; :func:`linker_flags` maps it,
the target and the link mode (LTO, PTX output) to the flag list.  ``None``
means "nvJitLink's default" and adds no flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["LinkerOptions", "linker_flags", "normalize_arch"]

_ARCH = re.compile(r"^sm_(\d+)([af]?)$")


def normalize_arch(arch) -> str:
    """``"sm_90"`` from ``"sm_90"``, ``"90"``, ``90`` or ``(9, 0)``; ``sm_90a``/``sm_100f`` kept."""
    if isinstance(arch, tuple) and len(arch) == 2 and all(isinstance(x, int) for x in arch):
        return f"sm_{arch[0]}{arch[1]}"
    if isinstance(arch, int) and not isinstance(arch, bool):
        return f"sm_{arch}"
    if isinstance(arch, str):
        text = arch.strip().lower()
        if text.isdigit():
            text = "sm_" + text
        if _ARCH.match(text):
            return text
    raise ValueError(f"bad target {arch!r}: expected 'sm_XY' (e.g. 'sm_90') or a compute capability (9, 0)")


def _bool(flag: str, value: bool) -> str:
    return f"-{flag}={'true' if value else 'false'}"


@dataclass(frozen=True)
class LinkerOptions:
    """nvJitLink options.

    max_registers: ``-maxrregcount=N``.  lineinfo: ``-lineinfo``.  debug: ``-g``.
    ftz / prec_div / prec_sqrt / fma: ``-ftz=`` ... (``None`` = nvJitLink's default;
    they apply to LTO code generation).  optimization_level: ``-O0`` .. ``-O3``.
    verbose: ``-verbose`` (the info log then reports registers, spills...).
    lto: force ``-lto`` even without LTO-IR inputs (CUDA sources then become LTO-IR).
    extra: further flags, passed through unchanged.
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

    def __post_init__(self):
        if self.max_registers is not None and (not isinstance(self.max_registers, int) or self.max_registers <= 0):
            raise ValueError(f"max_registers must be a positive int, not {self.max_registers!r}")
        if self.optimization_level is not None and self.optimization_level not in (0, 1, 2, 3):
            raise ValueError(f"optimization_level must be 0..3, not {self.optimization_level!r}")
        if isinstance(self.extra, str):
            object.__setattr__(self, "extra", (self.extra,))
        else:
            object.__setattr__(self, "extra", tuple(self.extra))


def linker_flags(options: LinkerOptions, arch, *, lto: bool = False, ptx: bool = False) -> list:
    """The nvJitLink flags for ``options``, target ``arch`` and link mode (pure)."""
    flags = [f"-arch={normalize_arch(arch)}"]
    if lto or options.lto or ptx:
        flags.append("-lto")
    if ptx:
        flags.append("-ptx")
    if options.max_registers is not None:
        flags.append(f"-maxrregcount={options.max_registers}")
    if options.optimization_level is not None:
        flags.append(f"-O{options.optimization_level}")
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
