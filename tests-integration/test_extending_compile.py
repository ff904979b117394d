"""The extension API without a GPU: numba's documented Interval example and the other
extension forms compile to PTX, kernel arguments of an extension type flatten as the
ABI says, and errors in extension code are located in the user's file."""

from __future__ import annotations

import inspect
import struct

import pytest

from cudalite import cuda
from cudalite.core.abi import kernel_abi
from cudalite.cuda import types
from cudalite.cuda._launch.typeof import _resolve
from cudalite.cuda.errors import LoweringError, TypingError
from extensions import interval as X

CC = (8, 0)


def _ptx(fn, sig):
    ptx, _ = cuda.compile_ptx(fn, sig, cc=CC)
    return ptx


def test_typeof_gives_the_registered_type():
    assert cuda.typeof(X.Interval(1.0, 2.0)) is X.interval_type


def test_interval_kernel_argument_is_flattened_as_its_members():
    abi = kernel_abi((types.float64[:], X.interval_type))
    assert [s.llvm_type for s in abi.slots] == ["double*", "i64", "i64", "double", "double"]
    iv = X.Interval(1.5, 4)
    kind = _resolve(type(iv), iv)
    assert kind.key(iv) is X.interval_type
    assert kind.flat(iv, abi.args[1], 0) == (1.5, 4.0)


def test_kernel_argument_missing_member_is_a_clear_error():
    class Half:
        lo = 1.0

    X.typeof_impl.register(Half)(lambda v, c: X.interval_type)
    abi = kernel_abi((X.interval_type,))
    kind = _resolve(Half, Half())
    with pytest.raises(TypeError, match="member 'hi' is read from attribute 'hi'"):
        kind.flat(Half(), abi.args[0], 0)


def test_every_extension_form_compiles():
    def k(r, x, n, iv):
        made = X.Interval(x[0], x[1])
        r[0] = made.lo + iv.hi
        r[1] = made.width
        r[2] = made.contains(1.7)
        r[3] = X.clamp(x[2], 0.0, 1.0)
        r[4] = X.popc_twice(n)
        r[5] = X.hypot2(x[0], x[1])
        r[6] = X.lane_id()
        r[7] = made.scaled().hi + made.scaled(3.0).lo
        r[8] = X.clamp(n, 0, 10)

    ptx = _ptx(k, (types.float64[:], types.float64[:], types.int64, X.interval_type))
    assert "popc.b64" in ptx and "%laneid" in ptx
    params = [line for line in ptx.splitlines() if line.strip().startswith(".param")]
    assert sum(".f64" in p for p in params) == 2  # the Interval argument: lo, hi


def test_device_function_takes_and_returns_an_extension_type():
    dev = cuda.jit(device=True)(lambda a, b: X.Interval(a.lo + b.lo, a.hi + b.hi))

    def k(r, a, b):
        s = dev(a, b)
        r[0] = s.width

    assert "add.f64" in _ptx(k, (types.float64[:], X.interval_type, X.interval_type))


def test_global_constant_of_an_extension_type_uses_lower_constant():
    unit = X.Interval(0.25, 0.75)

    def k(r):
        r[0] = unit.width

    bits = str(struct.unpack("<q", struct.pack("<d", 0.5))[0])
    assert bits in _ptx(k, (types.float64[:],))  # 0.5: the width of the frozen constant, folded


def test_lower_cast_converts_where_the_type_allows_it():
    def k(r, iv):
        r[0] = iv  # an Interval stored into a float64 array: its width (IntervalType.can_convert_to)

    assert "sub.f64" in _ptx(k, (types.float64[:], X.interval_type))


