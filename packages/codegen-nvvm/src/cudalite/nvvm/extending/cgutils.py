"""IR-building helpers extension code uses (numba's ``cgutils``), on llvmlite's IRBuilder.

* :func:`create_struct_proxy` -- a class whose instances read and write the members
  of a struct-model value by name (``iv.lo = lo; iv._getvalue()``);
* :func:`pack_array`, :func:`pack_struct`, :func:`unpack_tuple` -- aggregates from and
  to lists of values;
* :func:`alloca_once`, :func:`alloca_once_value` -- stack slots in the entry block;
* :func:`get_null_value`, :func:`is_null`, :func:`is_not_null`, :func:`if_likely`,
  :func:`if_unlikely`, :func:`for_range` and the common LLVM type constants.
"""

from __future__ import annotations

import contextlib

from llvmlite import ir

from cudalite.core.datamodel import data_models
from cudalite.core.errors import LoweringError

__all__ = [
    "create_struct_proxy", "pack_array", "pack_struct", "unpack_tuple", "alloca_once", "alloca_once_value",
    "get_null_value", "is_null", "is_not_null", "if_likely", "if_unlikely", "for_range", "increment_index",
    "gep_inbounds", "get_or_insert_function", "true_bit", "false_bit", "int1_t", "int8_t", "int16_t", "int32_t",
    "int64_t", "intp_t", "voidptr_t", "bool_t",
]

bool_t = int1_t = ir.IntType(1)
int8_t = ir.IntType(8)
int16_t = ir.IntType(16)
int32_t = ir.IntType(32)
int64_t = intp_t = ir.IntType(64)
voidptr_t = ir.PointerType(int8_t)
true_bit = ir.Constant(int1_t, 1)
false_bit = ir.Constant(int1_t, 0)


def _struct_model(typ):
    model = data_models.lookup(typ)
    if model is None or not hasattr(model, "get_field_position"):
        raise LoweringError(f"create_struct_proxy({typ}): the type's data model is not a StructModel "
                            "(register one with @register_model)")
    return model


def create_struct_proxy(typ, kind="value"):
    """The proxy class of struct-model type ``typ``: ``cls(context, builder, value=None,
    ref=None)`` holds the struct in a stack slot (a copy of ``value``, the slot ``ref``
    points at, or a zeroed new one); ``proxy.member`` loads, ``proxy.member = v`` stores,
    ``proxy._getvalue()`` is the struct value, ``proxy._getpointer()`` its slot."""
    model = _struct_model(typ)
    names = model._fields

    class StructProxy(_StructProxy):
        _fe_type = typ
        _model = model
        _names = names

    StructProxy.__name__ = f"StructProxy_{typ}"
    return StructProxy


class _StructProxy:
    _fe_type = None
    _model = None
    _names = ()

    def __init__(self, context, builder, value=None, ref=None):
        object.__setattr__(self, "_context", context)
        object.__setattr__(self, "_builder", builder)
        lty = self._model.get_value_type()
        if ref is not None:
            if value is not None:
                raise LoweringError("a struct proxy takes value or ref, not both")
            if ref.type.pointee != lty:
                raise LoweringError(f"struct proxy of {self._fe_type}: ref points to {ref.type.pointee}, not {lty}")
            slot = ref
        else:
            slot = alloca_once(builder, lty, zfill=value is None)
            if value is not None:
                if value.type != lty:
                    raise LoweringError(f"struct proxy of {self._fe_type}: value is {value.type}, not {lty}")
                builder.store(value, slot)
        object.__setattr__(self, "_slot", slot)

    def _member_ptr(self, name):
        i = self._model.get_field_position(name)
        return self._builder.gep(self._slot, [int32_t(0), int32_t(i)], inbounds=True)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            ptr = self._member_ptr(name)
        except KeyError as e:
            raise AttributeError(str(e.args[0])) from None
        return self._builder.load(ptr)

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        try:
            ptr = self._member_ptr(name)
        except KeyError as e:
            raise AttributeError(str(e.args[0])) from None
        if value.type != ptr.type.pointee:
            raise LoweringError(f"{self._fe_type}.{name} holds {ptr.type.pointee}, not {value.type}")
        self._builder.store(value, ptr)

    def __getitem__(self, index):
        return self._builder.load(self._builder.gep(self._slot, [int32_t(0), int32_t(index)], inbounds=True))

    def __setitem__(self, index, value):
        self._builder.store(value, self._builder.gep(self._slot, [int32_t(0), int32_t(index)], inbounds=True))

    def __len__(self):
        return len(self._names)

    def _getvalue(self):
        return self._builder.load(self._slot)

    def _setvalue(self, value):
        self._builder.store(value, self._slot)

    def _getpointer(self):
        return self._slot


