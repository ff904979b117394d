"""Typing of calls of number classes as conversions: ``int32(x)``, ``float(x)``,
``complex(re, im)``, ``fp8_e4m3()`` (numba's result types for the builtins)."""

from __future__ import annotations

from .. import ir
from ..errors import TypingError
from ..registry import CallSite
from ..types import Complex, Fp8, Signature
from ._records import CallInfo, CallKind, Resolved
from .rules.builtins import builtin_cast_result
from .rules.casts import explicit_conversion
from .rules.fp8conv import fp8_hint

__all__ = ["cast_call", "typed_answer"]


def typed_answer(answer):
    """A typer's answer as ``(signature or None, payload)``."""
    if isinstance(answer, Resolved):
        return answer.sig, answer.payload
    return answer, None


def cast_call(inf, e, target, args, kw):
    """The type of call ``e`` of number class ``target`` (inference ``inf`` records it)."""
    if isinstance(target, Complex) and len(args) == 2 and not kw:  # complex(re, im)
        entry = inf.reg.lookup_call(complex)
        site = CallSite(entry.name, tuple(args), tuple(inf.const_of(a) for a in e.args), e.loc, inf.ctx)
        sig, payload = typed_answer(entry.typer(site))
        if sig is None:
            raise TypingError(f"no implementation of complex() for argument types "
                              f"({', '.join(map(str, args))})", e.loc)
        inf.record_call(e, CallInfo(CallKind.REGISTRY, sig, complex, site.name, payload=payload))
        return sig.return_type
    if isinstance(target, Fp8) and not args and not kw:  # fp8_e4m3(): zero
        inf.record_call(e, CallInfo(CallKind.CAST, Signature(target, ()), target, str(target)))
        return target
    if kw or len(args) != 1:
        raise TypingError(f"{target}() takes exactly one positional argument", e.loc)
    (a,) = args
    if isinstance(e.func, ir.Const):  # int()/float()/complex(): numba's result types (int(uint32) is uint32)
        target = builtin_cast_result(e.func.value, a, target)
    if not explicit_conversion(a, target):
        raise TypingError(f"cannot convert {a} to {target}{fp8_hint(a, target)}", e.loc)
    sig = Signature(target, (a,))
    inf.record_call(e, CallInfo(CallKind.CAST, sig, target, str(target)))
    return target
