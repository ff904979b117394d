"""Lowering of ``cuda.libdevice.<name>``: a call of libdevice's ``__nv_<name>``.

The arguments arrive converted to the declared types; output pointer
parameters get a stack slot each, loaded after the call and returned with the
result as one tuple (:class:`~cudalite.core.typing.rules.libdevice.LibdeviceCall`
says which).
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api
from cudalite.core.libdevice_table import FUNCTIONS
from cudalite.core.types import void

from ._irtypes import value_type
from ._registry import lowerings

__all__ = []


@lowerings.call(*(getattr(api.libdevice, n) for n in FUNCTIONS))
def _libdevice(lc, node, args, info):
    call = info.payload
    b = lc.builder
    slots = [lc.alloca(value_type(t)) for t in call.outputs]
    ret = ir.VoidType() if call.result == void else value_type(call.result)
    result = lc.call_libdevice(call.symbol, ret, list(args) + slots)
    values = ([] if call.result == void else [result]) + [b.load(s) for s in slots]
    if len(values) == 1:
        return values[0]
    out = ir.Constant(value_type(info.sig.return_type), ir.Undefined)
    for i, v in enumerate(values):
        out = b.insert_value(out, v, i)
    return out
