"""GPU-less tests of ``cudalite.cuda.cccl`` (cuda.compute operators compiled by cudalite):
the C-ABI wrapper's symbol and LTO-IR for each tuple of value types, return-type
inference, the compile cache and its key (code, constants, closure values), and the
errors.  cuda.compute itself is not needed here (the GPU tests use it)."""

from __future__ import annotations

import types as pytypes

import numpy as np
import pytest

import cudalite.types as T
from cudalite import cuda
from cudalite.cuda import cccl
from cudalite.cuda.cccl import _compiled, _FunctionKey, _return_type, _value_type, _wrapper


@cuda.jit(device=True)
def _square(x):
    return x * x


def _add_squares(a, b):
    return _square(a) + b


def _positive(x):
    return x > 0


def _offset_by(k):
    def f(x):
        return x + k
    return f


def test_wrapper_loads_calls_and_stores():
    w = _wrapper(lambda a, b: a * a + b, 2, "cudalite_op_test_w")
    a, b, r = np.array([3.0]), np.array([4.0]), np.zeros(1)
    w(a, b, r)  # the generated Python text itself, run on the host
    assert r[0] == 13.0


def test_each_value_type_tuple_gets_its_own_c_abi_symbol_and_ltoir():
    name32, lto32 = _compiled(_add_squares, (T.float32, T.float32), T.float32, (8, 0))
    name64, lto64 = _compiled(_add_squares, (T.int64, T.int64), T.int64, (8, 0))
    assert name32.startswith("cudalite_op__add_squares_") and name32 != name64
    assert isinstance(lto32, bytes) and lto32 and lto32 != lto64
    assert _compiled(_add_squares, (T.float32, T.float32), T.float32, (8, 0)) == (name32, lto32)  # cached


def test_ptx_of_the_wrapper_is_the_pointer_abi():
    from cudalite.core.types import CPointer, void

    w = _wrapper(_positive, 1, "cudalite_op_ptx_check")
    ptx, _ = cuda.compile(w, void(CPointer(T.int32), CPointer(T.boolean)), device=True, abi="c",
                          abi_info={"abi_name": "cudalite_op_ptx_check"}, output="ptx", cc=(8, 0))
    assert ".visible .func cudalite_op_ptx_check(" in ptx
    assert ptx.count(".param .b64") == 2  # two pointers, no return value


@pytest.mark.parametrize("fn, args, expected", [
    (_add_squares, (T.float32, T.float32), T.float32),
    (_add_squares, (T.int32, T.float64), T.float64),
    (_positive, (T.int16,), T.boolean),
    (_offset_by(2.5), (T.int64,), T.float64),
])
def test_return_types_are_cudalites(fn, args, expected):
    assert _return_type(fn, args) == expected


def test_the_cache_key_follows_code_constants_and_closures():
    f, g = _offset_by(1), _offset_by(2)
    assert _FunctionKey(f) != _FunctionKey(g)  # another closure value
    assert _FunctionKey(f) == _FunctionKey(f)
    h = pytypes.FunctionType(f.__code__.replace(co_consts=f.__code__.co_consts), f.__globals__, "f", None,
                             f.__closure__)
    assert _FunctionKey(h) == _FunctionKey(f)  # another function object, the same content
    assert _FunctionKey(_offset_by(1)) == _FunctionKey(f)  # a new closure over an equal value
    assert _FunctionKey(_offset_by(1.0)) != _FunctionKey(f)  # 1.0 is not 1: another constant type
    assert _FunctionKey(_offset_by(True)) != _FunctionKey(f)


def _adder(arr):
    def add_offset(x):
        return x + arr[0]
    return add_offset


def test_closures_over_arrays_of_one_dtype_and_rank_share_a_key_and_do_not_keep_them():
    """cuda.compute's thread-safety test makes one closure per thread over its own array:
    one build for all (the pointers travel in the state bytes); the cached key holds
    neither the closure nor its array."""
    import gc
    import weakref

    a, b = _FakeDeviceArray(0x1000, (1,), "<i4"), _FakeDeviceArray(0x2000, (9,), "<i4")
    fa, fb = _adder(a), _adder(b)
    assert _FunctionKey(fa) == _FunctionKey(fb) and hash(_FunctionKey(fa)) == hash(_FunctionKey(fb))
    assert _FunctionKey(fa) != _FunctionKey(_adder(_FakeDeviceArray(0x1000, (1,), "<i8")))
    assert _FunctionKey(fa) != _FunctionKey(_adder(_FakeDeviceArray(0x1000, (1, 1), "<i4")))
    name_a, _ = _compiled(fa, (T.int32,), T.int32, (8, 0))
    name_b, _ = _compiled(fb, (T.int32,), T.int32, (8, 0))
    assert name_a == name_b
    gone_f, gone_a = weakref.ref(fa), weakref.ref(a)
    del fa, a
    gc.collect()
    assert gone_f() is None and gone_a() is None  # the caches hold neither


def _calls_helper(x):
    def inner(y):
        return y * _SCALE
    return inner(x)


_SCALE = 3


def test_globals_read_by_nested_functions_are_in_the_key():
    global _SCALE
    before = _FunctionKey(_calls_helper)
    _SCALE = 4
    try:
        assert _FunctionKey(_calls_helper) != before
    finally:
        _SCALE = 3
    assert _FunctionKey(_calls_helper) == before


