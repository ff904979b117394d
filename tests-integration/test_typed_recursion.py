"""Typed recursion without a GPU (numba-cuda's test_recursion cases): self- and
mutually recursive device functions, with explicit signatures or with the return
type inferred from the non-recursive return paths, compile to PTX; the recursive
call is a call of the function itself (declared before it is defined).  Runaway
recursion is a located TypingError, never a RecursionError.  The GPU suite runs
them (tests-integration/gpu/test_gpu_ssa_typing.py)."""

from __future__ import annotations

import re

import pytest

from cudalite import cuda, nvvm
from cudalite.core.errors import TypingError
from cudalite.nvvm.api import EntrySpec, make_options, run_pipeline


@cuda.jit("i8(i8)", device=True)
def fib1(n):  # compiled (typed) while it decorates: its own name is not bound yet
    if n < 2:
        return n
    return fib1(n - 1) + fib1(n - 2)


def make_fib2():
    @cuda.jit("i8(i8)", device=True)
    def fib2(n):
        if n < 2:
            return n
        return fib2(n - 1) + fib2(n=n - 2)

    return fib2


fib2 = make_fib2()


def fib3(n):
    if n < 2:
        return n
    return fib3(n - 1) + fib3(n - 2)


def fib_ternary(n):
    return n if n < 2 else fib_ternary(n - 1) + fib_ternary(n - 2)


def type_change_self(x, y):
    if x > 1 and y > 0:
        return x + type_change_self(x - y, y)
    else:
        return y


def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


def recursive_first(n):
    if n > 0:
        return recursive_first(n - 1) * 0.5  # the base case comes later in the source
    return 1


def runaway_self(x):
    return runaway_self(x)


def runaway_mutual_a(x):
    return runaway_mutual_b(x)


def runaway_mutual_b(x):
    return runaway_mutual_a(x)


def kernel_fibs(out, n):
    out[0] = fib1(n)
    out[1] = fib2(n)
    out[2] = fib3(n)
    out[3] = fib_ternary(n)
    out[4] = type_change_self(n, 3)
    out[5] = is_even(n)
    out[6] = recursive_first(n)


def _ir_and_types(func, sig, device=False):
    res = run_pipeline(func, sig, EntrySpec(device=device), make_options(), until="nvvm-ir")
    return str(res.artifacts["nvvm-ir"]), str(res.artifacts["typed-ir"])


@pytest.mark.parametrize("func, rt", [
    (fib3, "int64"), (fib_ternary, "int64"), (recursive_first, "float64"), (is_even, "bool"),
])
def test_inferred_recursion_return_type(func, rt):
    text, typed = _ir_and_types(func, (nvvm_types_int64(),), device=True)
    assert typed.splitlines()[0].endswith(f"-> {rt}")
    name = re.search(r'define internal \S+ @"([^"]+)"', text).group(1)
    body = text[text.index(f'@"{name}"('):]
    body = body[:body.index("\n}")]
    callee = is_odd if func is is_even else func
    assert f"{callee.__name__}" in body and "call " in body


def nvvm_types_int64():
    from cudalite import types

    return types.int64


def test_explicit_signature_self_recursion_compiles_while_decorating():
    assert list(fib1.overloads) == [(nvvm_types_int64(),)]
    ptx, rt = nvvm.compile_ptx(fib1.py_func, "int64(int64)", device=True, cc=(9, 0))
    assert str(rt) == "int64" and ".func" in ptx


def test_kernel_calling_every_kind_of_recursion_compiles():
    ptx, _ = nvvm.compile_ptx(kernel_fibs, "void(float64[::1], int64)", cc=(9, 0))
    assert ".entry" in ptx and "call.uni" in ptx


@pytest.mark.parametrize("func, message", [
    (runaway_self, "cannot infer the return type of the recursive function runaway_self(int64)"),
    (runaway_mutual_a, "cannot infer the return type of the recursive function runaway_mutual_a(int64)"),
])
def test_runaway_recursion_is_a_located_error(func, message):
    with pytest.raises(TypingError) as info:
        nvvm.compile_ptx(func, (nvvm_types_int64(),), device=True, cc=(9, 0))  # return type inferred
    assert message in str(info.value)
    assert info.value.loc is not None and info.value.loc.filename == __file__
