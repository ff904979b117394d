"""Launch configurations: ``kernel[griddim, blockdim, stream, sharedmem]``.

Pure parsing and validation (GPU-less): :func:`parse_config` turns the subscript
into one frozen :class:`cudalite.driver.LaunchConfig` (grid, block, dynamic shared
memory, stream handle; cooperative, cluster and programmatic-dependent-launch
attributes) -- the value that goes unchanged to the one driver launch entry
(``Launcher.bind``) -- plus the stream object as given, and raises
``ValueError``/``TypeError`` with a clear message for anything the driver would
reject (non-positive or too large dimensions, more than 1024 threads per block,
negative shared memory).  The dispatcher caches the result per subscript, so
these checks run once per distinct configuration, not per launch.

Streams may be cudalite stream objects (anything with an int ``handle``, or
``__int__``), objects with ``__cuda_stream__`` (cuda.core), cuda.bindings
``CUstream`` values, ints, ``0`` or ``None`` (the legacy default stream).
"""

from __future__ import annotations

import operator
import warnings

from cudalite.core.errors import NumbaPerformanceWarning
from cudalite.driver import LaunchConfig

from ..config import load_config

__all__ = [
    "LaunchConfig", "parse_config", "make_config", "shared_bytes", "check_cluster_grid", "normalize_dim",
    "stream_handle_of", "MAX_GRID", "MAX_BLOCK", "MAX_THREADS_PER_BLOCK", "MIN_GRID_SIZE", "warn_low_occupancy",
]

MAX_GRID = (2**31 - 1, 65535, 65535)
MAX_BLOCK = (1024, 1024, 64)
MAX_THREADS_PER_BLOCK = 1024


def normalize_dim(dim, what: str) -> tuple:
    """An int or a 1-3 tuple of ints -> a 3-tuple, validated against the CUDA limits.

    The messages of a wrong length (ValueError) and of a non-integer entry (TypeError)
    carry numba's wording ("griddim must be a sequence of 1, 2 or 3 integers, got [...]")."""
    if isinstance(dim, (tuple, list)):
        items = tuple(dim)
    else:
        items = (dim,)
    if not 1 <= len(items) <= 3:
        raise ValueError(f"{what} must be a sequence of 1, 2 or 3 integers, got {list(items)!r} "
                         f"({len(items)} dimensions)")
    try:
        items = tuple(operator.index(v) for v in items)
    except TypeError:
        bad = next(v for v in items if not hasattr(type(v), "__index__"))
        raise TypeError(f"{what} must be a sequence of integers, got {list(items)!r} "
                        f"({bad!r} is a {type(bad).__name__}, not an int)") from None
    items += (1,) * (3 - len(items))
    limits = MAX_BLOCK if what == "blockdim" else MAX_GRID  # a cluster's size limit is the driver's
    for axis, (v, lim) in enumerate(zip(items, limits)):
        if v <= 0:
            raise ValueError(f"{what} must be positive in every dimension, got {dim!r} "
                             f"({'xyz'[axis]} = {v})")
        if v > lim:
            raise ValueError(f"{what} {dim!r} exceeds the CUDA limit {lim} in dimension {'xyz'[axis]}")
    if what == "blockdim" and items[0] * items[1] * items[2] > MAX_THREADS_PER_BLOCK:
        raise ValueError(f"blockdim {dim!r} has {items[0] * items[1] * items[2]} threads; "
                         f"a block has at most {MAX_THREADS_PER_BLOCK}")
    return items


def stream_handle_of(stream) -> int:
    """The raw ``CUstream`` handle (an int) of any accepted stream value."""
    if stream is None or stream is False:
        return 0
    if type(stream) is int:
        return stream
    handle = getattr(stream, "handle", None)
    if isinstance(handle, int):
        return handle
    if hasattr(type(stream), "__index__"):
        return operator.index(stream)
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        _version, handle = proto() if callable(proto) else proto
        return int(handle)
    if handle is not None:  # e.g. numba-style ctypes handle, or a CUstream
        value = getattr(handle, "value", handle)
        return int(value or 0)
    try:
        return int(stream)
    except (TypeError, ValueError):
        raise TypeError(f"cannot use {stream!r} as a CUDA stream (expected a stream object, an int "
                        f"handle or 0)") from None


def shared_bytes(shared) -> int:
    """A dynamic shared memory size: an int >= 0 (TypeError/ValueError otherwise)."""
    try:
        shared = operator.index(shared)
    except TypeError:
        raise TypeError(f"dynamic shared memory must be an int number of bytes, got {shared!r}") from None
    if shared < 0:
        raise ValueError(f"dynamic shared memory must be >= 0 bytes, got {shared}")
    return shared


def make_config(griddim, blockdim, stream=0, sharedmem=0, *, cooperative=False, cluster=None,
                programmatic_dependent_launch=False) -> LaunchConfig:
    """The :class:`LaunchConfig` of numba-style launch values, validated."""
    if cluster is not None:
        cluster = normalize_dim(cluster, "cluster")
    grid, block = normalize_dim(griddim, "griddim"), normalize_dim(blockdim, "blockdim")
    shared = shared_bytes(sharedmem)
    return LaunchConfig(grid=grid, block=block, shared_mem=shared, stream=stream_handle_of(stream),
                        cooperative=bool(cooperative), cluster=cluster,
                        programmatic_dependent_launch=bool(programmatic_dependent_launch))


def parse_config(config) -> tuple:
    """``(griddim, blockdim[, stream[, sharedmem]])`` -> ``(LaunchConfig, stream)``
    (``stream``: the stream object as given, for the launcher's ``.stream``)."""
    if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
        raise ValueError(
            "a kernel launch configuration is kernel[griddim, blockdim], kernel[griddim, blockdim, stream] "
            f"or kernel[griddim, blockdim, stream, dynamic_shared_bytes]; got kernel[{config!r}]")
    stream = config[2] if len(config) > 2 else 0
    return make_config(config[0], config[1], stream, config[3] if len(config) > 3 else 0), stream


MIN_GRID_SIZE = 128  # blocks: a smaller grid warns of low occupancy (numba's threshold)


def check_cluster_grid(grid, cluster_dims, name):
    """A kernel compiled with ``cluster_dims`` launches whole clusters only: every grid
    dimension must be a multiple of the cluster's (ValueError otherwise, naming both)."""
    if cluster_dims and any(g % c for g, c in zip(grid, cluster_dims)):
        raise ValueError(f"kernel {name!r} has cluster_dims={cluster_dims}: its grid {tuple(grid)} must be a "
                         "multiple of the cluster shape in every dimension")


def warn_low_occupancy(grid):
    """numba's NumbaPerformanceWarning for a grid of fewer than 128 blocks, unless
    ``CUDALITE_CUDA_LOW_OCCUPANCY_WARNINGS=0`` or performance warnings are disabled.
    Called when a launch configuration is first seen (configurations are kept by the
    dispatcher, so the launch hot path never comes here)."""



    cfg = load_config()
    if cfg.low_occupancy_warnings and not cfg.disable_performance_warnings:
        size = grid[0] * grid[1] * grid[2]
        warnings.warn(NumbaPerformanceWarning(
            f"Grid size {size} will likely result in GPU under-utilization due to low occupancy."), stacklevel=5)
