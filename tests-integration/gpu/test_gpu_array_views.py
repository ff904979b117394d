"""GPU: element-reinterpreting array views against NumPy -- atomics on a complex
array's ``.real`` / ``.imag`` and ``arr.view(dtype)`` of byte slices."""

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture
def cuda(gpu):
    from cudalite import cuda

    return cuda


def test_atomics_on_complex_components(cuda):
    @cuda.jit
    def bump(values):
        i = cuda.grid(1)
        cuda.atomic.add(values.real, i, 1)
        cuda.atomic.add(values.imag, i, 2)

    n = 32
    a = np.arange(n) + np.arange(n) * 1j
    got = a.copy()
    bump[1, n](got)
    np.testing.assert_array_equal(got, a + 1 + 2j)


def test_view_of_byte_slices(cuda):
    @cuda.jit
    def first_int(byte_arr, start, stop, out):
        out[0] = byte_arr[start:stop].view(np.int32)[0]

    data = np.arange(64, dtype=np.uint8)
    for start in range(0, 64, 4):
        out = np.zeros(1, np.int32)
        first_int[1, 1](data, start, start + 4, out)
        assert out[0] == data[start:start + 4].view(np.int32)[0]


@pytest.mark.nosim("compiled-code error semantics: the simulated kernel raises Python's own errors")
def test_view_that_does_not_fit_raises_under_debug(cuda):
    @cuda.jit(debug=True, opt=False)
    def bad(byte_arr, out):
        out[0] = byte_arr[0:3].view(np.int32)[0]

    with pytest.raises(ValueError, match="new type not compatible with array"):
        bad[1, 1](np.arange(8, dtype=np.uint8), np.zeros(1, np.int32))
