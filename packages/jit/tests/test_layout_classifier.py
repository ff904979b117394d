"""GPU-less: one layout classifier (``_array_layout.layout_of``, NumPy's relaxed rule)
for every array source -- it agrees with NumPy's own flags, and every handler's type
key (DeviceNDArray, CAI, DLPack, NumPy, CuPy, torch) carries its answer.

Regression: a (1, 5) array with strides (4, 4) is C-contiguous (NumPy's rule: the
stride of a size-1 extent is irrelevant); CAI and DLPack objects were classified 'F',
so an eager ``float32[:, ::1]`` kernel rejected them ("No matching definition")."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cudalite import cuda
from cudalite.core.abi import kernel_abi
from cudalite.core.types import float32
from cudalite.cuda._memory import layout as L
from cudalite.cuda._launch.keys import compatible, key_to_type

from _fake_arrays import BASE, SOURCES, FakeKernel, handler, install_fake_libs, make_source, numpy_layout

DTYPES = {1: np.int8, 2: np.float16, 4: np.float32, 8: np.float64, 16: np.complex128}


@pytest.fixture
def fake_libs(monkeypatch):
    install_fake_libs(monkeypatch)


@st.composite
def memory_layouts(draw, min_ndim=0):
    """(shape, byte strides, itemsize): contiguous ones, perturbed ones (size-1 and
    empty extents with odd strides) and random ones, negative and zero strides included."""
    ndim = draw(st.integers(min_ndim, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    itemsize = draw(st.sampled_from(sorted(DTYPES)))
    base = draw(st.sampled_from(["C", "F", "random"]))
    if base == "C":
        strides = list(L.c_strides(shape, itemsize))
    elif base == "F":
        strides = list(L.f_strides(shape, itemsize))
    else:
        strides = [draw(st.integers(-4, 8)) * itemsize for _ in shape]
    for i in draw(st.lists(st.integers(0, max(ndim - 1, 0)), max_size=2)) if ndim else ():
        strides[i] = draw(st.integers(-4, 24)) * itemsize
    return shape, tuple(strides), itemsize


@settings(max_examples=600, deadline=None)
@given(memory_layouts())
def test_layout_of_is_numpys_rule(case):
    shape, strides, itemsize = case
    assert L.layout_of(shape, strides, itemsize) == numpy_layout(shape, strides, DTYPES[itemsize])


@pytest.mark.parametrize("shape, strides, layout", [
    ((5,), (4,), "C"), ((5,), (8,), "A"), ((5,), (-4,), "A"), ((1,), (100,), "C"), ((0,), (8,), "C"),
    ((1, 5), (4, 4), "C"), ((5, 1), (4, 4), "C"), ((5, 1), (4, 100), "C"), ((1, 5), (0, 4), "C"),
    ((3, 5), (4, 12), "F"), ((3, 1, 5), (4, 0, 12), "F"), ((3, 5), (40, 4), "A"), ((0, 3), (-4, 100), "C"),
    ((1, 1), (0, 0), "C"), ((), (), "C"),
])
def test_layout_table(shape, strides, layout):
    assert L.layout_of(shape, strides, 4) == layout == numpy_layout(shape, strides, np.float32)


@settings(max_examples=200, deadline=None)
@given(memory_layouts(min_ndim=1))
def test_every_source_keys_by_the_one_classifier(case):
    shape, strides, itemsize = case
    dtype = np.dtype(DTYPES[itemsize])
    want = (dtype, len(shape), numpy_layout(shape, strides, dtype))
    with pytest.MonkeyPatch.context() as mp:
        install_fake_libs(mp)
        for kind in SOURCES:
            if kind == "cai-nostrides":
                continue
            obj = make_source(kind, BASE, shape, strides, dtype)
            assert handler(obj).key(obj) == want, kind


def test_cai_without_strides_is_C(fake_libs):
    obj = make_source("cai-nostrides", BASE, (1, 5), None, np.float32)
    assert handler(obj).key(obj) == (np.dtype(np.float32), 2, "C")


@pytest.mark.parametrize("kind", [k for k in SOURCES if k != "cai-nostrides"])
def test_size_one_extent_with_odd_stride_is_C(fake_libs, kind):
    obj = make_source(kind, BASE, (1, 5), (4, 4), np.float32)
    key = handler(obj).key(obj)
    assert key == (np.dtype(np.float32), 2, "C")
    assert compatible(key, float32[:, ::1]) == 1
    assert kernel_abi((key_to_type(key),)).param_format == "Qqq"


def first_row(a):
    a[0, 0] = 1.0


@pytest.mark.parametrize("kind", ["cai", "dlpack"])
def test_eager_C_kernel_accepts_a_size_one_extent_with_odd_stride(monkeypatch, kind, fake_libs):
    import cudalite.cuda._dispatch.kernel as D

    calls = []
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    k = cuda.jit(first_row)
    k._compiler = lambda pyfunc, argtypes, opts, cc: FakeKernel(argtypes, calls)
    k._eager = True
    k.compile("void(float32[:, ::1])")
    obj = make_source(kind, BASE, (1, 5), (4, 4), np.float32)
    k[1, 1](obj)  # was: TypeError: No matching definition
    assert calls == [(BASE, 1, 5)]
    with pytest.raises(TypeError, match="No matching definition"):  # a real 'F' array still is not C
        k[1, 1](make_source(kind, BASE, (3, 5), (4, 12), np.float32))
