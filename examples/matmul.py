"""Matrix multiplication with shared memory, as in the numba-cuda docs
("fast_matmul"): each block computes a TPB x TPB tile of C, staging tiles of A and B
in shared memory.

Runs unmodified under numba-cuda but for the import line.  ``python examples/matmul.py``
"""

import numpy as np

from cudalite import cuda, types

# Controls threads per block and shared memory usage.
# The computation will be done on blocks of TPBxTPB elements.
TPB = 16


@cuda.jit
def fast_matmul(A, B, C):
    # Define an array in the shared memory
    # The size and type of the arrays must be known at compile time
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=types.float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=types.float32)

    x, y = cuda.grid(2)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x  # blocks per grid

    # Each thread computes one element in the result matrix.
    # The dot product is chunked into dot products of TPB-long vectors.
    tmp = types.float32(0.)
    for i in range(bpg):
        # Preload data into shared memory
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]

        # Wait until all threads finish preloading
        cuda.syncthreads()

        # Computes partial product on the shared memory
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]

        # Wait until all threads finish computing
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


def main():
    n = 500  # not a multiple of TPB: the guards matter
    rng = np.random.default_rng(0)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)

    d_a = cuda.to_device(a)
    d_b = cuda.to_device(b)
    d_c = cuda.device_array((n, n), dtype=np.float32)

    threadsperblock = (TPB, TPB)
    blockspergrid = ((n + TPB - 1) // TPB, (n + TPB - 1) // TPB)
    fast_matmul[blockspergrid, threadsperblock](d_a, d_b, d_c)

    c = d_c.copy_to_host()
    np.testing.assert_allclose(c, a @ b, rtol=1e-4)
    print("OK")


if __name__ == "__main__":
    main()
