"""saxpy in the numba-cuda docs style: out = a * x + y, one thread per element.

Runs unmodified under numba-cuda but for the import line.  ``python examples/saxpy.py``
"""

import numpy as np

from cudalite import cuda


@cuda.jit
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def main():
    n = 1 << 20
    a = np.float32(2.0)
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)

    d_x = cuda.to_device(x)
    d_y = cuda.to_device(y)
    d_out = cuda.device_array_like(x)

    threads_per_block = 256
    blocks_per_grid = (n + threads_per_block - 1) // threads_per_block
    saxpy[blocks_per_grid, threads_per_block](d_out, a, d_x, d_y)

    out = d_out.copy_to_host()
    np.testing.assert_allclose(out, a * x + y, rtol=1e-6)
    print("OK")


if __name__ == "__main__":
    main()
