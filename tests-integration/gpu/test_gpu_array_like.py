"""On the GPU: ``*_array_like`` of a non-contiguous device array lays the new array out
as NumPy's ``zeros_like`` (order 'K') would: an F-ordered view gives an F-ordered array."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("like", [cuda.device_array_like, cuda.pinned_array_like, cuda.mapped_array_like])
@pytest.mark.parametrize("order", ["C", "F"])
def test_like_of_a_strided_view_matches_numpy(like, order):
    shape = (10, 12)
    view = np.zeros(shape, order=order)[::2, ::2]
    d_view = cuda.device_array(shape, order=order)[::2, ::2]
    new = like(d_view)
    ref = np.zeros_like(view)
    assert new.shape == ref.shape and new.strides == ref.strides
    assert new.flags["C_CONTIGUOUS"] == ref.flags["C_CONTIGUOUS"]
    assert new.flags["F_CONTIGUOUS"] == ref.flags["F_CONTIGUOUS"]


@pytest.mark.parametrize("maker", ["carray", "farray"])
@pytest.mark.nosim("raw device pointers: carray/farray over a device address")
def test_carray_over_a_device_pointer_passed_as_an_int(maker):
    from cudalite import types

    make = getattr(cuda, maker)

    @cuda.jit(types.void(types.CPointer(types.float32)))
    def add(a_ptr):
        a = make(a_ptr, (1,), dtype=cuda.float32)
        a[0] += 1.25

    d = cuda.to_device(np.array([0.5], dtype=np.float32))
    add[1, 1](int(d.gpu_data.device_pointer))
    assert d.copy_to_host()[0] == np.float32(1.75)
