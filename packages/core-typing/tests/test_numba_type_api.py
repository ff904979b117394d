"""numba's type-level API on cudalite's types: ``Type(name)`` constructor forms,
``from_dtype`` and numba's warning classes (GPU-less)."""

import warnings

import numpy as np
import pytest

from cudalite import types
from cudalite.core import errors
from cudalite.core.types import Record, from_dtype


class _UserType(types.Type):
    """A user type class written for numba: ``super().__init__(name=...)``."""

    def __init__(self):
        super().__init__(name="MyUserType")


def test_type_accepts_numba_name_keyword():
    t = _UserType()
    assert str(t) == "MyUserType"
    assert t == _UserType() and hash(t) == hash(_UserType())
    assert t != types.int32


def test_type_accepts_numba_positional_name():
    class Named(types.Type):
        pass

    assert str(Named("abc")) == "abc"
    assert Named("abc") == Named("abc") and Named("abc") != Named("xyz")


def test_type_without_name_is_refused():
    class Named(types.Type):
        pass

    with pytest.raises(TypeError, match="needs a name"):
        Named()


@pytest.mark.parametrize("dt, expect", [
    (np.float32, types.float32), (np.dtype("i8"), types.int64), ("u1", types.uint8),
    (np.complex64, types.complex64), (np.bool_, types.boolean), (np.float16, types.float16),
])
def test_from_dtype_scalars(dt, expect):
    assert from_dtype(dt) == expect
    assert types.from_dtype(dt) == expect


def test_from_dtype_record_keeps_offsets_and_alignment():
    dt = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
    rec = from_dtype(dt)
    assert isinstance(rec, Record)
    assert [(n, str(t), o) for n, t, o in rec.fields] == [("a", "int32", 0), ("b", "float64", 8)]
    assert rec.size == dt.itemsize == 16
    packed = from_dtype(np.dtype([("a", np.int32), ("b", np.float64)]))
    assert [o for _, _, o in packed.fields] == [0, 4] and packed.size == 12
    assert str(rec[:]) == "array(Record(a:int32@0, b:float64@8; 16), 1d, A)"


@pytest.mark.parametrize("dt", [np.dtype("M8[5s]"), np.dtype(">f4"), np.dtype([("d", ">u4", (5,))]),
                                np.dtype([("s", "O")])])
def test_from_dtype_refuses_dtypes_without_a_type(dt):
    with pytest.raises(NotImplementedError, match="cudalite has no type for the NumPy dtype"):
        from_dtype(dt)


def test_from_dtype_refuses_non_dtypes():
    with pytest.raises(TypeError, match="takes a NumPy dtype"):
        from_dtype(types.float32)
    with pytest.raises(TypeError, match="takes a NumPy dtype"):
        from_dtype(object())


def test_numba_warning_hierarchy():
    for name in ("NumbaPerformanceWarning", "NumbaInvalidConfigWarning", "NumbaDebugInfoWarning",
                 "NumbaPedanticWarning", "NumbaSystemWarning", "NumbaTypeSafetyWarning",
                 "NumbaExperimentalFeatureWarning", "NumbaParallelSafetyWarning"):
        cls = getattr(errors, name)
        assert issubclass(cls, errors.NumbaWarning) and issubclass(cls, UserWarning)
    assert issubclass(errors.NumbaIRAssumptionWarning, errors.NumbaPedanticWarning)
    assert issubclass(errors.NumbaDeprecationWarning, DeprecationWarning)
    assert issubclass(errors.NumbaPendingDeprecationWarning, PendingDeprecationWarning)
    assert issubclass(errors.SourceWarning, errors.NumbaWarning)
    with pytest.warns(errors.NumbaWarning):
        warnings.warn("x", errors.NumbaInvalidConfigWarning)


def test_declare_device_sig_and_messages():
    from cudalite.core.errors import SignatureError
    from cudalite.core.ffi import declare_device

    f1 = declare_device("f1", "int32(float32[:])")
    assert f1.name == "f1"
    assert f1.sig.args == (types.float32[:],) and f1.sig.return_type == types.int32
    assert declare_device("f1", types.int32(types.float32[:])).sig == f1.sig
    for bad in ("(float32[:],)", (types.float32[:],)):
        with pytest.raises(TypeError, match="Return type") as ei:
            declare_device("f1", bad)
        assert isinstance(ei.value, SignatureError)


def test_declare_device_link_set_is_accepted_in_a_stable_order():
    from cudalite.core.ffi import declare_device

    f = declare_device("f", "int32(int32)", link={"b.cu", "a.cu", "c.ptx"})
    assert f.link == ("a.cu", "b.cu", "c.ptx")


def test_signature_and_as_dtype_as_numba_spells_them():
    import numpy as np

    from cudalite import types as T

    assert T.signature(T.void, T.int32, T.float32[:]) == T.void(T.int32, T.float32[:])
    assert str(T.signature(T.float64, T.float64)) == "float64(float64)"
    with pytest.raises(TypeError, match="signature\\(\\) takes cudalite types"):
        T.signature(T.void, "int32")
    for name in ("bool_", "int8", "uint16", "int64", "float16", "float32", "float64", "complex64", "complex128"):
        assert T.as_dtype(getattr(T, name)) == np.dtype(name.rstrip("_"))
    rec = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
    assert T.as_dtype(T.from_dtype(rec)) == rec
    with pytest.raises(NotImplementedError, match=r"array\(float32, 1d, A\) cannot be represented as a NumPy dtype"):
        T.as_dtype(T.float32[:])
    with pytest.raises(TypeError, match="as_dtype\\(\\) takes a cudalite type"):
        T.as_dtype(np.float32)


def test_c_name_aliases_and_type_sets_as_numba():
    import numpy as np

    from cudalite import types as T

    for name, np_name in (("char", "int8"), ("uchar", "uint8"), ("short", "int16"), ("ushort", "uint16"),
                          ("int_", "int64"), ("uint", "uint64"), ("longlong", "int64"), ("ulonglong", "uint64")):
        assert T.as_dtype(getattr(T, name)) == np.dtype(np_name)
    assert T.integer_domain == T.signed_domain | T.unsigned_domain and T.int32 in T.signed_domain
    assert T.number_domain == T.integer_domain | T.real_domain | T.complex_domain and len(T.number_domain) == 12


def test_a_scalar_type_called_with_a_number_converts_it_as_numba():
    import enum

    import numpy as np

    from cudalite import types as T

    class Code(enum.IntEnum):
        not_found = 404

    assert type(T.int16(Code.not_found)) is np.int16 and T.int16(Code.not_found) == 404
    assert T.float32(2.5) == np.float32(2.5) and type(T.float32(2.5)) is np.float32
    assert T.boolean(3) is True and T.complex64(1j) == np.complex64(1j)
    assert T.int32(T.float32) == T.Signature(T.int32, (T.float32,))  # types still build signatures
    assert T.float64(np.float32) == T.Signature(T.float64, (T.float32,))
