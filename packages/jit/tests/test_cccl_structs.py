"""GPU-less tests of struct and bfloat16 values in ``cudalite.cuda.cccl`` operators:
a structured dtype's values are named tuples inside the operator (fields by name and
position, nested structs), struct classes called in the operator build them with each
field converted to its type, the wrapper loads and stores records field by field
(checked in its PTX: offsets and widths), and wrong uses are clear errors."""

from __future__ import annotations

import re
import types as pytypes

import ml_dtypes
import numpy as np
import pytest

import cudalite.types as T
from cudalite import cuda
from cudalite.core.errors import TypingError
from cudalite.core.types import CPointer, NamedTuple, void
from cudalite.cuda._cccl import records
from cudalite.cuda.cccl import _compiled, _numpy_dtype, _return_type, _stateless_form, _value_type, \
    _wrapper


class MinMax:  # what cuda.compute.gpu_struct makes: a class with an aligned structured dtype
    dtype = np.dtype([("lo", np.float64), ("hi", np.int32)], align=True)


class Particle:
    dtype = np.dtype([("id", np.int64), ("pos", np.dtype([("x", np.int16), ("y", np.int16)], align=True))],
                     align=True)


class Point:
    dtype = Particle.dtype.fields["pos"][0]


def _td(dtype):
    return pytypes.SimpleNamespace(dtype=np.dtype(dtype))


def minmax(a, b):
    return MinMax(min(a.lo, b.lo), max(a[1], b.hi))


def particles(p, q):
    return Particle(id=p.id + q.id, pos=(p.pos.x + q.pos.x, p.pos[1] - q.pos.y))


def particles_by_class(p, q):
    return Particle(p.id, Point(p.pos.x, q.pos.y))


def as_tuple(a, b):
    return a.lo * b.lo, a.hi + b.hi


def pick(a, b):
    return a if a.lo < b.lo else b


def _ptx(fn, t, result=None):
    result = result or t
    func, _ = _stateless_form(fn)
    w = _wrapper(func, (t, t), "cudalite_op_test", (), result)
    rec, out = records.storage_type(t), records.storage_type(result)
    ptx, _ = cuda.compile(w, void(CPointer(rec), CPointer(rec), CPointer(out)), device=True, abi="c",
                          abi_info={"abi_name": "cudalite_op_test"}, output="ptx", cc=(8, 0))
    return ptx


def test_a_struct_value_is_a_named_tuple_of_its_fields():
    t = _value_type(_td(Particle.dtype))
    assert isinstance(t, NamedTuple) and t.fields == ("id", "pos")
    assert t.types[0] == T.int64 and t.types[1].fields == ("x", "y") and t.types[1].types == (T.int16, T.int16)
    assert records.storage_type(t) == T.from_dtype(Particle.dtype)
    assert _value_type(_td(Particle.dtype)) == t  # one class per dtype: the same type each time


@pytest.mark.parametrize("fn", [minmax, pick])
def test_struct_operators_return_the_struct(fn):
    t = _value_type(_td(MinMax.dtype))
    assert _return_type(_stateless_form(fn)[0], (t, t)) == t
    assert _numpy_dtype(t) == MinMax.dtype


def test_the_wrapper_loads_and_stores_each_field_at_its_offset():
    ptx = _ptx(minmax, _value_type(_td(MinMax.dtype)))
    loads = re.findall(r"ld\.(\w+)\s+%\w+, \[%rd\d+(\+\d+)?\]", ptx)
    stores = re.findall(r"st\.(\w+)\s+\[%rd\d+(\+\d+)?\]", ptx)
    assert sorted(loads) == [("f64", ""), ("f64", ""), ("u32", "+8"), ("u32", "+8")]
    assert sorted(stores) == [("f64", ""), ("u32", "+8")]
    assert "min.f64" in ptx and "max.s32" in ptx


@pytest.mark.parametrize("fn", [particles, particles_by_class])
def test_nested_structs_by_keyword_tuple_or_class(fn):
    t = _value_type(_td(Particle.dtype))
    ptx = _ptx(fn, t)
    stores = re.findall(r"st\.(\w+)\s+\[%rd\d+(\+\d+)?\]", ptx)
    assert sorted(stores) == [("u16", "+10"), ("u16", "+8"), ("u64", "")]


def test_a_tuple_result_is_stored_into_the_struct_fields_converted():
    t = _value_type(_td(MinMax.dtype))
    ptx = _ptx(as_tuple, t)
    assert "mul.f64" in ptx and re.search(r"st\.u32\s+\[%rd\d+\+8\]", ptx)
    with pytest.raises(TypeError, match="returns a tuple"):
        _numpy_dtype(_return_type(as_tuple, (t, t)))


def test_the_struct_class_converts_each_field():
    make = records.constructor(MinMax.dtype)
    t = _return_type(lambda a: make(a, a), (T.int8,))
    assert t.types == (T.float64, T.int32)


def test_a_struct_class_called_with_a_wrong_field_is_a_located_error():
    def wrong(a, b):
        return MinMax(lo=a.lo, high=b.hi)

    t = _value_type(_td(MinMax.dtype))
    with pytest.raises(TypingError, match="unexpected keyword argument 'high'"):
        _compiled(wrong, (t, t), t, (8, 0))


def test_bfloat16_values():
    t = _value_type(_td(ml_dtypes.bfloat16))
    assert t == T.bfloat16
    assert _numpy_dtype(_return_type(lambda a, b: a + b, (t, t))) == np.dtype(ml_dtypes.bfloat16)
    name, ltoir = _compiled(minmax, (_value_type(_td(MinMax.dtype)),) * 2,
                            _value_type(_td(MinMax.dtype)), (9, 0))
    assert name.startswith("cudalite_op_minmax_") and ltoir


def test_the_adapter_shows_the_functions_signature_and_annotations():
    def sqrt(x: np.float32) -> np.float32:
        return x ** 0.5

    try:
        import cuda.compute  # noqa: F401
    except ImportError:
        pytest.skip("cuda.compute is not installed (the adapter class needs it)")
    import inspect
    import typing

    from cudalite.cuda import cccl

    adapter = cccl.op(sqrt)
    assert inspect.getfullargspec(adapter).args == ["x"]
    assert typing.get_type_hints(adapter) == {"x": np.float32, "return": np.float32}
    assert adapter(4.0) == 2.0


def test_fields_namedtuple_would_refuse_still_work_and_keywords_are_refused_clearly():
    class Hidden:
        dtype = np.dtype([("_x", np.int32), ("y", np.int32)], align=True)

    def swap(a, b):
        return Hidden(b._x, a.y)

    t = _value_type(_td(Hidden.dtype))
    assert t.fields == ("_x", "y")
    assert _compiled(swap, (t, t), t, (8, 0))[1]

    class Keyworded:
        dtype = np.dtype([("lambda", np.int32)], align=True)

    with pytest.raises(TypeError, match="field name 'lambda' cannot be built"):
        records.constructor(Keyworded.dtype)
    k = _value_type(_td(Keyworded.dtype))
    with pytest.raises(TypeError, match="struct field 'lambda' is not a Python identifier"):
        _compiled(lambda a: a, (k,), k, (8, 0))
