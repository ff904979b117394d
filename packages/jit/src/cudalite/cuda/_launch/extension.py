"""The argument kind of extension types: a value whose class ``typeof_impl`` types.

An extension (``cudalite.cuda.extending``) registers its Python class with
``@typeof_impl.register(Interval)`` and gives the type a data model.  Such a value is
a kernel argument of the type ``typeof_impl`` returns (the type *is* its key), passed
as its struct model's members in order -- the kernel ABI flattens a struct model like
a tuple -- each member read from the attribute :func:`make_attribute_wrapper` maps it
to (else the attribute of the member's own name) and converted to the member's type.
A type whose model is not a struct has no flattening and is refused when the kernel
is compiled (the ABI's error names it).  Checked before every other kind: an
extension's registration decides how its class is passed, as ``typeof_impl``
decides in numba.
"""

from __future__ import annotations

import operator

from cudalite.core.datamodel import data_models
from cudalite.core.types import (
    Array, Boolean, Complex, Float, Integer, Purpose, Tuple, extension_typeof, typeof_impl,
)

from .kinds import ArgKind
from .keys import key_to_type

__all__ = ["ExtensionKind", "KINDS"]

_DEFAULT = typeof_impl.dispatch(object)


class ExtensionKind(ArgKind):
    """Objects of a class an extension types (``typeof_impl`` or ``_numba_type_``)."""

    order = 5

    @classmethod
    def recognise(cls, pycls, sample):
        if typeof_impl.dispatch(pycls) is not _DEFAULT:
            return True
        try:
            return getattr(pycls, "_numba_type_", None) is not None
        except Exception:
            return False

    @classmethod
    def make(cls, pycls, sample, resolve):
        made = cls(resolve)
        made.pycls = pycls
        return made

    def __init__(self, resolve):
        self.resolve = resolve

    def key(self, arg):
        t = extension_typeof(arg, Purpose.argument)
        if t is None:
            raise TypeError(f"typeof_impl gave no type for the kernel argument {arg!r} "
                            f"({type(arg).__qualname__})")
        return t

    def flat(self, arg, spec, sh):
        out = []
        _members(arg, spec, sh, self.resolve, out)
        return tuple(out)


def _members(arg, spec, sh, resolve, out):
    """Append the values of struct-model value ``arg`` (its ABI ``spec``) to ``out``."""
    from cudalite.nvvm.extending import python_attribute  # lazy: the compiler half, loaded with the kernel's build

    t = spec.type
    model = data_models.lookup(t)
    for (name, mtype), item in zip(model._members, spec.items):
        attr = python_attribute(t, name)
        try:
            value = getattr(arg, attr)
        except AttributeError:
            raise TypeError(f"cannot pass {type(arg).__qualname__} as a kernel argument of type {t}: its member "
                            f"{name!r} is read from attribute {attr!r}, which the object does not have") from None
        _convert(value, mtype, item, sh, resolve, out, f"{t}.{name}")


def _convert(value, mtype, item, sh, resolve, out, where):
    try:
        if isinstance(mtype, Boolean):
            out.append(bool(value))
        elif isinstance(mtype, Integer):
            v = operator.index(value)
            bits = mtype.bitwidth
            if not (-(1 << (bits - 1)) <= v < (1 << bits)):
                raise OverflowError(f"{v} does not fit {mtype}")
            out.append(v)
        elif isinstance(mtype, Float):
            out.append(float(value))
        elif isinstance(mtype, Complex):
            c = complex(value)
            out.extend((c.real, c.imag))
        elif isinstance(mtype, Tuple) and not item.slots and not item.items:
            return
        elif isinstance(mtype, Tuple):
            if len(value) != len(mtype.types):
                raise ValueError(f"{len(value)} items for a tuple of {len(mtype.types)}")
            for v, mt, it in zip(value, mtype.types, item.items):
                _convert(v, mt, it, sh, resolve, out, where)
        elif data_models.lookup(mtype) is not None and item.items:
            _members(value, item, sh, resolve, out)
        else:
            kind = resolve(type(value), value)

            actual = key_to_type(kind.key(value))
            if actual != mtype and not (isinstance(mtype, Array) and isinstance(actual, Array)
                                        and actual.dtype == mtype.dtype and actual.ndim == mtype.ndim):
                raise TypeError(f"a {actual} where the member is {mtype}")
            if kind.needs_copy(value):
                raise TypeError("host data: pass a device array (cuda.to_device) in an extension type's member")
            out.extend(kind.flat(value, item, sh))
    except (TypeError, ValueError, OverflowError) as e:
        raise TypeError(f"cannot pass member {where} ({mtype}) of a kernel argument: {e}") from None


KINDS = (ExtensionKind,)
