"""numba's documented ``Interval`` example (docs "Extending Numba: a worked example")
plus an overload, a method, a property, a register_jitable helper, an intrinsic that
emits inline PTX and a constant; only the import line differs from numba's."""

import operator

from llvmlite import ir

from cudalite.cuda import types
from cudalite.cuda.extending import (
    cgutils, intrinsic, lower_builtin, lower_cast, lower_constant, make_attribute_wrapper, models, overload,
    overload_attribute, overload_method, register_jitable, register_model, type_callable, typeof_impl,
)


class Interval:
    """A half-open interval on the real number line."""

    def __init__(self, lo, hi):
        self.lo = lo
        self.hi = hi

    def __repr__(self):
        return "Interval(%f, %f)" % (self.lo, self.hi)

    @property
    def width(self):
        return self.hi - self.lo


class IntervalType(types.Type):
    def __init__(self):
        super().__init__(name="Interval")

    def can_convert_to(self, typingctx, other):  # numba's hook: an Interval converts to a float
        if isinstance(other, types.Float):
            return True


interval_type = IntervalType()


@typeof_impl.register(Interval)
def typeof_interval(val, c):
    return interval_type


@type_callable(Interval)
def type_interval(context):
    def typer(lo, hi):
        if isinstance(lo, types.Float) and isinstance(hi, types.Float):
            return interval_type

    return typer


@register_model(IntervalType)
class IntervalModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        members = [("lo", types.float64), ("hi", types.float64)]
        models.StructModel.__init__(self, dmm, fe_type, members)


make_attribute_wrapper(IntervalType, "lo", "lo")
make_attribute_wrapper(IntervalType, "hi", "hi")


@lower_builtin(Interval, types.Float, types.Float)
def impl_interval(context, builder, sig, args):
    typ = sig.return_type
    lo, hi = args
    interval = cgutils.create_struct_proxy(typ)(context, builder)
    interval.lo = lo
    interval.hi = hi
    return interval._getvalue()


@lower_constant(IntervalType)
def constant_interval(context, builder, ty, pyval):
    lo = context.get_constant(types.float64, pyval.lo)
    hi = context.get_constant(types.float64, pyval.hi)
    return ir.Constant.literal_struct([lo, hi])


@lower_cast(IntervalType, types.Float)
def interval_to_float(context, builder, fromty, toty, val):  # an Interval converts to its width
    width = builder.fsub(builder.extract_value(val, 1), builder.extract_value(val, 0))
    return context.cast(builder, width, types.float64, toty)


@overload_attribute(IntervalType, "width")
def get_width(interval):
    def getter(interval):
        return interval.hi - interval.lo

    return getter


@overload_method(IntervalType, "contains")
def interval_contains(interval, x):
    if isinstance(x, (types.Float, types.Integer)):
        def impl(interval, x):
            return interval.lo <= x < interval.hi

        return impl


@overload_method(IntervalType, "scaled")
def interval_scaled(interval, factor=2.0):
    def impl(interval, factor=2.0):
        return Interval(interval.lo * factor, interval.hi * factor)

    return impl


def clamp(x, lo, hi):
    """Pure Python; device code gets the overload below."""
    return min(max(x, lo), hi)


@overload(clamp)
def ol_clamp(x, lo, hi):
    if isinstance(x, types.Integer) and isinstance(lo, types.Integer) and isinstance(hi, types.Integer):
        def impl(x, lo, hi):
            return min(max(x, lo), hi)

        return impl
    if isinstance(x, types.Float):
        def impl(x, lo, hi):
            if x < lo:
                return lo
            if x > hi:
                return hi
            return x

        return impl


@register_jitable
def hypot2(a, b):
    return a * a + b * b


@intrinsic
def popc_twice(typingctx, x):
    """LLVM IR: twice the population count of an integer."""
    if isinstance(x, types.Integer):
        sig = types.int32(x)

        def codegen(context, builder, signature, args):
            c = builder.ctpop(args[0])
            c = builder.add(c, c)
            return builder.trunc(c, ir.IntType(32)) if c.type.width > 32 else builder.zext(c, ir.IntType(32)) \
                if c.type.width < 32 else c

        return sig, codegen


@intrinsic
def lane_id(typingctx):
    """Inline PTX: ``mov.u32 %0, %laneid;``."""
    sig = types.uint32()

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(32), [])
        asm = ir.InlineAsm(fnty, "mov.u32 $0, %laneid;", "=r", side_effect=True)
        return builder.call(asm, [])

    return sig, codegen


def bad_helper(x):
    raise NotImplementedError


@overload(bad_helper)
def ol_bad_helper(x):
    def impl(x):
        return x + "text"  # a typing error in the extension's implementation

    return impl


def raising_helper(x):
    raise NotImplementedError


@overload(raising_helper)
def ol_raising_helper(x):
    raise ValueError("this overload refuses everything")


@overload(operator.add)
def interval_add(a, b):
    """``a + b`` of two Intervals: the Minkowski sum."""
    if isinstance(a, IntervalType) and isinstance(b, IntervalType):
        def impl(a, b):
            return Interval(a.lo + b.lo, a.hi + b.hi)

        return impl


def defaults_and_kwargs():
    """numba-cuda's test_overload example: parameters only the overload names."""


