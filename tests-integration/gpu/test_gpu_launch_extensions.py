"""numba-cuda's launch extensions on the GPU (its test_retrieve_autoconverted_arrays):
an extension that wraps host arguments in ``cuda.In`` stops the copy back."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

RECORD = np.dtype([("b", np.int32)], align=True)


class DefaultIn:
    def prepare_args(self, ty, val, **kwargs):
        from cudalite.cuda.args import In, wrap_arg

        return ty, wrap_arg(val, default=In)


def set_array_to_three(arr):
    arr[0] = 3


def set_record_to_three(rec):
    rec[0]["b"] = 3


@pytest.mark.parametrize("fn, host", [(set_array_to_three, lambda: np.zeros(1, np.int64)),
                                      (set_record_to_three, lambda: np.zeros(1, RECORD))])
def test_extension_decides_the_copies(gpu, fn, host):
    from cudalite import cuda

    def value(a):
        return a[0] if a.dtype != RECORD else a[0]["b"]

    plain, nocopy = cuda.jit(fn), cuda.jit(fn)
    nocopy.extensions.append(DefaultIn())  # numba-cuda's kernel.extensions.append
    a = host()
    plain[1, 1](a)
    assert value(a) == 3  # copied back by default
    b = host()
    nocopy[1, 1](b)
    assert value(b) == 0  # the extension made it cuda.In
    c = host()
    plain[1, 1](cuda.In(c))
    assert value(c) == 0
    d = host()
    plain[1, 1](cuda.InOut(d))
    assert value(d) == 3


def test_extension_added_after_launches_applies(gpu):
    from cudalite import cuda

    k = cuda.jit(set_array_to_three)
    a = np.zeros(1, np.int64)
    for _ in range(3):  # the fast path is made here
        k[1, 1](a)
    assert a[0] == 3
    k.extensions.append(DefaultIn())
    b = np.zeros(1, np.int64)
    k[1, 1](b)
    assert b[0] == 0
