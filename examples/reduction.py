"""A sum reduction in the numba-cuda docs style: each block reduces its slice in
shared memory (a tree of halving strides), then thread 0 adds the block's partial
sum to the result with an atomic.

Runs unmodified under numba-cuda but for the import line.  ``python examples/reduction.py``
"""

import numpy as np

from cudalite import cuda, types

TPB = 256  # threads per block (a power of two)


@cuda.jit
def sum_reduce(arr, result):
    partial = cuda.shared.array(TPB, dtype=types.float64)
    tid = cuda.threadIdx.x

    # Each thread first accumulates a grid-strided slice of the input.
    acc = types.float64(0.)
    for i in range(cuda.grid(1), arr.size, cuda.gridsize(1)):
        acc += arr[i]
    partial[tid] = acc
    cuda.syncthreads()

    # Tree reduction in shared memory.
    s = TPB // 2
    while s > 0:
        if tid < s:
            partial[tid] += partial[tid + s]
        cuda.syncthreads()
        s //= 2

    if tid == 0:
        cuda.atomic.add(result, 0, partial[0])


def main():
    n = 1_000_003
    arr = np.random.default_rng(0).random(n)  # float64
    result = np.zeros(1, dtype=np.float64)

    d_arr = cuda.to_device(arr)
    d_result = cuda.to_device(result)
    sum_reduce[64, TPB](d_arr, d_result)
    got = d_result.copy_to_host()[0]

    np.testing.assert_allclose(got, arr.sum(), rtol=1e-10)
    print("OK")


if __name__ == "__main__":
    main()
