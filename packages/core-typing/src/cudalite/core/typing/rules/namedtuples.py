"""Typing of named tuples: field access (``p.x``: the item at the field's position)
and construction in device code (``Point(x, y)``, ``Point(y=1, x=2)``, defaults
from the class), as numba types them; everything else about them is the tuple's."""

from __future__ import annotations

from ...registry import registry
from ...types import NamedTuple, Signature

__all__ = ["NAMEDTUPLE_NEW", "is_namedtuple_class", "namedtuple_parameters"]


class _NamedTupleNew:
    """The registry key of every namedtuple class's call (the class is the call
    site's callee): one typing and one lowering entry for all of them."""

    __slots__ = ()

    def __repr__(self):
        return "<namedtuple constructor>"


NAMEDTUPLE_NEW = _NamedTupleNew()


def is_namedtuple_class(obj) -> bool:
    """Whether ``obj`` is a ``collections.namedtuple`` / ``typing.NamedTuple`` class."""
    return (isinstance(obj, type) and issubclass(obj, tuple)
            and isinstance(getattr(obj, "_fields", None), tuple))


class _Parameters:
    """A namedtuple class's fields as the parameters a call binds (the shape
    ``bind_arguments`` reads from a function's IR: names, defaults, qualname)."""

    __slots__ = ("params", "defaults", "qualname", "vararg")

    def __init__(self, cls):
        self.params = tuple(cls._fields)
        self.defaults = dict(getattr(cls, "_field_defaults", {}) or {})
        self.qualname = cls.__qualname__
        self.vararg = None


def namedtuple_parameters(cls) -> _Parameters:
    """The parameters of a namedtuple class's constructor, for argument binding."""
    return _Parameters(cls)


@registry.attr(NamedTuple, "*")
def _field(t, name):
    if name in t.fields:
        return t.types[t.fields.index(name)]
    return None


@registry.call(NAMEDTUPLE_NEW, name="namedtuple")
def _new(site):
    """The arguments arrive bound to the fields (keywords and defaults folded)."""
    cls = site.callee
    if len(site.args) != len(cls._fields):
        raise site.error(f"{cls.__qualname__}() takes {len(cls._fields)} argument(s) "
                         f"({', '.join(cls._fields)}), not {len(site.args)}")
    return Signature(NamedTuple(site.args, cls), tuple(site.args))
