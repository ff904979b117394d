"""``None`` in a signature is refused by position, never read as float64 (NumPy's
``dtype(None)``) (issue 10)."""

from __future__ import annotations

import pytest

from cudalite import types
from cudalite.core.errors import SignatureError
from cudalite.core.types import as_type, parse_signature


@pytest.mark.parametrize("sig, where", [
    ([None, None], "argument 1 of signature [None, None] is None"),
    ((None,), "argument 1 of signature (None,) is None"),
    ((types.int32, None), "argument 2 of signature"),
    ("void(None)", "argument 1 of signature 'void(None)' is None"),
    ("float32(int32, None)", "argument 2 of signature 'float32(int32, None)' is None"),
    ("(int32, None)", "argument 2 of signature '(int32, None)' is None"),
    ("void(Tuple((int32, None)))", "item 2 of '(int32, None)' in signature"),
    ("void(UniTuple(None, 2))", "item 1 of 'UniTuple(None, 2)' in signature"),
])
def test_none_argument_is_refused_by_position(sig, where):
    with pytest.raises(SignatureError) as info:
        parse_signature(sig)
    assert where in str(info.value)
    assert "None is not a type" in str(info.value)


def test_none_return_type_names_void():
    with pytest.raises(SignatureError, match=r"return type in signature 'None\(int32\)' is None: write void"):
        parse_signature("None(int32)")


def test_none_in_a_type_call_and_as_type():
    with pytest.raises(SignatureError, match="None is not a type"):
        types.float32(None)
    with pytest.raises(SignatureError, match="None is not a type"):
        as_type(None)


def test_the_none_type_itself_still_works():
    assert parse_signature("none(int32)") == (types.none, (types.int32,))
    assert parse_signature("void(int32)") == (types.void, (types.int32,))


def test_none_in_a_signature_object():
    from cudalite.core.types import Signature

    with pytest.raises(SignatureError, match="argument 1 of signature .* is None"):
        parse_signature(Signature(types.void, (None,)))
