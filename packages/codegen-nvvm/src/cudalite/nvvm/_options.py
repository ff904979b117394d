"""Compile options as a plain frozen dataclass, and the one pure function that
turns them into libNVVM flags."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CompileOptions", "nvvm_flags", "normalize_cc"]


def normalize_cc(cc, default):
    if cc is None:
        return tuple(default)
    if isinstance(cc, str):
        cc = cc.replace("sm_", "").replace("compute_", "")
        if "." in cc:
            major, minor = cc.split(".")
        else:
            major, minor = cc[:-1], cc[-1]
        return int(major), int(minor)
    major, minor = cc
    return int(major), int(minor)


@dataclass(frozen=True)
class CompileOptions:
    """What a compilation is asked for (hashable: it is part of cache keys)."""

    cc: tuple = (7, 5)
    opt: int = 3
    fastmath: bool = False
    debug: bool = False
    lineinfo: bool = False
    output: str = "ptx"  # 'ptx' | 'ltoir'
    forceinline: bool = False
    launch_bounds: tuple | None = None

    @property
    def arch(self) -> str:
        return f"compute_{self.cc[0]}{self.cc[1]}"


def nvvm_flags(o: CompileOptions) -> list:
    flags = [f"-arch={o.arch}", f"-opt={0 if o.debug else o.opt}"]
    if o.fastmath:
        flags += ["-ftz=1", "-prec-div=0", "-prec-sqrt=0", "-fma=1"]
    if o.debug:
        flags.append("-g")
    if o.output == "ltoir":
        flags.append("-gen-lto")
    return flags
