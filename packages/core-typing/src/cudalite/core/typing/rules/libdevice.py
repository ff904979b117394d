"""Typing of ``cuda.libdevice.<name>``: every libdevice function, as numba.cuda
types it (:mod:`cudalite.core.libdevice_table`).

Each function has one signature: its arguments are converted to the declared
types (any number converts, as numba's single-signature templates allow);
pointer parameters are outputs, returned after the result, so
``libdevice.sincosf(x)`` returns ``(sin, cos)`` and ``libdevice.frexpf(x)``
returns ``(mantissa, exponent)``.  libdevice's integers are typed signed, as
numba does (``libdevice.popc`` takes and returns ``int32``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ... import device_api as api
from ... import types as _types
from ..._compat import numeric_kind
from ...libdevice_table import FUNCTIONS
from ...registry import registry
from ...types import Signature, Tuple, Type, void
from .._records import Resolved

__all__ = ["LibdeviceCall", "libdevice_signature"]


@dataclass(frozen=True, slots=True)
class LibdeviceCall:
    """A call of libdevice ``symbol``: its C result type and its output-pointer types."""

    symbol: str
    result: Type
    outputs: tuple


def _t(name):
    return void if name == "void" else getattr(_types, name)


def libdevice_signature(name):
    """(Python-visible Signature, LibdeviceCall) of ``cuda.libdevice.<name>``."""
    ret, ins, outs = FUNCTIONS[name]
    result, outputs = _t(ret), tuple(_t(o) for o in outs)
    returned = ([] if result == void else [result]) + list(outputs)
    rt = returned[0] if len(returned) == 1 else Tuple(returned)
    return Signature(rt, tuple(_t(a) for a in ins)), LibdeviceCall(f"__nv_{name}", result, outputs)


def _typer(name):
    sig, call = libdevice_signature(name)

    def typer(site):
        if len(site.args) != len(sig.args):
            raise site.error(f"takes {len(sig.args)} argument(s) ({', '.join(map(str, sig.args))}) "
                             f"but {len(site.args)} were given")
        for a in site.args:
            if numeric_kind(a) not in ("b", "i", "f"):
                raise site.error(f"expects ({', '.join(map(str, sig.args))}), not an argument of type {a}")
        return Resolved(sig, call)

    return typer


_PARAMS = ("x", "y", "z")
for _name in FUNCTIONS:
    _n_in = len(FUNCTIONS[_name][1])
    registry.call(getattr(api.libdevice, _name), params=_PARAMS[:_n_in],
                  name=f"cuda.libdevice.{_name}")(_typer(_name))
