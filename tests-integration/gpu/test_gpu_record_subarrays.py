"""GPU: records with sub-array fields against NumPy -- element reads and writes
(``r.h[i]``, ``r['j'][i, k]``), whole-field copies and fills, records passed as
scalars (copied back) and in arrays (numba-cuda's test_record_dtype programs)."""

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

WITH_1D = np.dtype([("g", np.int32), ("h", np.float32, 2)], align=True)
WITH_2D = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])
ALIGNED = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64), ("d", (np.uint8, 5))], align=True)


@pytest.fixture
def cuda(gpu):
    from cudalite import cuda

    return cuda


def test_write_and_read_elements_of_a_record_scalar(cuda):
    @cuda.jit
    def k(r, out):
        r.i = 3
        r.j[2, 1] = 10.0
        r["j"][0, 0] = 5.0
        out[0] = r.j[1, 0]
        out[1] = r.j.size

    rec = np.zeros(1, WITH_2D)[0]
    rec["j"][1, 0] = 7.5
    out = np.zeros(2, np.float32)
    k[1, 1](rec, out)
    expected = np.zeros(1, WITH_2D)[0]
    expected["i"] = 3
    expected["j"][:] = [[5.0, 0.0], [7.5, 0.0], [0.0, 10.0]]
    np.testing.assert_equal(rec, expected)
    np.testing.assert_equal(out, [7.5, 6.0])


def test_whole_field_copy_and_fill(cuda):
    @cuda.jit
    def k(src, dst, fill):
        dst["j"] = src["j"]
        fill.h = 2.5

    src = np.zeros(1, WITH_2D)[0]
    src["j"][:] = np.arange(6, dtype=np.float32).reshape(3, 2) + 1
    dst = np.zeros(1, WITH_2D)[0]
    fill = np.zeros(1, WITH_1D)[0]
    k[1, 1](src, dst, fill)
    np.testing.assert_equal(dst["j"], src["j"])
    np.testing.assert_equal(fill["h"], [2.5, 2.5])


def test_array_of_records_with_a_sub_array(cuda):
    @cuda.jit
    def k(ary, i, v):
        ary[i].d[4] = v
        ary[i]["a"] = ary[i].d[0] + ary[i].b

    ary = np.zeros(3, ALIGNED)
    for n in range(3):
        ary[n]["b"] = n + 1
        ary[n]["d"][0] = 10 * n
    expected = ary.copy()
    expected[1]["d"][4] = 200
    expected[1]["a"] = 10 + 2
    k[1, 1](ary, 1, np.uint8(200))
    np.testing.assert_equal(ary, expected)


def test_assign_array_to_nested_field(cuda):
    dt = np.dtype([("array1", np.int16, (3,))], align=True)

    @cuda.jit
    def k(dest, src):
        dest["array1"] = src

    got = np.zeros(2, dt)
    k[1, 1](got[0], (np.arange(3) + 1).astype(np.int16))
    np.testing.assert_equal(got["array1"], [[1, 2, 3], [0, 0, 0]])
