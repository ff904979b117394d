"""The size of the largest function in PTX text, and what that means for a link.

ptxas, which nvJitLink runs on every PTX input, optimises one function at a time,
and its time grows faster than linearly with one function's size at its default
``-O3`` (x86 host, straight-line ``add``/``mul`` bodies: 2.3 MB 2.1 s, 4.7 MB
12.7 s, 9.5 MB 71 s; ``-Xptxas=-O1`` 4.7 MB 10.5 s, 9.5 MB 60 s) and linearly at
``-O0`` (1.0 s, 2.1 s, 4.4 s) or over many small functions (4.6 MB 2.8 s, 9.3 MB
5.7 s).  A link of one huge function therefore looks like a hang.  :func:`slow_link_reason`
finds such a function cheaply (a regex over inputs larger than the threshold, so
small inputs cost one length check) and says so in words, so the linker can log
it before the link starts and put it in a :class:`~._errors.LinkTimeout`.
"""

from __future__ import annotations

import re

__all__ = ["largest_function", "slow_link_reason", "SLOW_FUNCTION_BYTES"]

SLOW_FUNCTION_BYTES = 2_000_000  # one function's PTX text from which ptxas -O3 takes seconds

_HEADER = re.compile(rb"\.(?:entry|func)\s*(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$]*)")


def largest_function(ptx: bytes) -> tuple[str, int] | None:
    """``(name, bytes)`` of the function with the longest PTX text (from its header to
    the next function's header or the end), None if ``ptx`` declares none."""
    best = None
    previous = None
    for match in _HEADER.finditer(ptx):
        if previous is not None:
            size = match.start() - previous.start()
            if best is None or size > best[1]:
                best = (previous.group(1).decode("ascii", "replace"), size)
        previous = match
    if previous is not None:
        size = len(ptx) - previous.start()
        if best is None or size > best[1]:
            best = (previous.group(1).decode("ascii", "replace"), size)
    return best


def slow_link_reason(inputs, optimization_level: int | None) -> str:
    """Why linking ``inputs`` (``(nvJitLink type, bytes, name)`` triples) will take long,
    or ``""``: a PTX input whose largest function is at least :data:`SLOW_FUNCTION_BYTES`,
    unless ptxas runs at ``-O0`` (linear there)."""
    if optimization_level == 0:
        return ""
    for kind, data, name in inputs:
        if kind != "PTX" or len(data) < SLOW_FUNCTION_BYTES:
            continue
        found = largest_function(bytes(data))
        if found is not None and found[1] >= SLOW_FUNCTION_BYTES:
            function, size = found
            return (f"{name}: function {function!r} is {size / 1e6:.1f} MB of PTX, and ptxas's optimiser "
                    "takes time that grows faster than linearly with one function's size (about a minute "
                    "at 10 MB); the link may take minutes. Split the function, or link with "
                    "LinkerOptions(optimization_level=0) (linear, unoptimised)")
    return ""
