"""Kernels built with ``debug=True`` (DWARF, variables described), ``lineinfo=True``
and ``opt=False`` load and compute what NumPy computes; the debug metadata changes
nothing the kernel does."""

from __future__ import annotations

import itertools
import re
import warnings

import numpy as np
import pytest

from cudalite import cuda

pytestmark = pytest.mark.gpu


def _mixed(a, n, out):
    acc = 0.0
    t = (n, 1.5)
    for i in range(n):
        if i == 2:
            continue
        acc += a[i] * t[1]
    c = 1j * acc
    foo = 1
    foo = acc  # noqa: F841  (a variable of two types: a poly union to the debugger)
    flag = acc > 10.0
    out[0] = c.imag
    out[1] = 1.0 if flag else 0.0


def _expected(a, n):
    acc = sum(a[i] * 1.5 for i in range(n) if i != 2)
    return np.array([acc, 1.0 if acc > 10.0 else 0.0])


@pytest.mark.parametrize("opts", [dict(debug=True, opt=False), dict(lineinfo=True), dict(opt=False), {}])
def test_debug_options_do_not_change_results(opts):
    a = np.arange(8, dtype=np.float64)
    out = np.zeros(2)
    k = cuda.jit(**opts)(_mixed)
    k[1, 1](a, 6, out)
    np.testing.assert_allclose(out, _expected(a, 6))


@pytest.mark.nosim("PTX/SASS inspection")
def test_debug_kernel_ptx_has_dwarf_and_lineinfo_has_not():
    a = np.arange(8, dtype=np.float64)
    dbg = cuda.jit(debug=True, opt=False)(_mixed)
    dbg[1, 1](a, 4, np.zeros(2))
    ptx = next(iter(dbg.inspect_asm().values()))
    assert re.search(r"\.section\s+\.debug_info", ptx) and re.search(r"\.target sm_\d+a?, debug", ptx)
    li = cuda.jit(lineinfo=True)(_mixed)
    li[1, 1](a, 4, np.zeros(2))
    ptx = next(iter(li.inspect_asm().values()))
    assert ".loc" in ptx and ", debug" not in ptx and ".debug_info" not in ptx


def test_union_use_case():
    @cuda.jit("void(u8, int64[::1])", debug=True, opt=False)
    def k(arg, results):
        foo = 1
        foo = arg
        if foo < 1:
            foo = 2
            return
        bar = foo == 0
        results[0] = 1 if not bar else 0

    results = cuda.to_device(np.zeros(16, dtype=np.int64))
    k[1, 1](100, results)
    expect = np.zeros(16, dtype=np.int64)
    expect[0] = 1
    np.testing.assert_array_equal(results.copy_to_host(), expect)


@pytest.mark.parametrize("kernel_debug,f1_debug,f2_debug", list(itertools.product((True, False), repeat=3)))
def test_chained_device_functions_with_mixed_debug(kernel_debug, f1_debug, f2_debug):
    @cuda.jit(device=True, debug=f2_debug, opt=False)
    def f2(x):
        return x + 1

    @cuda.jit(device=True, debug=f1_debug, opt=False)
    def f1(x, y):
        return x - f2(y)

    @cuda.jit(debug=kernel_debug, opt=False)
    def kernel(x, y, out):
        out[0] = f1(x, y)
        out[1] = f2(x)

    out = np.zeros(2, dtype=np.int64)
    kernel[1, 1](1, 2, out)
    np.testing.assert_array_equal(out, [1 - 3, 2])


@pytest.mark.nosim("PTX/SASS inspection")
def test_debuginfo_default_from_the_environment(monkeypatch):
    monkeypatch.setenv("CUDALITE_CUDA_DEBUGINFO", "1")

    @cuda.jit(opt=False)
    def k(x):
        x[0] = 7

    x = np.zeros(1, dtype=np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k[1, 1](x)
    assert x[0] == 7
    assert re.search(r"\.section\s+\.debug_info", next(iter(k.inspect_asm().values())))


def test_grid_group_local_in_debug_build():
    @cuda.jit(debug=True, opt=False)
    def k(x):
        g = cuda.cg.this_grid()  # noqa: F841
        x[cuda.grid(1)] = cuda.grid(1)

    x = np.zeros(64, dtype=np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k[2, 32](x)
    np.testing.assert_array_equal(x, np.arange(64))
