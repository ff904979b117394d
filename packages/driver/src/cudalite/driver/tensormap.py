"""Tensor-map descriptors for the Tensor Memory Accelerator (cc >= 9.0).

``encode_tensor_map(address, dtype, shape, byte_strides, box)`` builds the 128-byte
``CUtensorMap`` (``cuTensorMapEncodeTiled``) describing a tiled view of an n-d array in
device memory: a kernel's ``cp.async.bulk.tensor`` copies one ``box`` of it to shared
memory per call.  Shapes, strides and boxes are given in array index order (outermost
first, as NumPy's); the driver's innermost-first order is made here.
"""

from __future__ import annotations

from ._cu import call, cu

__all__ = ["encode_tensor_map", "TENSOR_MAP_DTYPES"]

# NumPy dtype name -> CUtensorMapDataType suffix
# (bfloat16 and the 8-bit floats: ml_dtypes' names; the copy engine moves fp8 as bytes)
TENSOR_MAP_DTYPES = {"uint8": "UINT8", "int8": "UINT8", "bool": "UINT8", "uint16": "UINT16", "int16": "UINT16",
                     "uint32": "UINT32", "int32": "INT32", "uint64": "UINT64", "int64": "INT64",
                     "float16": "FLOAT16", "bfloat16": "BFLOAT16", "float32": "FLOAT32", "float64": "FLOAT64",
                     "float8_e4m3fn": "UINT8", "float8_e5m2": "UINT8"}


def encode_tensor_map(address, dtype, shape, byte_strides, box, swizzle=0) -> bytes:
    """The 128 bytes of a tiled tensor map.

    Parameters
    ----------
    address : int
        Device address of the array's first element (16-byte aligned).
    dtype : str
        NumPy dtype name of the elements (a key of :data:`TENSOR_MAP_DTYPES`).
    shape : tuple of int
        The array's shape, 1 to 5 dimensions.
    byte_strides : tuple of int
        The array's strides in bytes; the innermost must be the item size (contiguous
        rows), the others multiples of 16.
    box : tuple of int
        The shape of one copied tile (each 1 to 256; the innermost times the item size a
        multiple of 16 bytes).
    swizzle : int
        0 (none), 32, 64 or 128: the shared-memory swizzle pattern of the copied tile.

    Returns
    -------
    bytes
        The ``CUtensorMap`` (128 bytes, to be placed 64-byte aligned in device memory).

    Raises
    ------
    ValueError
        A parameter breaks one of the rules above.
    CudaDriverError
        The driver refused the description.
    """
    import numpy as np

    name = np.dtype(dtype).name
    if name not in TENSOR_MAP_DTYPES:
        raise ValueError(f"tensor maps describe arrays of {', '.join(TENSOR_MAP_DTYPES)}, not {name}")
    itemsize = np.dtype(dtype).itemsize
    rank = len(shape)
    if not 1 <= rank <= 5 or len(byte_strides) != rank or len(box) != rank:
        raise ValueError(f"shape, strides and box must have the same length, 1 to 5 (got {shape}, {byte_strides}, "
                         f"{box})")
    if byte_strides[-1] != itemsize:
        raise ValueError(f"the innermost dimension must be contiguous (stride {itemsize}), not {byte_strides[-1]}")
    if any(s % 16 for s in byte_strides[:-1]):
        raise ValueError(f"the outer strides must be multiples of 16 bytes, not {tuple(byte_strides)}")
    if address % 16:
        raise ValueError(f"the array's address must be 16-byte aligned, not {address:#x}")
    if any(not 1 <= b <= 256 for b in box) or (box[-1] * itemsize) % 16:
        raise ValueError(f"each box extent must be 1 to 256 and the innermost {box[-1]} x {itemsize} bytes a "
                         "multiple of 16")
    if any(b > n for b, n in zip(box, shape)):
        raise ValueError(f"the box {tuple(box)} is larger than the array {tuple(shape)}")
    if swizzle not in (0, 32, 64, 128):
        raise ValueError(f"swizzle must be 0, 32, 64 or 128, not {swizzle!r}")
    d = cu()
    kind = getattr(d.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{TENSOR_MAP_DTYPES[name]}")
    sw = getattr(d.CUtensorMapSwizzle, "CU_TENSOR_MAP_SWIZZLE_NONE" if not swizzle else
                 f"CU_TENSOR_MAP_SWIZZLE_{swizzle}B")
    u32, u64 = d.cuuint32_t, d.cuuint64_t
    tmap = call("cuTensorMapEncodeTiled", kind, u32(rank), address, [u64(int(n)) for n in reversed(shape)],
                [u64(int(x)) for x in reversed(byte_strides[:-1])], [u32(int(b)) for b in reversed(box)],
                [u32(1)] * rank, d.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                d.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                d.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    return b"".join(int(w).to_bytes(8, "little") for w in tmap.opaque)
