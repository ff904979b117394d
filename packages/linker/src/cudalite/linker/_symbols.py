"""Which global symbols an input defines, and duplicate definitions across inputs.

nvJitLink 13.x does not fail a non-LTO link whose inputs define a symbol twice:
it prints the error to stderr, reports success, and after any earlier LTO link
in the process it crashes instead.  So the linker checks the inputs it can read
(PTX text, relocatable cubins) before calling nvJitLink; LTO-IR duplicates are
reported by nvJitLink itself, and fatbins, objects and archives stay opaque.
"""

from __future__ import annotations

import re

from ._code import Cubin, LinkableCode, PTXSource
from ._elf import elf_symbols

__all__ = ["defined_symbols", "duplicate_definitions"]

_STB_GLOBAL = 1
_STT_OBJECT, _STT_FUNC, _STT_CUDA_OBJECT = 1, 2, 13  # 13: device variables in cubins
_PTX_FUNC = re.compile(r"^\s*\.visible\s+\.(?:func|entry)\s+(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$]*)", re.MULTILINE)
_PTX_VAR = re.compile(r"^\s*\.visible\s+\.(?:global|const)\s+([^;=]*)", re.MULTILINE)


def _ptx_symbols(text: str) -> set:
    names = set(_PTX_FUNC.findall(text))
    for declaration in _PTX_VAR.findall(text):
        tokens = re.sub(r"\[[^\]]*\]", "", declaration).split()
        if tokens:
            names.add(tokens[-1])
    return names


def defined_symbols(code: LinkableCode) -> set | None:
    """Strong global functions/variables ``code`` defines; None for kinds not inspected."""
    if isinstance(code, PTXSource):
        return _ptx_symbols(code.data.decode(errors="replace"))
    if isinstance(code, Cubin):
        return {s.name for s in elf_symbols(code.data, code.name)
                if s.defined and s.bind == _STB_GLOBAL and s.type in (_STT_OBJECT, _STT_FUNC, _STT_CUDA_OBJECT)}
    return None


def duplicate_definitions(inputs) -> list:
    """nvJitLink-style messages, one per symbol defined by two inputs."""
    first_seen = {}
    messages = []
    for code in inputs:
        names = defined_symbols(code)
        for name in sorted(names or ()):
            if name in first_seen:
                messages.append(f"error   : Multiple definition of '{name}' in '{code.name}', "
                                f"first defined in '{first_seen[name]}'")
            else:
                first_seen[name] = code.name
    return messages