def test_captured_objects_are_compared_by_identity_and_held():
    def make(helper):
        def op(x):
            return helper(x)
        return op

    def h1(x):
        return x

    def h2(x):
        return x

    assert _FunctionKey(make(h1)) == _FunctionKey(make(h1))
    assert _FunctionKey(make(h1)) != _FunctionKey(make(h2))
    key = _FunctionKey(make(lambda x: x))
    assert key.parts[3][0][1].obj(5) == 5  # the captured function is held by the key


def test_value_types_outside_numbers_and_structs_are_refused():
    for dtype in (np.dtype("S4"), np.dtype("M8[s]"), np.dtype([("x", np.int32), ("t", "M8[s]")]), None):
        with pytest.raises(TypeError, match=r"cccl.op\(\): values of type .* are not supported \(numbers"):
            _value_type(pytypes.SimpleNamespace(dtype=dtype))
    assert _value_type(pytypes.SimpleNamespace(dtype=np.dtype(np.uint16))) == T.uint16


def test_op_takes_a_function():
    with pytest.raises(TypeError, match=r"cccl.op\(\) takes a Python function, not int"):
        cccl.op(3)


def test_op_without_cuda_compute_says_what_to_install():
    try:
        import cuda.compute  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install cuda-cccl"):
            cccl.op(_positive)
    else:
        from cuda.compute.op import OpAdapter

        assert isinstance(cccl.op(_positive), OpAdapter)


class _FakeDeviceArray:
    """An object with a CUDA array interface (no memory behind it: compile-only tests)."""

    def __init__(self, ptr, shape, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (ptr, False), "version": 3,
                                         "strides": strides}


_TABLE = _FakeDeviceArray(0x1000, (4,))


def _lookup(x):
    return x + _TABLE[1]


def _weighted_by(weights, scale):
    def weighted(a, b):
        return a * weights[0, 1] * scale + b
    return weighted


def test_captured_device_arrays_become_the_state():
    from cudalite.cuda.cccl import _state_arrays, _state_bytes, _stateless_form

    assert [n for n, _ in _state_arrays(_lookup)] == ["_TABLE"]
    assert np.frombuffer(_state_bytes(_state_arrays(_lookup)), np.int64).tolist() == [0x1000, 4]
    w = _weighted_by(_FakeDeviceArray(0x2000, (2, 3), "<f8"), 3)
    f, arrays = _stateless_form(w)
    assert arrays == [(T.float64, 2)]
    assert _return_type(f, (T.Array(T.float64, 2, "C"), T.float32, T.float32)) == T.float64
    name, lto = _compiled(w, (T.float32, T.float32), T.float64, (8, 0))
    assert name.startswith("cudalite_op_weighted_") and lto


def test_the_state_pointer_and_shape_are_not_part_of_the_compiled_code():
    a = _weighted_by(_FakeDeviceArray(0x2000, (2, 3), "<f8"), 3)
    b = _weighted_by(_FakeDeviceArray(0x9000, (5, 7), "<f8"), 3)
    c = _weighted_by(_FakeDeviceArray(0x9000, (5, 7), "<f4"), 3)
    assert _FunctionKey(a).digest == _FunctionKey(b).digest != _FunctionKey(c).digest


def test_a_strided_captured_array_is_refused():
    from cudalite.cuda.cccl import _stateless_form

    w = _weighted_by(_FakeDeviceArray(0x2000, (2, 3), "<f8", strides=(8, 16)), 3)
    with pytest.raises(TypeError, match=r"the captured array 'weights' is not C-contiguous"):
        _stateless_form(w)


def test_voidptr_indexing_is_refused_and_carray_needs_a_dtype():
    from cudalite.core.errors import TypingError

    def index(p):
        return p[0]

    def untyped(p):
        return cuda.carray(p, 4)[0]

    with pytest.raises(TypingError, match="a voidptr points at untyped memory and cannot be indexed"):
        cuda.compile(index, "int64(voidptr)", device=True, output="ptx", cc=(8, 0))
    with pytest.raises(TypingError, match=r"a voidptr has no element type: pass the dtype"):
        cuda.compile(untyped, "float32(voidptr)", device=True, output="ptx", cc=(8, 0))


def test_return_dtype_is_the_numpy_dtype_of_the_inferred_type():
    from cudalite.cuda.cccl import _numpy_dtype

    assert _numpy_dtype(_return_type(_add_squares, (T.float32, T.float32))) == np.dtype(np.float32)
    assert _numpy_dtype(_return_type(_positive, (T.int16,))) == np.dtype(np.bool_)
    with pytest.raises(TypeError, match=r"returns a tuple \(UniTuple\(int32 x 2\)\); cuda.compute needs the output"):
        _numpy_dtype(_return_type(lambda a: (a, a), (T.int32,)))


def test_the_key_of_a_function_with_an_unassigned_closure_cell():
    def outer():
        def f(x):
            return g(x)  # noqa: F821 - assigned after f is made
        key = _FunctionKey(f)
        g = abs  # noqa: F841
        return f, key

    f, before = outer()
    assert before != _FunctionKey(f)  # the cell now holds a value: another key
    assert len(before.digest) == 16 and before.digest != _FunctionKey(f).digest