@overload(defaults_and_kwargs)
def ol_defaults_and_kwargs(out, x, y=5, z=6):
    def impl(out, x, y=5, z=6):
        out[0], out[1] = x + y, z

    return impl


def by_target():
    """Overloaded for the "generic" target, then for "cuda": device code takes the CUDA one."""


@overload(by_target, target="cuda")
def ol_by_target_cuda():
    return lambda: 29


@overload(by_target, target="generic")
def ol_by_target_generic():
    return lambda: 23


@overload(by_target, target="cpu")
def ol_by_target_cpu():
    return lambda: 0


# -- typing templates (numba's class-based API; numba-cuda's test_extending uses these) --------
from cudalite.cuda.extending import (  # noqa: E402
    AbstractTemplate, AttributeTemplate, ConcreteTemplate, lower_getattr, signature, templates,
)

cuda_registry = templates.Registry()  # numba-cuda's cudadecl.registry
register_global = cuda_registry.register_global


@cuda_registry.register_attr
class IntervalAttrs(AttributeTemplate):
    key = IntervalType

    def resolve_middle(self, ty):
        return types.float64


@lower_getattr(IntervalType, "middle")
def interval_middle(context, builder, typ, val):
    lo = builder.extract_value(val, 0)
    hi = builder.extract_value(val, 1)
    return builder.fmul(builder.fadd(lo, hi), ir.Constant(ir.DoubleType(), 0.5))


def fma3(a, b, c):
    """Typed by a ConcreteTemplate, lowered by lower_builtin (a binding generator's form)."""
    return a * b + c


@register_global(fma3)
class Fma3Typing(ConcreteTemplate):
    cases = [signature(types.float32, types.float32, types.float32, types.float32),
             signature(types.float64, types.float64, types.float64, types.float64)]


@lower_builtin(fma3, types.Float, types.Float, types.Float)
def lower_fma3(context, builder, sig, args):
    return builder.fadd(builder.fmul(args[0], args[1]), args[2])


def first_of(a, b):
    return a


@register_global(first_of)
class FirstOfTyping(AbstractTemplate):
    def generic(self, args, kws):
        if len(args) == 2 and isinstance(args[0], types.Integer):
            return signature(args[0], *args)


@lower_builtin(first_of, types.Integer, types.Any)
def lower_first_of(context, builder, sig, args):
    return args[0]


# -- numba-cuda's extensions_usecases: a struct-model type as an array element --------------
class MyStruct:
    def __init__(self, x, y):
        self.x = x
        self.y = y


class StructModelType(types.Type):
    def __init__(self):
        super().__init__(name="TestStructModelType")


struct_model_type = StructModelType()


@typeof_impl.register(MyStruct)
def typeof_teststruct(val, c):
    return struct_model_type


@register_model(StructModelType)
class TestStructModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("x", types.int32), ("y", types.int32)])


make_attribute_wrapper(StructModelType, "x", "x")
make_attribute_wrapper(StructModelType, "y", "y")


@type_callable(MyStruct)
def type_test_struct(context):
    def typer(x, y):
        if isinstance(x, types.Integer) and isinstance(y, types.Integer):
            return struct_model_type

    return typer


@lower_builtin(MyStruct, types.Integer, types.Integer)
def lower_test_type_ctor(context, builder, sig, args):
    obj = cgutils.create_struct_proxy(struct_model_type)(context, builder)
    obj.x = context.cast(builder, args[0], sig.args[0], types.int32)
    obj.y = context.cast(builder, args[1], sig.args[1], types.int32)
    return obj._getvalue()


@overload(operator.eq)
def interval_eq(a, b):
    """``a == b`` of two Intervals: equal bounds."""
    if isinstance(a, IntervalType) and isinstance(b, IntervalType):
        def impl(a, b):
            return a.lo == b.lo and a.hi == b.hi

        return impl


@overload(operator.neg)
def interval_neg(a):
    """``-a``: the mirrored interval."""
    if isinstance(a, IntervalType):
        def impl(a):
            return Interval(-a.hi, -a.lo)

        return impl


# -- methods typed by templates: numba's @bound_function and Numbast's types.BoundFunction ------
from cudalite.cuda.extending import bound_function  # noqa: E402


@cuda_registry.register_attr
class IntervalMethods(AttributeTemplate):
    key = IntervalType

    @bound_function("Interval.shifted")
    def resolve_shifted(self, ty, args, kws):
        if len(args) == 1 and isinstance(args[0], types.Float):
            return signature(ty, args[0])

    def resolve_clamped(self, ty):
        return types.BoundFunction(IntervalClamp, ty)


class IntervalClamp(ConcreteTemplate):
    key = "Interval.clamped"
    cases = [signature(types.float64, types.float64)]


@lower_builtin("Interval.shifted", IntervalType, types.Float)
def lower_shifted(context, builder, sig, args):
    iv, d = args
    lo = builder.fadd(builder.extract_value(iv, 0), d)
    hi = builder.fadd(builder.extract_value(iv, 1), d)
    return cgutils.pack_struct(builder, [lo, hi])


@lower_builtin("Interval.clamped", IntervalType, types.float64)
def lower_clamped(context, builder, sig, args):
    iv, x = args
    lo, hi = builder.extract_value(iv, 0), builder.extract_value(iv, 1)
    x = builder.select(builder.fcmp_ordered("<", x, lo), lo, x)
    return builder.select(builder.fcmp_ordered(">", x, hi), hi, x)
