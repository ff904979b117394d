"""Typing of calls to foreign device functions (``cuda.declare_device``) and of
``ffi.from_buffer(array)`` from a cffi ``FFI()`` instance (a raw data pointer)."""

from __future__ import annotations

import types as _pytypes

from ...ffi import ForeignFunction
from ...registry import registry
from ...types import Array, CPointer, Signature, StringLiteral
from .casts import can_convert

__all__ = ["is_cffi_from_buffer"]


@registry.call_class(ForeignFunction, name="declared device function")
def _foreign(site):
    decl = site.callee
    want = decl.argtypes
    if len(site.args) != len(want):
        raise site.error(f"the declared device function {decl.name!r} takes {len(want)} argument(s) "
                         f"{tuple(want)}, but {len(site.args)} were given")
    for i, (got, exp) in enumerate(zip(site.args, want)):
        if not can_convert(got, exp):
            raise site.error(f"argument {i + 1} of {decl.name!r} must be {exp}, not {got}")
    return Signature(decl.return_type, want)


def is_cffi_from_buffer(obj) -> bool:
    """``ffi.from_buffer`` of a cffi ``FFI()`` instance (core does not import cffi)."""
    owner = getattr(obj, "__self__", None)
    return getattr(obj, "__name__", None) == "from_buffer" and type(owner).__name__ == "FFI"


@registry.call_class(_pytypes.MethodType, name="method")
@registry.call_class(_pytypes.BuiltinMethodType, name="builtin method")
def _bound_method(site):
    if not is_cffi_from_buffer(site.callee):
        raise site.error(f"{site.callee!r} is not supported in device code")
    args = [a for a in site.args if not isinstance(a, StringLiteral)]  # from_buffer("float[]", arr)
    if len(args) != 1 or not isinstance(args[0], Array):
        raise site.error("ffi.from_buffer() takes an array (optionally after a C type string)")
    return Signature(CPointer(args[0].dtype), tuple(site.args))

