"""Types of compile-time objects: Python functions, registered callables,
modules, number classes (``float32`` used as a cast), ranges, dtypes, strings."""

from __future__ import annotations

from ..value_text import safe_attr, value_text
from ._base import Type

__all__ = [
    "Opaque", "PyFunction", "Module", "NumberClass", "RangeType", "StringLiteral",
    "BoundMethod", "DType", "SliceType",
]


class Opaque(Type):
    """A compile-time Python object with no runtime value (a registered callable,
    a device-API stub).  Keyed by the object's identity."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        name = _str_attr(obj, "__qualname__") or _str_attr(obj, "__name__") or value_text(obj, 80)
        mod = _str_attr(obj, "__module__")
        if mod and mod != "builtins":
            name = f"{mod}.{name}"
        super().__init__(id(obj), f"<{name}>")
        self.obj = obj


def _str_attr(obj, name):
    """A name attribute of a user's object when it is a string, else None (never raises)."""
    value = safe_attr(obj, name)
    return value if isinstance(value, str) else None


class PyFunction(Opaque):
    """A plain Python function that is compiled as a device function when called.
    ``links``: code a ``@cuda.jit(device=True, link=[...])`` function needs; it is
    linked into every kernel that calls it.  ``inline``: ``(choice, forceinline)`` of
    a ``@cuda.jit(inline=..., forceinline=...)`` dispatcher, where ``choice`` is
    ``'never'``, ``'always'`` or a cost-model callable.  ``sigs``: the ``(argtypes,
    return type)`` of its eager signatures (a ``@cuda.jit("int32(int32)", device=True)``
    function): calls convert their arguments to one of those, as numba's; empty:
    specialized on the argument types.  (None of the three is part of the type's identity.)"""

    __slots__ = ("links", "inline", "sigs")

    def __init__(self, obj, links=(), inline=("never", False), sigs=()):
        super().__init__(obj)
        self.links = tuple(links)
        self.inline = inline
        self.sigs = tuple(sigs)


class Module(Opaque):
    """A Python module used as a namespace (``math``, ``cmath``, ``cuda``)."""

    __slots__ = ()


class NumberClass(Type):
    """A number type used as a value: ``types.float32(x)`` or ``np.float32(x)`` casts."""

    __slots__ = ("instance_type",)

    def __init__(self, instance_type: Type):
        super().__init__(instance_type, f"class({instance_type})")
        self.instance_type = instance_type


class DType(NumberClass):
    """A dtype argument (``np.float32``, ``types.int32``, a record dtype)."""

    __slots__ = ()


class SliceType(Type):
    """A ``start:stop:step`` slice; ``present`` says which parts were written
    (absent parts take Python's defaults, which depend on the step's sign)."""

    __slots__ = ("present",)

    def __init__(self, present):
        present = tuple(bool(p) for p in present)
        spelled = ":".join("x" if p else "" for p in present)
        super().__init__(present, f"slice({spelled})")
        self.present = present

    @property
    def is_full(self) -> bool:
        return not any(self.present)


class RangeType(Type):
    """The value of ``range(...)`` (only iterated by ``for``)."""

    __slots__ = ("dtype",)

    def __init__(self, dtype: Type):
        super().__init__(dtype, f"range({dtype})")
        self.dtype = dtype


class StringLiteral(Type):
    """A compile-time string (for ``print`` and exception messages)."""

    __slots__ = ("value",)

    def __init__(self, value: str):
        super().__init__(value, "str")
        self.value = value


class BoundMethod(Type):
    """``value.method`` before the call: the receiver type plus the method name."""

    __slots__ = ("recv", "method")

    def __init__(self, recv: Type, method: str):
        super().__init__((recv, method), f"method({recv}.{method})")
        self.recv, self.method = recv, method
