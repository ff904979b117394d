"""``cuda.make_tensor_map(array, box)``: the host side of TMA copies (cc >= 9.0).

The descriptor (a 128-byte ``CUtensorMap``, see :mod:`cudalite.driver.tensormap`) is
built from the array's address, shape and strides, and placed in device memory in a
small array that keeps the described array alive; kernels pass that array to
``cuda.tma.load`` (docs/tensorcores.md).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from cudalite.driver.tensormap import encode_tensor_map

from .api import as_cuda_array, to_device

if TYPE_CHECKING:  # annotations only
    from ..devicearray import DeviceNDArray

__all__ = ["make_tensor_map"]


def make_tensor_map(array: Any, box: tuple[int, ...], swizzle: int = 0) -> DeviceNDArray:
    """A TMA descriptor of ``array`` for copies of ``box``-shaped tiles.

    Parameters
    ----------
    array : DeviceNDArray or CUDA-array-interface object
        The tensor in device memory, C-contiguous rows (its innermost stride is the item
        size; the others multiples of 16 bytes), 1 to 5 dimensions.
    box : tuple of int
        The tile shape one ``cuda.tma.load`` copies, in array index order (each extent
        1 to 256; the innermost times the item size a multiple of 16 bytes).
    swizzle : int, optional
        0 (default), 32, 64 or 128: the swizzle pattern the tile gets in shared memory.

    Returns
    -------
    DeviceNDArray
        128 bytes (uint8) holding the descriptor; pass it to the kernel.

    Raises
    ------
    ValueError
        The array or the box breaks a rule above.
    """

    import numpy as np


    arr = as_cuda_array(array)
    dtype, own = arr.dtype, getattr(array, "dtype", None)
    if dtype.kind == "V" and not dtype.fields and isinstance(own, np.dtype) and own.itemsize == dtype.itemsize:
        dtype = own  # bfloat16, fp8 (ml_dtypes): the interface's typestr is "<V2"/"|V1", the array says which
    box = (box,) if isinstance(box, int) else tuple(int(b) for b in box)
    raw = encode_tensor_map(arr._ptr, dtype, arr.shape, arr.strides, box, swizzle)
    desc = to_device(np.frombuffer(raw, np.uint8).copy())
    weakref.finalize(desc, _keep, arr)  # the described memory lives as long as the descriptor
    return desc


def _keep(_array) -> None:
    """Nothing: a finalizer holding the described array until the descriptor dies."""
