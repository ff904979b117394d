"""The error contract through the public compile API (``cudalite.nvvm.compile_ptx``):
cudalite exceptions with ``file:line:col``, the source line and a caret, naming
the types; and tracebacks free of compiler-internal frames.

Python always records the frame that executes ``raise``: the public function
(``compile_ptx``/``compile``, in ``cudalite/nvvm/api.py``) raises the error itself,
so exactly that one frame follows the user's frames; no frame of the compiler's
internals (frontend, inference, lowering, pipeline) remains.
``CUDALITE_FULL_TRACEBACK=1`` keeps every frame for debugging the compiler.
"""

from __future__ import annotations

import linecache
import os
import traceback

import pytest

pytest.importorskip("llvmlite")

import cudalite.core  # noqa: E402
import cudalite.nvvm  # noqa: E402
from cudalite import types  # noqa: E402
from cudalite.core.errors import (  # noqa: E402
    CompilerError, CudaliteError, SignatureError, TypingError, UnsupportedError,
)
from cudalite.nvvm import compile, compile_ptx  # noqa: E402

CORE_SRC = os.path.dirname(os.path.dirname(os.path.abspath(cudalite.core.__file__)))
NVVM_SRC = os.path.dirname(os.path.abspath(cudalite.nvvm.__file__))
API_PY = os.path.join(NVVM_SRC, "api.py")


def internal_frames(exc):
    frames = traceback.extract_tb(exc.__traceback__)
    return [f for f in frames if os.path.abspath(f.filename).startswith((CORE_SRC, NVVM_SRC))]


def assert_user_traceback(exc, public_name):
    frames = traceback.extract_tb(exc.__traceback__)
    assert frames[0].filename == __file__  # the test (user) frame comes first
    inside = internal_frames(exc)
    assert [(os.path.abspath(f.filename), f.name) for f in inside] == [(API_PY, public_name)], frames
    assert frames[-1].name == public_name  # nothing below the public function
    assert exc.__cause__ is None and exc.__suppress_context__


def assert_located(exc, func, offset, snippet):
    line = func.__code__.co_firstlineno + offset
    src = linecache.getline(__file__, line).rstrip("\n")
    col = src.index(snippet)
    text = str(exc).splitlines()
    assert text[0] == f"{__file__}:{line}:{col + 1}"
    assert text[1] == "    " + src.strip()
    assert text[2].index("^") == 4 + col - (len(src) - len(src.lstrip()))
    return text[3]


# -- errors located in the user's code --------------------------------------------------------------
def test_typing_error_through_compile_ptx():
    def bad(t):
        return t + 1.5

    with pytest.raises(TypingError) as info:
        compile_ptx(bad, (types.UniTuple(types.int32, 2),), device=True)
    err = info.value
    msg = assert_located(err, bad, 1, "t + 1.5")
    assert msg == "TypingError: unsupported operand types for +: UniTuple(int32 x 2) and float64"
    assert_user_traceback(err, "compile_ptx")


def test_unsupported_error_through_compile_ptx():
    def bad(x):
        with x:
            pass

    with pytest.raises(UnsupportedError) as info:
        compile_ptx(bad, "void(int32)")
    assert "'with' statements" in assert_located(info.value, bad, 1, "with")
    assert_user_traceback(info.value, "compile_ptx")


def callee(x, y):
    return x + y


def test_wrong_argument_count_through_compile():
    def bad(x):
        return callee(x)

    with pytest.raises(TypingError) as info:
        compile(bad, "float32(float32)", device=True)
    assert "callee() takes 2 argument(s) but 1 were given" in assert_located(info.value, bad, 1, "callee(x)")
    assert_user_traceback(info.value, "compile")


def test_unknown_global_through_compile_ptx():
    def bad(x):
        return x * missing_global  # noqa: F821

    with pytest.raises(TypingError) as info:
        compile_ptx(bad, (types.float32,), device=True)
    assert "'missing_global' is not defined" in assert_located(info.value, bad, 1, "missing_global")
    assert_user_traceback(info.value, "compile_ptx")


def test_error_in_a_nested_device_function():
    def inner(t):
        return t * 2.0

    def outer(x):
        return inner((x, x))

    with pytest.raises(TypingError) as info:
        compile_ptx(outer, "void(int32)")
    assert_located(info.value, inner, 1, "t * 2.0")
    assert "return inner((x, x))" in str(info.value)  # the call site, as a note
    assert_user_traceback(info.value, "compile_ptx")


# -- signatures and entry points ---------------------------------------------------------------------
def kernel_returning(x):
    return x


@pytest.mark.parametrize("sig, needle", [
    ("float32(", "cannot parse signature 'float32('"),
    ("foo(int32)", "unknown type name 'foo'"),
    ("int32", "must look like 'rettype(argtypes...)'"),
    ("void(float32[::2])", "invalid type in signature"),
])
def test_bad_signature_points_at_the_function(sig, needle):
    with pytest.raises(SignatureError) as info:
        compile_ptx(kernel_returning, sig, device=True)
    err = info.value
    text = str(err).splitlines()
    assert text[0] == f"{__file__}:{kernel_returning.__code__.co_firstlineno}:1"
    assert text[1] == "    def kernel_returning(x):"
    assert text[2] == "    ^"
    assert text[3].startswith("SignatureError: ") and needle in text[3]
    assert isinstance(err, CudaliteError) and isinstance(err, TypeError)
    assert_user_traceback(err, "compile_ptx")


def test_kernel_with_a_declared_return_value_is_an_error():
    with pytest.raises(SignatureError, match="kernels must return void, but the signature declares int32"):
        compile_ptx(kernel_returning, "int32(int32)", device=False)


def test_kernel_returning_a_value_is_an_error():
    with pytest.raises(CompilerError) as info:
        compile_ptx(kernel_returning, (types.int32,), device=False)
    msg = assert_located(info.value, kernel_returning, 1, "return x")
    assert "returns a int32 value; kernels must return None" in msg
    assert_user_traceback(info.value, "compile_ptx")


def test_c_abi_kernel_is_an_error():
    def kernel(a):
        a[0] = 1

    msg = (r"^The C ABI is not supported for kernels: the C ABI is for device functions only; "
           r"compile kernels with abi='numba'$")  # numba-cuda's exception type and words, then cudalite's
    with pytest.raises(NotImplementedError, match=msg):
        compile_ptx(kernel, "void(float32[:])", device=False, abi="c")
    with pytest.raises(NotImplementedError, match=msg):
        compile(kernel, "void(float32[:])", device=False)  # compile's default abi is 'c'


def test_full_traceback_keeps_internal_frames(monkeypatch):
    def bad(t):
        return t + 1.5

    monkeypatch.setenv("CUDALITE_FULL_TRACEBACK", "1")
    with pytest.raises(TypingError) as info:
        compile_ptx(bad, (types.UniTuple(types.int32, 2),), device=True)
    inside = internal_frames(info.value)
    assert len(inside) > 2
    assert any("_infer.py" in f.filename for f in inside)


def test_valid_function_still_compiles():
    ptx, resty = compile_ptx(callee, "float32(float32, float32)", device=True)
    assert resty == types.float32
    assert ".visible .func" in ptx
