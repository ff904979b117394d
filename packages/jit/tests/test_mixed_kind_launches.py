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
from _fake_arrays import BASE, FakeKernel, install_fake_libs, make_source

from cudalite import cuda


class Buffer:
    """A cuda.core ``Buffer`` look-alike."""

    __module__ = "cuda.core._memory"

    def __init__(self, handle, size):
        self.handle, self.size, self.device_id = handle, size, 0


class StridedMemoryView:
    """A cuda.core ``StridedMemoryView`` look-alike (1-d, C-contiguous)."""

    __module__ = "cuda.core.utils"

    def __init__(self, ptr, n):
        self.ptr, self.shape, self.strides, self.dtype = ptr, (n,), None, np.dtype(np.uint8)
        self.is_device_accessible, self.device_id = True, 0


N = 64
KINDS = ("device", "cai", "dlpack", "cupy", "torch", "core-buffer", "core-view")


def _make(kind, ptr):
    if kind == "core-buffer":
        return Buffer(ptr, N)
    if kind == "core-view":
        return StridedMemoryView(ptr, N)
    return make_source(kind, ptr, (N,), (1,), np.uint8)


def _fill(a, x):
    a[0] = x


@pytest.fixture(scope="module")
def fake_libs():
    """One fake torch/CuPy for the module (a torch kind keeps the dtypes of the module it
    was made with, per tensor class)."""
    with pytest.MonkeyPatch.context() as mp:
        install_fake_libs(mp)
        yield


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
