"""On the GPU: cmath's special values (infinite and NaN parts) as CPython gives them, for
exp, tanh, tan, atanh, atan and rect (numba-cuda's test_complex compares with CPython).
Zero signs are not compared (CPython leaves several unspecified); NaN matches NaN."""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest

from cudalite import cuda

pytestmark = pytest.mark.gpu

INF, NAN = math.inf, math.nan
PARTS = [0.0, -0.0, 1.5, -2.0, INF, -INF, NAN]
SPECIAL = [complex(x, y) for x in PARTS for y in PARTS if not (math.isfinite(x) and math.isfinite(y))]


def _same(got, want):
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        if math.isnan(w):
            if not math.isnan(g):
                return False
        elif math.isinf(w) or w == 0.0:
            if g != w:
                return False
        elif not math.isclose(g, w, rel_tol=1e-12):
            return False
    return True


def _cpython(f, z):
    try:
        return f(z)
    except (ValueError, OverflowError):  # CPython raises for a few poles: not compared
        return None


# under the simulator the kernel calls CPython's cmath, which raises for these poles
RAISES = pytest.mark.nosim("compiled math semantics: CPython's math/cmath raise ValueError/OverflowError where "
                           "compiled code returns inf/nan")


@pytest.mark.parametrize("name", [pytest.param("exp", marks=RAISES), pytest.param("tanh", marks=RAISES),
                                  pytest.param("tan", marks=RAISES), "atanh", "atan"])
def test_special_values_match_cpython(name):
    f = getattr(cmath, name)

    @cuda.jit
    def k(z, out):
        i = cuda.grid(1)
        if i < z.size:
            out[i] = f(z[i])

    z = np.array(SPECIAL, np.complex128)
    out = np.zeros_like(z)
    k[1, 64](z, out)
    bad = [(zz, complex(g), w) for zz, g in zip(SPECIAL, out)
           if (w := _cpython(f, zz)) is not None and not _same(complex(g), w)]
    assert not bad, bad


@RAISES
def test_rect_special_values_match_cpython():
    @cuda.jit
    def k(r, phi, out):
        i = cuda.grid(1)
        if i < r.size:
            out[i] = cmath.rect(r[i], phi[i])

    pairs = [(r, p) for r in (0.0, 1.5, INF, -INF) for p in (INF, -INF, NAN, 0.0, 1.0)]
    r = np.array([p[0] for p in pairs])
    phi = np.array([p[1] for p in pairs])
    out = np.zeros(len(pairs), np.complex128)
    k[1, 64](r, phi, out)
    bad = [(rp, complex(g), w) for rp, g in zip(pairs, out)
           if (w := _cpython(lambda a: cmath.rect(*a), rp)) is not None and not _same(complex(g), w)]
    assert not bad, bad
