"""Signature parsing: strings, type objects, tuples of argument types, and errors."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import types
from cudalite.core.errors import CudaliteError, SignatureError
from cudalite.core.types import Array, CPointer, Signature, Tuple, UniTuple, as_type, parse_signature, parse_type


def test_scalar_signature_string():
    assert parse_signature("float32(float32, float32)") == (types.float32, (types.float32, types.float32))
    assert parse_signature("  int64( int32 ,uint8 )  ") == (types.int64, (types.int32, types.uint8))
    assert parse_signature("void()") == (types.void, ())
    assert parse_signature("int32(int32,)") == (types.int32, (types.int32,))


def test_array_layouts_in_strings():
    ret, args = parse_signature("void(float32[:], float32[:, ::1])")
    assert ret == types.void
    assert args == (Array(types.float32, 1, "A"), Array(types.float32, 2, "C"))
    (f,) = parse_signature("void(float64[::1, :])")[1]
    assert (f.dtype, f.ndim, f.layout) == (types.float64, 2, "F")
    (c1,) = parse_signature("void(int8[::1])")[1]
    assert c1.layout == "C"
    (a3,) = parse_signature("void(float32[:, :, :])")[1]
    assert (a3.ndim, a3.layout) == (3, "A")
    (a8,) = parse_signature("void(uint8[:, :, :, :, :, :, :, ::1])")[1]
    assert (a8.ndim, a8.layout) == (8, "C")
    assert not a8.readonly


def test_aliases_and_qualified_names():
    assert parse_signature("f8(i4, u2, b1, c8)") == (
        types.float64, (types.int32, types.uint16, types.boolean, types.complex64))
    assert parse_signature("types.float32(np.int32, numba.types.intp)") == (
        types.float32, (types.int32, types.int64))
    assert parse_signature("double(float_, half)") == (types.float64, (types.float32, types.float16))


def test_tuple_of_argument_types_has_no_return_type():
    assert parse_signature((types.int32, types.float32[:])) == (None, (types.int32, Array(types.float32, 1)))
    assert parse_signature([types.int32]) == (None, (types.int32,))
    assert parse_signature(()) == (None, ())
    # NumPy scalar classes and type strings are accepted as argument types
    assert parse_signature((np.float32, "int16", np.dtype("u1"))) == (
        None, (types.float32, types.int16, types.uint8))
    assert parse_signature("(int32, float32)") == (None, (types.int32, types.float32))


def test_type_objects_build_signatures():
    sig = types.int32(types.int32, types.int32)
    assert isinstance(sig, Signature)
    assert parse_signature(sig) == (types.int32, (types.int32, types.int32))
    assert str(sig) == "int32(int32, int32)"
    assert parse_signature(types.void(types.float32[:, ::1])) == (types.void, (Array(types.float32, 2, "C"),))
    assert types.float64(np.float32).args == (types.float32,)


def test_cpointer():
    p = types.CPointer(types.float32)
    assert isinstance(p, CPointer) and p.dtype == types.float32
    assert p == CPointer(types.float32) and p != CPointer(types.float64)
    assert parse_signature(types.void(p, types.int32)) == (types.void, (p, types.int32))
    assert parse_signature("void(CPointer(float32), int32)") == (types.void, (p, types.int32))
    assert str(p) == "CPointer(float32)"


def test_unituple_and_tuple():
    u = types.UniTuple(types.int32, 3)
    assert u == Tuple((types.int32,) * 3) and len(u) == 3 and u.is_uniform
    assert parse_signature("UniTuple(int32, 3)(int32)") == (u, (types.int32,))
    het = Tuple((types.int32, types.float32))
    assert not het.is_uniform
    # numba spells it Tuple((a, b)); the flat spelling is accepted too
    assert parse_signature("Tuple((int32, float32))(int32)") == (het, (types.int32,))
    assert parse_signature("Tuple(int32, float32)(int32)") == (het, (types.int32,))
    assert parse_signature((u, het)) == (None, (u, het))


def test_types_are_value_objects():
    assert types.float32[:, ::1] == Array(types.float32, 2, "C")
    assert hash(types.float32[:]) == hash(Array(types.float32, 1, "A"))
    assert types.float32[:] != types.float64[:]
    assert types.int32 != types.uint32
    assert types.float32[::1] == types.float32[:, ::1].copy(ndim=1)
    assert Array(types.float32, 1, "F").layout == "C"  # 1-d F is C


def test_parse_type_and_as_type():
    assert parse_type("float32[:, ::1]") == Array(types.float32, 2, "C")
    assert as_type("int8") == types.int8
    assert as_type(np.int16) == types.int16
    assert as_type(float) == types.float64
    assert as_type(types.complex64) == types.complex64
    with pytest.raises(SignatureError):
        as_type(object)
    with pytest.raises(SignatureError, match="not a type"):
        parse_type("(int32, float32)")


def test_public_types_module_star_import():
    ns: dict = {}
    exec("from cudalite.types import *", ns)
    assert ns["float32"] is types.float32
    assert ns["void"] is types.void
    assert ns["float_"] == types.float32  # numba's alias
    assert "bool" not in ns  # the builtin is not shadowed


@pytest.mark.parametrize("sig, needle", [
    ("float32(", "cannot parse signature 'float32('"),
    ("foo(int32)", "unknown type name 'foo'"),
    ("int32", "must look like 'rettype(argtypes...)'"),
    ("", "cannot parse signature"),
    ("int32(x=int32)", "keyword arguments"),
    ("int32(3)", "signature 'int32(3)' must look like 'rettype(argtypes...)'"),  # int32(3) is a value
    ("void(float32(int32))", "float32(int32) is not a type"),
    ("float32[:, ::2](int32)", "'::1'"),
    ("void(float32[1:])", "array type spec"),
    ("void(float32[::1, ::1])", "only one dimension"),
    ("void(float32[:, ::1, :])", "first (F) or last (C)"),
    ("void(float32[:, :, :, :, :, :, :, :, :])", "0 to 8 dimensions"),
    ("3(int32)", "invalid type in signature"),
    ("int32(int32)(int32)", "invalid type in signature"),
    ("void(int32 + float32)", "cannot parse"),
])
def test_bad_signature_strings(sig, needle):
    with pytest.raises(SignatureError) as info:
        parse_signature(sig)
    msg = str(info.value)
    assert needle in msg
    assert isinstance(info.value, CudaliteError)
    assert isinstance(info.value, TypeError)  # also a TypeError, as numba's callers expect


@pytest.mark.parametrize("sig, needle", [
    (types.int32, "is a type, not a signature"),
    (5, "cannot use 5 as a signature"),
    ((types.int32, list), "is not a type"),
])
def test_bad_signature_objects(sig, needle):
    with pytest.raises(SignatureError, match=None) as info:
        parse_signature(sig)
    assert needle in str(info.value)


def test_unituple_count_must_be_an_int_in_strings():
    assert parse_signature("void(UniTuple(float32, 2))")[1] == (UniTuple(types.float32, 2),)


def test_a_nul_byte_in_a_signature_is_a_signature_error():
    # Python 3.10 raises ValueError (not SyntaxError) for a NUL byte in parsed text
    for bad in ("int32(float32\x00)", "float32\x00"):
        with pytest.raises(SignatureError, match="cannot parse"):
            parse_signature(bad)
    with pytest.raises(SignatureError, match="cannot parse type"):
        parse_type("float32\x00")
