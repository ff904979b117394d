"""Linking a compiled kernel: the pipeline's PTX/LTO-IR with its link items -> a cubin.

:func:`link_cubin` is the ``link`` stage's work (nvJitLink for one exact ``sm_XY``);
:func:`linker_items` turns paths and code objects into linkable code, each content
once; :func:`source_dirs` says where NVRTC looks for a ``.cu`` file's headers.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import replace

from cudalite.core.errors import NumbaPerformanceWarning
from cudalite.linker import LTOIR, LinkableCode, Linker, LinkerError, NvrtcError, PTXSource
from cudalite.linker.config import load_config as linker_config

__all__ = ["link_cubin", "linker_items", "source_dirs", "code_input", "warn_serialised"]

#: ptxas's advisories that it could not do what wgmma/setmaxnreg code asked: setmaxnreg ignored
#: (C7504, C7506, C7508), wgmma serialised (C7509, C7510, C7515, ...): the kernel runs, slowly.
#: (Its other C75xx notes, e.g. C7519 "warpgroup.arrive is injected", cost nothing to speak of.)
_ADVISORY = re.compile(r"^.*\b(C75\d\d)\b.*Performance Loss.*$", re.MULTILINE)


def linker_items(link):
    """Linkable-code objects for paths and objects, each content once (a kernel's own
    ``link=`` and its callees' link lists may name the same code)."""

    items, seen = [], set()
    for item in link:
        code = item if isinstance(item, LinkableCode) else LinkableCode.from_path(item)
        if code.content_hash not in seen:
            seen.add(code.content_hash)
            items.append(code)
    return items


def source_dirs(link) -> tuple:
    """The folders of the CUDA C++ files named by path in ``link``, in order, each once:
    NVRTC searches them for ``#include "..."`` headers (as a C compiler searches the
    including file's folder), then the ``CUDALITE_NVRTC_EXTRA_SEARCH_PATHS`` folders."""

    out = []
    for item in link:
        if isinstance(item, (str, os.PathLike)) and os.fspath(item).lower().endswith((".cu", ".cuh")):
            d = os.path.dirname(os.path.abspath(os.fspath(item)))
            if d not in out:
                out.append(d)
    return tuple(out) + tuple(d for d in linker_config().extra_search_paths if d not in out)


def code_input(result, name):
    """The compiler's output as a trusted link input: LTO-IR when it made LTO-IR, else PTX."""

    if "ltoir" in result.artifacts:  # libNVVM's output, just made: trusted (user link items are not)
        return LTOIR(result.artifacts["ltoir"].data, name=f"{name}.ltoir")
    return PTXSource(result.artifacts["ptx"].data, name=f"{name}.ptx")


def link_cubin(result, pyfunc, opts, link_options, arch: str):
    """nvJitLink the pipeline's PTX/LTO-IR with every link item for ``arch``:
    ``(cubin bytes, items)``."""

    link = tuple(opts.link) + tuple(result.link_items)
    hopper = bool(result.arch_suffix)  # wgmma / setmaxnreg: ptxas's verdict on them is read from its log
    if hopper and not link_options.verbose:
        link_options = replace(link_options, verbose=True)
    linker = Linker(arch, options=link_options, name=pyfunc.__name__, isolate=linker_config().isolate,
                    include_dirs=source_dirs(link))
    linker.add(code_input(result, pyfunc.__name__), trusted=True)
    items = linker_items(link)
    linker.add(*items)
    try:
        cubin = bytes(linker.link().data)
        if hopper:
            warn_serialised(linker.info_log, pyfunc)
        return cubin, tuple(items)
    except NvrtcError:
        raise  # names the .cu file and line NVRTC reported
    except LinkerError as e:
        raise LinkerError(f"linking kernel {pyfunc.__qualname__} ({result.entry_name}) failed: {e.message}",
                          error_log=getattr(e, "error_log", ""), info_log=getattr(e, "info_log", "")) from None


def warn_serialised(info_log: str, pyfunc):
    """A NumbaPerformanceWarning naming each of ptxas's C75xx advisories in ``info_log``
    (wgmma serialised, setmaxnreg ignored): correct code that runs far below speed."""
    found = {}
    for m in _ADVISORY.finditer(info_log or ""):
        found.setdefault(m.group(1), m.group(0).strip())
    code = getattr(pyfunc, "__code__", None)
    for line in found.values():
        msg = f"{pyfunc.__qualname__}: ptxas: {line}"
        if code is None:
            warnings.warn(msg, NumbaPerformanceWarning, stacklevel=2)
        else:  # at the kernel's own line
            warnings.warn_explicit(msg, NumbaPerformanceWarning, code.co_filename, code.co_firstlineno)
