"""``transpose(a, b=None)``: numba-cuda's documented ``numba.cuda.kernels.transpose``.

A 2-d array is transposed on the device through shared-memory tiles (32 x 32, one
padding column so a tile's column reads hit distinct banks): each block reads a tile
of ``a`` row by row (coalesced) and writes it to ``b`` row by row, transposed in shared
memory.  Any element type a kernel can copy works: numbers, booleans, records (nested
arrays included).  The kernel is compiled once per dtype.
"""

from __future__ import annotations

import functools

import numpy as np

from cudalite.core.types import from_dtype

from .. import blockIdx, device_array, is_cuda_array, jit, shared, syncthreads, threadIdx, to_device

__all__ = ["transpose"]

TILE = 32


@functools.lru_cache(maxsize=64)
def _kernel(dtype):
    elem = from_dtype(dtype)

    @jit
    def transpose_kernel(src, dst):
        tile = shared.array((TILE, TILE + 1), dtype=elem)
        tx = threadIdx.x
        ty = threadIdx.y
        row0 = blockIdx.y * TILE  # the tile's first row of src
        col0 = blockIdx.x * TILE
        if row0 + ty < src.shape[0] and col0 + tx < src.shape[1]:
            tile[ty, tx] = src[row0 + ty, col0 + tx]
        syncthreads()
        # dst[c, r] = src[r, c]: this thread writes dst[col0 + ty, row0 + tx]
        if col0 + ty < dst.shape[0] and row0 + tx < dst.shape[1]:
            dst[col0 + ty, row0 + tx] = tile[tx, ty]

    return transpose_kernel


def transpose(a, b=None):
    """The transpose of a 2-d array, computed on the device.

    Parameters
    ----------
    a : DeviceNDArray or array-like
        The 2-d array; a host array is copied to the device first.  The work is
        queued on its stream (a device array's ``stream``, else the default stream).
    b : DeviceNDArray, optional
        Where to write the transpose: a device array of shape ``a.shape[::-1]`` and
        ``a``'s dtype.  Made (uninitialized, on ``a``'s stream) when not given.

    Returns
    -------
    DeviceNDArray
        ``b``, holding ``a.T``.

    Raises
    ------
    ValueError
        ``a`` is not 2-d, or ``b`` has the wrong shape.
    TypeError
        ``b``'s dtype is not ``a``'s.
    """

    if not is_cuda_array(a):
        a = to_device(np.asarray(a))
    stream = getattr(a, "stream", 0)
    if len(a.shape) != 2:
        raise ValueError(f"transpose() takes a 2-d array, not one of shape {tuple(a.shape)}")
    rows, cols = a.shape
    if b is None:
        b = device_array((cols, rows), dtype=a.dtype, stream=stream)
    elif tuple(b.shape) != (cols, rows):
        raise ValueError(f"transpose(): b must have shape {(cols, rows)}, not {tuple(b.shape)}")
    elif np.dtype(b.dtype) != np.dtype(a.dtype):
        raise TypeError(f"transpose(): b's dtype {b.dtype} differs from a's {a.dtype}")
    if rows and cols:
        grid = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
        _kernel(np.dtype(a.dtype))[grid, (TILE, TILE), stream](a, b)
    return b
