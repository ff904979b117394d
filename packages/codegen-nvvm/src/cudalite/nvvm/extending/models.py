"""Data models of extension types: ``register_model`` and the model classes.

A data model says how a value of a type is represented in LLVM IR, as in numba's
``numba.core.datamodel.models``::

    @register_model(IntervalType)
    class IntervalModel(models.StructModel):
        def __init__(self, dmm, fe_type):
            members = [("lo", types.float64), ("hi", types.float64)]
            models.StructModel.__init__(self, dmm, fe_type, members)

* :class:`StructModel` -- a struct of named members (each a cudalite type); the
  value is a literal struct of the members' value types, kernel arguments pass the
  members in order (as a tuple's items) and :func:`make_attribute_wrapper` exposes
  a member as an attribute;
* :class:`PrimitiveModel` -- one LLVM type the extension chooses (``be_type``);
* :class:`OpaqueModel` -- an opaque pointer (``i8*``);
* :class:`DataModel` -- the base, for a model written from scratch.

The table is :data:`cudalite.core.datamodel.data_models` (core, so the kernel ABI can
flatten struct models without llvmlite); the backend's type mapping
(:func:`cudalite.nvvm.lower._irtypes.value_type`) asks a type's model for its LLVM type
when the type is not one of cudalite's own.
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core.datamodel import data_models
from cudalite.core.types import Type

__all__ = ["DataModel", "StructModel", "PrimitiveModel", "OpaqueModel", "register_model", "register_default",
           "data_models"]


def register_model(type_class):
    """Class decorator: represent values of ``type_class`` with the decorated model."""

    def deco(model_class):
        if not (isinstance(model_class, type) and issubclass(model_class, DataModel)):
            raise TypeError(f"register_model({type_class.__name__}) decorates a DataModel subclass "
                            f"(models.StructModel, models.PrimitiveModel, ...), not {model_class!r}")
        return data_models.register(type_class, model_class)

    return deco


register_default = register_model  # numba's name in numba.core.datamodel.registry


class DataModel:
    """The representation of one type (``fe_type``) in LLVM IR."""

    def __init__(self, dmm, fe_type):
        self._dmm = dmm
        self._fe_type = fe_type

    @property
    def fe_type(self):
        return self._fe_type

    def get_value_type(self):
        """The LLVM type of a value in registers."""
        raise NotImplementedError(f"{type(self).__name__}.get_value_type()")

    def get_data_type(self):
        """The LLVM type of a value in memory (default: its value type)."""
        return self.get_value_type()

    def get_argument_type(self):
        return self.get_value_type()

    def get_return_type(self):
        return self.get_value_type()

    def as_data(self, builder, value):
        return value

    def from_data(self, builder, value):
        return value

    def as_argument(self, builder, value):
        return value

    def from_argument(self, builder, value):
        return value

    def as_return(self, builder, value):
        return value

    def from_return(self, builder, value):
        return value

    def traverse(self, builder):
        return []

    def inner_models(self):
        return []

    def has_nrt_meminfo(self):
        return False

    def __repr__(self):
        return f"<{type(self).__name__} of {self._fe_type}>"


class PrimitiveModel(DataModel):
    """A value that is one LLVM value of type ``be_type`` (an ``llvmlite.ir`` type)."""

    def __init__(self, dmm, fe_type, be_type):
        super().__init__(dmm, fe_type)
        if not isinstance(be_type, ir.Type):
            raise TypeError(f"PrimitiveModel of {fe_type}: be_type must be an llvmlite.ir type, not {be_type!r}")
        self.be_type = be_type

    def get_value_type(self):
        return self.be_type


class OpaqueModel(PrimitiveModel):
    """An opaque pointer (``i8*``): a value the kernel only passes around."""

    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.PointerType(ir.IntType(8)))


class StructModel(DataModel):
    """A struct of named members: ``members`` is a list of ``(name, cudalite type)``."""

    def __init__(self, dmm, fe_type, members):
        super().__init__(dmm, fe_type)
        members = list(members)
        names = []
        for m in members:
            if not (isinstance(m, (tuple, list)) and len(m) == 2 and isinstance(m[0], str) and isinstance(m[1], Type)):
                raise TypeError(f"StructModel of {fe_type}: each member is a (name, cudalite type) pair, not {m!r}")
            names.append(m[0])
        if len(set(names)) != len(names):
            raise TypeError(f"StructModel of {fe_type}: member names repeat: {names}")
        self._members = tuple((n, t) for n, t in members)

    @property
    def _fields(self):
        return tuple(n for n, _ in self._members)

    @property
    def _members_types(self):
        return tuple(t for _, t in self._members)

    def flat_members(self):
        """The member types in order: how the kernel ABI flattens a value (core asks)."""
        return self._members_types

    def get_value_type(self):
        from ..lower._irtypes import value_type

        return ir.LiteralStructType([value_type(t) for _, t in self._members])

    def get_data_type(self):
        from ..lower._irtypes import memory_type

        return ir.LiteralStructType([memory_type(t) for _, t in self._members])

    def get_field_position(self, field):
        """The index of member ``field`` (KeyError naming the members if it has none)."""
        for i, (name, _) in enumerate(self._members):
            if name == field:
                return i
        raise KeyError(f"{self._fe_type} has no member {field!r} (its members: {', '.join(self._fields)})")

    def get_member_fe_type(self, name):
        return self._members[self.get_field_position(name)][1]

    def get_type(self, pos):
        """Member ``pos`` (an index or a name)'s cudalite type."""
        if isinstance(pos, str):
            pos = self.get_field_position(pos)
        return self._members[pos][1]

    def get_model(self, pos):
        return self._dmm.lookup(self.get_type(pos))

    def get(self, builder, val, pos):
        """Member ``pos`` (index or name) of struct value ``val``."""
        if isinstance(pos, str):
            pos = self.get_field_position(pos)
        return builder.extract_value(val, [pos])

    def set(self, builder, stval, val, pos):
        """``stval`` with member ``pos`` replaced by ``val``."""
        if isinstance(pos, str):
            pos = self.get_field_position(pos)
        return builder.insert_value(stval, val, [pos])

    def __len__(self):
        return len(self._members)

    def inner_models(self):
        return [m for m in (self._dmm.lookup(t) for _, t in self._members) if m is not None]