def _line_of(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_error_in_an_overload_implementation_is_located_in_its_file():
    def k(r, x):
        r[0] = X.bad_helper(x[0])

    with pytest.raises(TypingError) as info:
        _ptx(k, (types.float64[:], types.float64[:]))
    text = str(info.value)
    assert f"interval.py:{_line_of(X.ol_bad_helper, 'return x + ')}" in text
    assert f"test_extending_compile.py:{_line_of(k, 'bad_helper(')}" in text


def test_exception_in_a_typing_function_names_it_at_the_call():
    def k(r, x):
        r[0] = X.raising_helper(x[0])

    with pytest.raises(TypingError, match=r"ol_raising_helper .*raised ValueError: this overload refuses"):
        _ptx(k, (types.float64[:], types.float64[:]))


def test_no_matching_overload_is_a_typing_error():
    def k(r, x):
        r[0] = X.clamp(x, 0.0, 1.0)  # an array: ol_clamp returns None

    with pytest.raises(TypingError, match=r"no implementation of clamp\(\)"):
        _ptx(k, (types.float64[:], types.float64[:]))


def test_unknown_member_of_an_extension_type():
    def k(r, iv):
        r[0] = iv.center

    with pytest.raises(TypingError, match="Interval has no attribute 'center'"):
        _ptx(k, (types.float64[:], X.interval_type))


def test_constant_without_lower_constant_is_refused():
    class Pair(types.Type):
        def __init__(self):
            super().__init__(name="PairNoConst")

    pair_t = Pair()

    class PyPair:
        pass

    X.typeof_impl.register(PyPair)(lambda v, c: pair_t)
    X.register_model(Pair)(type("PairModel", (X.models.StructModel,), {
        "__init__": lambda self, dmm, fe: X.models.StructModel.__init__(self, dmm, fe, [("a", types.int32)])}))
    X.make_attribute_wrapper(Pair, "a", "a")
    g = PyPair()

    def k(r):
        r[0] = g.a

    with pytest.raises(LoweringError, match="cannot be frozen into device code: register its conversion"):
        _ptx(k, (types.int32[:],))


def test_intrinsic_called_from_python_is_refused():
    with pytest.raises(TypeError, match="can only be called from device code"):
        X.popc_twice(3)


def test_overload_extends_a_builtin_without_replacing_it():
    from cudalite.cuda.extending import overload

    class Bag(types.Type):
        def __init__(self):
            super().__init__(name="Bag")

    bag_t = Bag()
    X.register_model(Bag)(type("BagModel", (X.models.StructModel,), {
        "__init__": lambda self, dmm, fe: X.models.StructModel.__init__(self, dmm, fe, [("n", types.int64)])}))
    X.make_attribute_wrapper(Bag, "n", "n")

    @overload(len)
    def bag_len(b):
        if isinstance(b, Bag):
            return lambda b: b.n

    def k(r, b, a):
        r[0] = len(b) + len(a)  # the overload for a Bag, the built-in for the array

    ptx = _ptx(k, (types.int64[:], bag_t, types.float32[:]))
    assert ".param .u64" in ptx


def test_operator_overload_on_extension_types_and_numbers_untouched():
    def k(r, a, b, x):
        s = a + b  # overload(operator.add) of two Intervals
        r[0] = s.hi + (x + 1.0)  # numbers keep cudalite's arithmetic

    ptx = _ptx(k, (types.float64[:], X.interval_type, X.interval_type, types.float64))
    assert ptx.count("add.f64") >= 3


def test_keyword_skipping_a_defaulted_parameter_of_an_overload():
    def k(out, a, b):
        X.defaults_and_kwargs(out, a, z=b)  # y takes the overload's default (numba: Omitted(5))

    ptx = _ptx(k, (types.int64[:], types.int64, types.int64))
    assert "add.s64" in ptx and ", 5;" in ptx


def test_cuda_target_overload_is_asked_before_the_generic_one():
    def f():
        return X.by_target()

    from cudalite.core.registry import registry
    from cudalite.core.typing import CallKind, TypingContext

    tf = TypingContext(registry).type_function(f, ())
    (info,) = [i for i in tf.calls.values() if i.kind is CallKind.FUNCTION]
    assert info.key.__qualname__.startswith("ol_by_target_cuda.")


def test_register_jitable_takes_keywords():
    def k(r, a, b):
        r[0] = X.hypot2(b=b, a=a)

    assert "mul" in _ptx(k, (types.float64[:], types.float64, types.float64))


def test_typing_templates_with_lower_builtin_and_lower_getattr():
    def k(r, x, n, iv):
        r[0] = iv.middle  # AttributeTemplate + lower_getattr
        r[1] = X.fma3(x[0], x[1], 1.0)  # ConcreteTemplate: the float64 case
        r[2] = X.first_of(n, x[0])  # AbstractTemplate

    ptx = _ptx(k, (types.float64[:], types.float64[:], types.int32, X.interval_type))
    assert "mul.f64" in ptx and ("fma.rn.f64" in ptx or "add.f64" in ptx)


def test_concrete_template_picks_the_best_case():
    from cudalite.core.registry import registry
    from cudalite.core.typing import TypingContext

    def f(a, b, c):
        return X.fma3(a, b, c)

    assert TypingContext(registry).type_function(f, (types.float32,) * 3).return_type == types.float32
    assert TypingContext(registry).type_function(f, (types.float32, types.float64, types.int32)).return_type \
        == types.float64

    def g(a):
        return X.fma3(a, a, a)

    with pytest.raises(TypingError, match=r"no implementation of fma3\(\)"):
        TypingContext(registry).type_function(g, (types.complex128,))


def _mismatch_kernel(impl):
    from cudalite.cuda.extending import overload

    def myoverload(a, b, c, kw=None):
        pass

    @overload(myoverload)
    def _myoverload_impl(a, b, c, kw=None):
        return impl

    def foo(a, b, c, d):
        myoverload(a, b, c, kw=d)

    return foo


def _impl_kw12(a, b, c, kw=12):
    return a


def _impl_kwarg(a, b, c, kwarg=None):
    return a


def _impl_z(z, b, c, kw=None):
    return z


def _impl_extra(a, b, c, kw=None, extra_kwarg=None):
    return a


@pytest.mark.parametrize("impl, what, shown", [
    (_impl_kw12, "keyword argument default values", '<Parameter "kw=12">'),
    (_impl_kwarg, "keyword argument names", '<Parameter "kwarg=None">'),
    (_impl_z, "argument names", '<Parameter "z">'),
    (_impl_extra, "keyword argument names", '<Parameter "extra_kwarg=None">'),
])
def test_strict_overload_refuses_an_implementation_of_another_signature(impl, what, shown):
    with pytest.raises(TypingError) as info:
        _ptx(_mismatch_kernel(impl), (types.int64,) * 4)
    text = str(info.value)
    assert f"Typing and implementation arguments differ in {what}." in text and shown in text
    assert "test_extending_compile.py" in text  # located at the call in the kernel


def test_var_keyword_in_an_overload_is_refused_unless_not_strict():
    from cudalite.cuda.extending import overload

    def target(a, kw=None):
        pass

    def ol(a, **kws):
        def impl(a, kw=10):
            return a

        return impl

    overload(target, strict=False)(ol)

    def foo(r, a):
        r[0] = target(a, kw=11)

    assert _ptx(foo, (types.int64[:], types.int64))  # not strict: accepted, as numba

    def target2(a, kw=None):
        pass

    overload(target2)(ol)

    def foo2(r, a):
        r[0] = target2(a, kw=11)

    with pytest.raises(TypingError, match=r"VAR_KEYWORD \(e.g. \*\*kwargs\) is unsupported. \(offending argument "
                                          r"name is '\*\*kws'\)"):
        _ptx(foo2, (types.int64[:], types.int64))


def test_overload_method_on_arrays_with_keyword_defaults():
    from cudalite.cuda.extending import overload_method

    @overload_method(types.Array, "foo_kw")
    def fooimpl(arr, a_kwarg=10):
        def impl(arr, a_kwarg=10):
            return a_kwarg

        return impl

    def bar(A, res):
        res[0] = A.foo_kw()
        res[1] = A.foo_kw(20)
        res[2] = A.foo_kw(a_kwarg=30)

    ptx = _ptx(bar, (types.int64[:], types.int64[:]))
    assert all(f"{v};" in ptx for v in (10, 20, 30))


def test_intrinsic_void_and_non_void_returns():
    from cudalite.cuda.extending import intrinsic

    @intrinsic
    def void_func(typingctx, a):
        return types.void(types.int32), lambda context, builder, signature, args: None

    @intrinsic
    def non_void_func(typingctx, a):
        return types.int32(types.int32), lambda context, builder, signature, args: None

    def call_void():
        void_func(1)

    def call_non_void():
        non_void_func(1)

    assert _ptx(call_void, ())
    with pytest.raises(LoweringError, match="non-void function returns None"):
        _ptx(call_non_void, ())


def test_intrinsic_pickles_by_reference_or_by_value():
    import pickle

    import cloudpickle
    from cudalite.cuda.extending import Intrinsic, intrinsic

    assert pickle.loads(pickle.dumps(X.popc_twice)) is X.popc_twice

    @intrinsic
    def identity(context, x):
        return x(x), lambda context, builder, signature, args: args[0]

    memo = len(Intrinsic._memo)
    data = cloudpickle.dumps(identity)
    assert len(Intrinsic._memo) == memo + 1  # pickled by value: remembered by id
    assert pickle.loads(data) is identity  # in the same process: the same object
    assert len(Intrinsic._memo) == memo + 1
    del Intrinsic._memo[identity._uuid]  # as in another process
    again = pickle.loads(data)
    assert again is not identity and again._name == "identity"

    def k(r, n):
        r[0] = again(n)

    assert "st.global.u64" in _ptx(k, (types.int64[:], types.int64))


def test_opaque_handle_type_and_cpu_hooks():
    from cudalite.cuda.extending import NativeValue, box, models, register_model, unbox

    class HandleType(types.Opaque):
        pass

    handle = HandleType("Handle")
    assert handle.name == "Handle" and handle == HandleType("Handle")
    register_model(HandleType)(models.OpaqueModel)

    @unbox(HandleType)
    def unbox_handle(typ, obj, c):
        return NativeValue(obj)

    assert box(HandleType)(unbox_handle) is unbox_handle  # accepted; kernels never box

    def kern(h, r):
        r[0] = 1

    from cudalite.cuda.errors import CompilerError

    with pytest.raises(CompilerError, match="a value of type Handle cannot be passed as an argument"):
        _ptx(kern, (handle, types.int64[:]))  # an opaque model has no kernel-argument form


def test_struct_model_type_as_local_and_shared_array_elements():
    def local(outx, outy):
        arr = cuda.local.array(10, dtype=X.struct_model_type)
        for i in range(len(arr)):
            arr[i] = X.MyStruct(types.int32(i), types.int32(i * 2))
        for i in range(len(arr)):
            outx[i] = arr[i].x
            outy[i] = arr[i].y

    assert "st.global.u32" in _ptx(local, (types.int32[::1], types.int32[::1]))

    def shared(x):
        s = cuda.shared.array(10, dtype=X.struct_model_type)
        i = cuda.threadIdx.x
        s[i] = x[i]
        cuda.syncthreads()
        x[i] = s[9 - i]  # another thread's element: through shared memory

    assert ".shared" in _ptx(shared, (X.struct_model_type[::1],))
    assert X.struct_model_type[::1] == types.Array(X.struct_model_type, 1, "C")


def test_comparison_and_unary_operator_overloads():
    from cudalite.core.registry import registry
    from cudalite.core.typing import TypingContext

    def f(a, b, x):
        m = -a
        return (a == b) + (m.lo < x)  # overloads for Intervals; cudalite's own rules for numbers

    tf = TypingContext(registry).type_function(f, (X.interval_type, X.interval_type, types.float64))
    assert tf.return_type == types.int64
    kinds = sorted(i.kind.value for i in tf.calls.values())
    assert kinds.count("function") == 2 and "compare" in kinds

    def k(r, a, b):
        r[0] = (-a).hi + (a == b)

    ptx = _ptx(k, (types.float64[:], X.interval_type, X.interval_type))
    assert "sub.f64" in ptx and "setp.eq.f64" in ptx  # -(a.lo) + (a == b), folded into one sub

    def chained(a, b, c):
        return a == b == c

    with pytest.raises(TypingError, match="cannot compare Interval == Interval"):
        TypingContext(registry).type_function(chained, (X.interval_type,) * 3)


def test_template_methods_bound_function_and_types_BoundFunction():
    from cudalite.core.registry import registry
    from cudalite.core.typing import TypingContext

    def f(iv, d, x):
        return iv.shifted(d).lo + iv.clamped(x)

    tf = TypingContext(registry).type_function(f, (X.interval_type, types.float64, types.float64))
    assert tf.return_type == types.float64

    def k(r, iv, d, x):
        r[0] = iv.shifted(d).hi
        r[1] = iv.clamped(x)

    ptx = _ptx(k, (types.float64[:], X.interval_type, types.float64, types.float64))
    assert "add.f64" in ptx and ("max.f64" in ptx or "selp.f64" in ptx or "setp" in ptx)

    def bad(iv):
        return iv.shifted(1)  # an int: the bound function's resolver gives no signature

    with pytest.raises(TypingError, match=r"Interval does not support method shifted\(\) with \(int64\)"):
        TypingContext(registry).type_function(bad, (X.interval_type,))
