"""Use the extension in a kernel (no link= anywhere) and check it against NumPy."""

import numpy as np

from cudalite import cuda
from polyext import horner


@cuda.jit
def apply(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = horner(x[i])


for dtype in (np.float32, np.float64):
    x = np.linspace(-2, 2, 10_000).astype(dtype)
    out = np.zeros_like(x)
    apply[(x.size + 255) // 256, 256](x, out)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)  # p(x) crosses 0
    np.testing.assert_allclose(out, horner(x.astype(np.float64)), **tol)
print("extension OK")