def alloca_once(builder, ty, size=None, name="", zfill=False):
    """A stack slot of LLVM type ``ty`` made once, in the function's entry block;
    zeroed where the builder is now when ``zfill``."""
    with builder.goto_entry_block():
        slot = builder.alloca(ty, size=size, name=name)
    if zfill:
        builder.store(ir.Constant(ty, None), slot)
    return slot


def alloca_once_value(builder, value, name=""):
    """A stack slot holding ``value``."""
    slot = alloca_once(builder, value.type, name=name)
    builder.store(value, slot)
    return slot


def pack_array(builder, values, ty=None):
    """An LLVM array ``[n x T]`` of ``values`` (``ty``: T when ``values`` is empty)."""
    if ty is None:
        if not values:
            raise LoweringError("pack_array() of no values needs ty")
        ty = values[0].type
    out = ir.Constant(ir.ArrayType(ty, len(values)), ir.Undefined)
    for i, v in enumerate(values):
        out = builder.insert_value(out, v, i)
    return out


def pack_struct(builder, values):
    """A literal struct of ``values``."""
    out = ir.Constant(ir.LiteralStructType([v.type for v in values]), ir.Undefined)
    for i, v in enumerate(values):
        out = builder.insert_value(out, v, i)
    return out


def unpack_tuple(builder, tup, count=None):
    """The items of an aggregate value (a tuple, an array, a struct) as a list."""
    if count is None:
        ty = tup.type
        count = ty.count if isinstance(ty, ir.ArrayType) else len(ty.elements)
    return [builder.extract_value(tup, i) for i in range(count)]


def get_null_value(ltype):
    return ir.Constant(ltype, None)


def is_null(builder, val):
    return builder.icmp_unsigned("==", val, get_null_value(val.type))


def is_not_null(builder, val):
    return builder.icmp_unsigned("!=", val, get_null_value(val.type))


def if_likely(builder, pred):
    return builder.if_then(pred, likely=True)


def if_unlikely(builder, pred):
    return builder.if_then(pred, likely=False)


def increment_index(builder, val):
    return builder.add(val, ir.Constant(val.type, 1), flags=["nsw"])


def gep_inbounds(builder, ptr, *inds, name=""):
    idx = [ir.Constant(int32_t, i) if isinstance(i, int) else i for i in inds]
    return builder.gep(ptr, idx, inbounds=True, name=name)


class _Loop:
    __slots__ = ("index", "do_break")

    def __init__(self, index, do_break):
        self.index = index
        self.do_break = do_break


@contextlib.contextmanager
def for_range(builder, count, start=None, intp=None):
    """``with for_range(builder, n) as loop:`` -- the body runs for ``loop.index`` in
    ``range(start or 0, n)``; ``loop.do_break()`` leaves the loop."""
    intp = intp or count.type
    start = ir.Constant(intp, 0) if start is None else start
    fn = builder.function
    cond = fn.append_basic_block("for.cond")
    body = fn.append_basic_block("for.body")
    end = fn.append_basic_block("for.end")
    pre = builder.block
    builder.branch(cond)
    builder.position_at_end(cond)
    index = builder.phi(intp, name="loop.index")
    index.add_incoming(start, pre)
    builder.cbranch(builder.icmp_signed("<", index, count), body, end)
    builder.position_at_end(body)
    yield _Loop(index, lambda: builder.branch(end))
    if not builder.block.is_terminated:
        index.add_incoming(increment_index(builder, index), builder.block)
        builder.branch(cond)
    builder.position_at_end(end)


def get_or_insert_function(module, fnty, name):
    """The function ``name`` of ``module`` (an ``ir.Module``), declared with type
    ``fnty`` if it is not there yet (how extension code calls linked C functions)."""
    fn = module.globals.get(name)
    if fn is None:
        return ir.Function(module, fnty, name)
    if not isinstance(fn, ir.Function) or fn.ftype != fnty:
        raise LoweringError(f"{name} is already declared in the module as {getattr(fn, 'type', fn)}, not {fnty}")
    return fn
