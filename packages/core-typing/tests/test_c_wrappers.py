"""C-level wrappers (no ``__code__``) at the entry points: the function down the
``__wrapped__`` chain is compiled, with a SourceWarning naming both; an object that
is not a function and wraps none is a TypeError."""

from __future__ import annotations

import functools

import pytest

from cudalite.core.errors import SourceWarning
from cudalite.core.frontend import python_function


def scale(x):
    return x * 3


def test_plain_function_is_itself_without_a_warning(recwarn):
    assert python_function(scale) is scale
    assert not [w for w in recwarn if issubclass(w.category, SourceWarning)]


def test_c_wrapper_gives_the_wrapped_function_with_a_warning():
    cached = functools.lru_cache(scale)
    assert not hasattr(cached, "__code__")
    with pytest.warns(SourceWarning, match=r"compiles scale \(its __wrapped__\) in place of the wrapper"):
        assert python_function(cached) is scale


def test_not_a_function_is_a_type_error():
    with pytest.raises(TypeError, match="expected a Python function"):
        python_function(len)
    with pytest.raises(TypeError, match="cannot jit-compile 42"):
        python_function(42, "jit-compile")
