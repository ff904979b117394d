"""Compile options are validated where they enter (GPU-less): ``cuda.jit``'s on/off
options are bools, and the compiler's options check (:func:`cudalite.nvvm.make_options`,
behind ``cudalite.nvvm.compile_ptx`` and ``cuda.compile_ptx``) refuses a non-bool switch
and unknown fast-math flags, naming the option, instead of taking any value's truth."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda, nvvm


def scale(a, s):
    a[0] = a[0] * s


def add(x, y):
    return x + y


@pytest.mark.parametrize("name", ["debug", "lineinfo", "cache"])
@pytest.mark.parametrize("value", ["no", 1, 0, "False", [True]], ids=repr)
def test_jit_switches_must_be_bools(name, value):
    with pytest.raises(TypeError) as e:
        cuda.jit(**{name: value})(scale)
    assert str(e.value) == f"cuda.jit({name}=...) must be True or False, not {value!r}"


@pytest.mark.parametrize("name, value", [("lineinfo", True), ("lineinfo", np.bool_(False)), ("cache", False),
                                         ("debug", None), ("debug", False), ("cache", None)])
def test_jit_switches_accept_bools(name, value):
    kwargs = {name: value, "opt": False} if name == "debug" else {name: value}
    assert cuda.jit(**kwargs)(scale).py_func is scale


def test_jit_fastmath_unknown_flag():
    with pytest.raises(ValueError, match=r"^Unrecognized fastmath flags: \{'bogus'\} \(known: afn, arcp,"):
        cuda.jit(fastmath={"bogus"})(scale)


def test_one_definition_of_option_values_for_jit_and_compile():
    """cuda.jit and cuda.compile_ptx check fastmath and switches with one function each
    (cudalite.core.option_values): the same error, catchable as numba's ValueError and as a
    TypeError."""
    from cudalite.core.option_values import OptionTypeError

    errors = []
    for make in (lambda kw: cuda.jit(**kw)(scale),
                 lambda kw: cuda.compile_ptx(add, "float32(float32, float32)", device=True, **kw)):
        for kw in ({"fastmath": "yes"}, {"fastmath": {"bogus"}}, {"lineinfo": "no"}):
            with pytest.raises(ValueError) as e:
                make(kw)
            errors.append((type(e.value), str(e.value).replace("cuda.jit(lineinfo=...)", "lineinfo")))
    assert errors[:3] == errors[3:]
    assert errors[0] == (OptionTypeError, "fastmath must be a bool, dict or set of fast-math flag names, not 'yes'")
    assert issubclass(OptionTypeError, TypeError)
    with pytest.raises(TypeError, match=r"debug must be True or False, not 'no'"):
        cuda.compile_all(add, "float32(float32, float32)", debug="no", cc=(9, 0))


@pytest.mark.parametrize("compile_", [
    lambda **kw: nvvm.make_options(**kw),
    lambda **kw: nvvm.compile_ptx(add, "float32(float32, float32)", device=True, **kw),
    lambda **kw: cuda.compile_ptx(add, "float32(float32, float32)", device=True, **kw),
], ids=["make_options", "nvvm.compile_ptx", "cuda.compile_ptx"])
def test_compile_options_check(compile_):
    with pytest.raises(ValueError) as e:
        compile_(fastmath={"bogus"})
    assert str(e.value) == ("Unrecognized fastmath flags: {'bogus'} "
                            "(known: afn, arcp, contract, fast, ninf, nnan, nsz, reassoc)")
    with pytest.raises(ValueError, match=r"^Unrecognized fastmath flags: \{'fsat'\}"):
        compile_(fastmath={"fsat": True, "nnan": True})
    with pytest.raises(TypeError) as e:
        compile_(fastmath="yes")
    assert str(e.value) == "fastmath must be a bool, dict or set of fast-math flag names, not 'yes'"
    for name in ("lineinfo", "debug"):
        with pytest.raises(TypeError) as e:
            compile_(**{name: "no"})
        assert str(e.value) == f"{name} must be True or False, not 'no'"


def test_make_options_switches_and_fastmath_values():
    for name in ("forceinline", "boundscheck", "lineinfo", "debug"):
        with pytest.raises(TypeError, match=rf"^{name} must be True or False, not None$"):
            nvvm.make_options(**{name: None})
    assert nvvm.make_options(fastmath={"nnan"}).fastmath is True
    assert nvvm.make_options(fastmath={"fast": False}).fastmath is False
    assert nvvm.make_options(fastmath=frozenset()).fastmath is False
    assert nvvm.make_options(fastmath=np.bool_(True)).fastmath is True
    assert nvvm.make_options(lineinfo=np.bool_(True), debug=False).lineinfo is True
    assert nvvm.make_options(output="ltoir", forceinline=True).forceinline is True


def test_fastmath_set_compiles_as_fast_math():
    fast, _ = nvvm.compile_ptx(add, "float32(float32, float32)", device=True, fastmath={"contract", "afn"})
    same, _ = nvvm.compile_ptx(add, "float32(float32, float32)", device=True, fastmath=True)
    assert fast == same
