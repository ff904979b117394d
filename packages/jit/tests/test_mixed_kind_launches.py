"""One kernel launched with every ordered pair of argument kinds that give the same type
key (a 1-d C-contiguous uint8 array): device arrays, CUDA-array-interface objects,
DLPack-only producers, CuPy and torch look-alikes, cuda.core Buffers and
StridedMemoryViews.  The generated launcher made for one kind must never take an
argument of another (each launch passes that argument's own pointer) and must never
raise from reading it (a guard once checked a cuda.core Buffer by its key alone and
then read ``handle`` from a device array: an AttributeError).  GPU-less: the compiled
kernel is a recording stand-in."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _fake_arrays import BASE, CoreBuffer, CoreView, FakeKernel, install_fake_libs, make_source

from cudalite import cuda


N = 64
KINDS = ("device", "cai", "dlpack", "cupy", "torch", "core-buffer", "core-view")


def _make(kind, ptr):
    if kind == "core-buffer":
        return CoreBuffer(ptr, N)
    if kind == "core-view":
        return CoreView(ptr, N)
    return make_source(kind, ptr, (N,), (1,), np.uint8)


def _fill(a, x):
    a[0] = x


@pytest.fixture(scope="module")
def fake_libs():
    """One fake torch/CuPy for the module (a torch kind keeps the dtypes of the module it
    was made with, per tensor class): the runtime's kinds are made anew for the module
    and dropped after it, so tests with their own fake modules, before or after, make theirs."""
    from cudalite.cuda._runtime.record import jit_runtime

    kinds = jit_runtime().kinds
    saved = dict(kinds)
    kinds.clear()  # (kinds made before, with other fake modules, are not this module's)
    with pytest.MonkeyPatch.context() as mp:
        install_fake_libs(mp)
        yield
    kinds.clear()
    kinds.update(saved)


@pytest.mark.parametrize("first, second", list(itertools.permutations(KINDS, 2)))
def test_a_launcher_takes_only_its_own_kind(first, second, fake_libs, monkeypatch):
    import cudalite.cuda._dispatch.kernel as D

    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    calls = []
    k = cuda.jit(_fill)
    k._compiler = lambda pyfunc, argtypes, opts, cc: FakeKernel(argtypes, calls)
    launched = []
    for i, kind in enumerate((first, first, second, first, second)):  # repeats run the generated launcher
        ptr = BASE + 4096 * i
        k[1, 1](_make(kind, ptr), 1.0)
        launched.append(ptr)
    assert [c[0] for c in calls] == launched


def _fill2(a, x):
    a[0, 0] = x


@pytest.mark.parametrize("first, second", list(itertools.permutations(KINDS[:5], 2)))
@pytest.mark.parametrize("strides", [(32, 4), (4, 16), (64, 8)])  # C, F, neither (every other column)
def test_2d_float_arrays_of_every_kind_keep_their_own_launcher(first, second, strides, fake_libs, monkeypatch):
    """The same for 2-d float32 arrays in each layout (the kinds with strides)."""
    import cudalite.cuda._dispatch.kernel as D

    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    calls = []
    k = cuda.jit(_fill2)
    k._compiler = lambda pyfunc, argtypes, opts, cc: FakeKernel(argtypes, calls)
    launched = []
    for i, kind in enumerate((first, first, second, first, second)):
        ptr = BASE + 4096 * i
        k[1, 1](make_source(kind, ptr, (4, 8), strides, np.float32), 1.0)
        launched.append(ptr)
    assert [c[0] for c in calls] == launched


class _NoTypestr:
    __cuda_array_interface__ = {"version": 3, "shape": (4,), "data": (BASE, False)}


class _CupyWithoutDtype:
    __module__ = "cupy"

    def __init__(self):
        self.data, self.strides, self.shape, self.ndim = None, (4,), (4,), 1


@pytest.mark.parametrize("obj, what", [(_NoTypestr(), "KeyError: 'typestr'"),
                                       (_CupyWithoutDtype(), "AttributeError")])
def test_a_malformed_foreign_array_is_a_type_error_naming_the_argument(obj, what, fake_libs, monkeypatch):
    """Reading a broken array interface raises a TypeError that names the kernel, the
    parameter and the object's class, with what failed -- not the KeyError/AttributeError
    from inside the launch code."""
    import cudalite.cuda._dispatch.kernel as D

    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    k = cuda.jit(_fill)
    k._compiler = lambda pyfunc, argtypes, opts, cc: FakeKernel(argtypes, [])
    with pytest.raises(TypeError, match=r"_fill\(\): argument 'a' \(a .*" + type(obj).__qualname__) as err:
        k[1, 1](obj, 1.0)
    assert what in str(err.value) and isinstance(err.value.__cause__, (KeyError, AttributeError))


@pytest.mark.parametrize("obj, what", [(_NoTypestr(), "KeyError: 'typestr'"),
                                       (_CupyWithoutDtype(), "AttributeError")])
def test_typeof_of_a_malformed_foreign_array_is_a_type_error(obj, what, fake_libs):
    """``cuda.typeof`` of a broken array interface: a TypeError naming the class and what
    failed, not the KeyError/AttributeError of reading it."""
    with pytest.raises(TypeError, match="cannot determine the cudalite type of .*" + type(obj).__qualname__) as err:
        cuda.typeof(obj)
    assert what in str(err.value)
