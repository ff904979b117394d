"""The Python source of a bound launch: ``make(...)`` returning ``launch(*values)``,
generated once per (parameter count, backend kind, with or without launch attributes)
and shared by :mod:`.launch` (``Launcher.bind``) and :mod:`.checked` (the checked launch
of a backend without the compiled shim).  Standard library only; nothing imported."""

from __future__ import annotations

from typing import Any

__all__ = ["KINDS", "call_shape", "generate_source"]


# The per-call code.  ``make`` is compiled once per (count, kind, ex) and called once
# per bind: everything the launch needs is a closure constant (grid, block, shared
# memory and stream for cuLaunchKernel; the prepared CUlaunchConfig for
# cuLaunchKernelEx).
_TEMPLATE = """
def make(raw, entry, f, tls, buffers, pack_into, {tail}, {consts}):
{unpack}    def launch({params}):
{checks}        try:
            b = tls.b
        except AttributeError:
            b = buffers()
        pack_into(b[0], 0{args})
        err = raw({call_args}){index}
        if err:
            {on_error}
    return launch
"""

_PLAIN = ("GX, GY, GZ, BX, BY, BZ, SMEM, S", "f, GX, GY, GZ, BX, BY, BZ, SMEM, S, b[1]", "cuLaunchKernel")
_EX = ("CFG", "CFG, f, b[1]", "cuLaunchKernelEx")
KINDS = ("shim", "bindings", "native")  # how the driver is called: cffi API shim, cuda.bindings, cffi ABI/ctypes


def call_shape(kind: Any, ex: Any) -> tuple:
    """``(consts, call_args, index)`` of the generated launch code for backend ``kind``
    (one of :data:`KINDS`) and ``ex`` (cuLaunchKernelEx): the closure constants, the
    driver call's arguments and the suffix taking its CUresult."""
    if kind not in KINDS:
        raise ValueError(f"unknown launch code kind {kind!r}")
    consts, call_args, _name = _EX if ex else _PLAIN
    if kind == "shim":
        call_args = "entry, " + call_args  # the driver entry's address goes first
    else:
        call_args += ", 0"  # extra = NULL
    return consts, call_args, "[0]" if kind == "bindings" else ""


def generate_source(count: Any, kind: Any, ex: Any, unpack: Any = None, checks: str = "") -> Any:
    """The source of ``make`` for ``count`` parameters, backend ``kind`` (one of
    :data:`KINDS`) and ``ex`` (cuLaunchKernelEx) -- see ``launch._factory``.  With
    ``unpack`` (the lines of ``make`` reading its checks' constants from ``K``; "" for
    none) it is the make of a *checked* launch (:mod:`.checked`): ``make`` takes ``K``
    instead of ``retry``, ``checks`` (lines, each ending in a newline) run first in the
    launch, and a nonzero CUresult is returned rather than retried."""
    consts, call_args, index = call_shape(kind, ex)
    names = [f"a{i}" for i in range(count)]
    if unpack is None:
        tail, unpack, checks = "retry", "", ""
        on_error = f'retry(err, "{(_EX if ex else _PLAIN)[2]}", raw, ({call_args},))'
    else:
        tail, on_error = "K", "return int(err)"
    return _TEMPLATE.format(tail=tail, consts=consts, unpack=unpack, params=", ".join(names), checks=checks,
                            args="".join(f", {n}" for n in names), call_args=call_args, index=index,
                            on_error=on_error)
