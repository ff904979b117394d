"""Typing hooks of the extension API that core owns: ``typeof_impl`` and ``as_numba_type``.

numba's ``typeof_impl`` is a single-dispatch function from a Python value to its
type; an extension registers its Python class with ``@typeof_impl.register(Interval)``
and from then on an ``Interval`` is typed as the extension says wherever a value's
type is asked: a kernel argument (the runtime's argument kinds), a global or closure
constant in device code (:func:`~cudalite.core.types.typeof_constant`).  A value whose
class defines ``_numba_type_`` is typed by that attribute, as in numba.

``as_numba_type`` maps Python classes used as annotations (``int``, ``float``, a
registered class) to types.
"""

from __future__ import annotations

import enum
import functools

from ._base import Type

__all__ = ["typeof_impl", "Purpose", "TypeofContext", "extension_typeof", "has_extension_type", "as_numba_type"]


class Purpose(enum.Enum):
    """Why a value is typed (numba's ``typeof.Purpose``)."""

    argument = 1
    constant = 2


class TypeofContext:
    """The ``c`` a ``typeof_impl`` function receives (``c.purpose``)."""

    __slots__ = ("purpose",)

    def __init__(self, purpose=Purpose.argument):
        self.purpose = purpose


@functools.singledispatch
def typeof_impl(val, c):
    """The type of ``val`` (None: no extension types it); register per class."""
    return None


_DEFAULT = typeof_impl.dispatch(object)


def has_extension_type(value) -> bool:
    """Whether an extension types ``value``'s class (without calling its typeof_impl):
    the frontend then leaves ``value.attr`` to typing instead of reading the attribute."""
    if typeof_impl.dispatch(type(value)) is not _DEFAULT:
        return True
    try:
        return isinstance(getattr(type(value), "_numba_type_", None), Type)
    except Exception:
        return False


def extension_typeof(value, purpose=Purpose.constant):
    """The type an extension gives ``value`` (``typeof_impl`` registration or a
    ``_numba_type_`` attribute), or None.  A registration that raises or returns
    something other than a type is an error naming it."""
    impl = typeof_impl.dispatch(type(value))
    if impl is not _DEFAULT:
        t = impl(value, TypeofContext(purpose))
        if t is not None and not isinstance(t, Type):
            raise TypeError(f"typeof_impl for {type(value).__qualname__} ({impl.__qualname__}) returned {t!r}, "
                            "not a cudalite type")
        return t
    try:
        t = getattr(type(value), "_numba_type_", None)
    except Exception:
        return None
    return t if isinstance(t, Type) else None


class _AsNumbaType:
    """``as_numba_type(py_class)`` -> its type; ``as_numba_type.register(cls, type)``."""

    def __init__(self):
        self._table: dict = {}

    def register(self, py_class, numba_type):
        if not isinstance(numba_type, Type):
            raise TypeError(f"as_numba_type.register({py_class!r}, ...) takes a cudalite type, not {numba_type!r}")
        self._table[py_class] = numba_type

    def __call__(self, py_class):
        if isinstance(py_class, Type):
            return py_class
        found = self._table.get(py_class)
        if found is not None:
            return found
        try:  # a type name, a NumPy dtype or a scalar class (the facade installs the parser)
            return Type._convert_arg(py_class)
        except Exception as e:
            raise TypeError(f"as_numba_type(): no type for {py_class!r}; register one with "
                            "as_numba_type.register(cls, type)") from e


as_numba_type = _AsNumbaType()


# -- numba's abstract type names that extension code tests against ---------------------------
class _AnyType(Type):
    """``types.Any``: in a ``lower_builtin`` pattern, matches every type."""


Any = _AnyType("any")


class VarArg:
    """``types.VarArg(pattern)``: in a ``lower_builtin`` pattern, any number of trailing
    arguments each matching ``pattern``."""

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype

    def __repr__(self):
        return f"*{self.dtype}"


class _NumberMeta(type):
    def __instancecheck__(cls, obj):
        from ._scalar import Complex, Float, Integer

        return isinstance(obj, (Integer, Float, Complex))

    def __subclasscheck__(cls, sub):
        from ._scalar import Complex, Float, Integer

        return isinstance(sub, type) and issubclass(sub, (Integer, Float, Complex))


class Number(metaclass=_NumberMeta):
    """``types.Number``: ``isinstance(t, types.Number)`` holds for integers, floats and
    complex types (not booleans, as in numba)."""


__all__ += ["Any", "VarArg", "Number"]


class Function(Type):
    """``types.Function(template)``: the type of a callable typed by a typing template
    (``register_global(func, types.Function(MyTemplate))``, the form binding generators
    write)."""

    def __init__(self, template):
        self.templates = (template,)
        super().__init__(("Function", template), f"Function({getattr(template, '__name__', template)})")


__all__ += ["Function"]


class Literal(Type):
    """``types.Literal``: numba's base of literal-value types.  cudalite types call
    arguments by value type (an integer constant is ``int64``), so an extension's
    ``isinstance(t, types.Literal)`` test is false for them, as in numba without
    ``prefer_literal``."""


__all__ += ["Literal"]


class Dummy(Type):
    """``types.Dummy``: numba's base for extension types that are keyed by their name
    alone (``class MyHandle(types.Opaque)``, ``MyHandle("MyHandle")``)."""


class ExtOpaque(Dummy):
    """``types.Opaque``: numba's base for an extension's opaque handle types (usually
    given ``models.OpaqueModel``).  cudalite's own compile-time-object type is
    :class:`~cudalite.core.types.Opaque`, a different class."""


__all__ += ["Dummy", "ExtOpaque"]


class BoundFunction(Type):
    """``types.BoundFunction(template, this)``: a method of a value of type ``this``, typed
    by a call template (what an ``AttributeTemplate``'s ``resolve_<name>`` returns for a
    method; ``template.key`` names its ``lower_builtin`` lowering)."""

    def __init__(self, template, this):
        self.template = template
        self.this = this
        super().__init__(("BoundFunction", template, this),
                         f"BoundFunction({getattr(template, '__name__', template)} for {this})")


__all__ += ["BoundFunction"]
