"""Argument kinds of tuples and namedtuples of kernel arguments (nested ones included).

A tuple is its items flattened in order (the kernel ABI's rule).  A tuple holding
NumPy arrays or records is keyed ``("tuple-host", ...)``: its host items are copied in
and back as at the top level (:meth:`TupleKind.stage_in`), and a launch with one never
takes the fast path of a tuple of device arrays.
"""

from __future__ import annotations

from .kinds import ArgKind

__all__ = ["TupleKind", "NamedTupleKind", "KINDS"]


class TupleKind(ArgKind):
    """Plain tuples: keyed ``("tuple", *item keys)``."""

    order = 70

    @classmethod
    def recognise(cls, pycls, sample):
        return pycls is tuple

    @classmethod
    def make(cls, pycls, sample, resolve):
        return cls(resolve)

    def __init__(self, resolve):
        self.resolve = resolve

    def _kind(self, x):
        return self.resolve(type(x), x)

    def needs_copy(self, arg):
        return any(self._kind(x).needs_copy(x) for x in arg)

    def devices(self, arg):
        return tuple(d for x in arg for d in self._kind(x).devices(x))

    def key(self, arg):
        keys = tuple(self._kind(x).key(x) for x in arg)
        return ("tuple-host" if self.needs_copy(arg) else "tuple", *keys)

    def rebuild(self, arg, items):
        return tuple(items)

    def stage_in(self, arg, stream, after):
        return self.rebuild(arg, [self._kind(x).stage_in(x, stream, after) if self._kind(x).needs_copy(x) else x
                                  for x in arg])

    def flat(self, arg, spec, sh):
        out = []
        for x, item in zip(arg, spec.items):
            out.extend(self._kind(x).flat(x, item, sh))
        return tuple(out)

    def source(self, i, a, spec, key, ns):
        guard, pre, vals = super().source(i, a, spec, key, ns)
        return f"type({a}) is tuple and {guard}", pre, vals


class NamedTupleKind(TupleKind):
    """Instances of one ``namedtuple`` class: keyed ``("namedtuple", cls, ...)``,
    passed as the tuple of their items (the field names are the type's)."""

    order = 80

    @classmethod
    def recognise(cls, pycls, sample):
        return issubclass(pycls, tuple) and isinstance(getattr(pycls, "_fields", None), tuple)

    @classmethod
    def make(cls, pycls, sample, resolve):
        return cls(resolve, pycls)

    def __init__(self, resolve, cls):
        super().__init__(resolve)
        self.cls = cls

    def key(self, arg):
        kind, *keys = super().key(arg)
        return ("namedtuple-host" if kind == "tuple-host" else "namedtuple", self.cls, *keys)

    def rebuild(self, arg, items):
        return self.cls(*items)

    def source(self, i, a, spec, key, ns):
        guard, pre, vals = ArgKind.source(self, i, a, spec, key, ns)
        ns[f"C{i}"] = self.cls
        return f"type({a}) is C{i} and {guard}", pre, vals


KINDS = (TupleKind, NamedTupleKind)
