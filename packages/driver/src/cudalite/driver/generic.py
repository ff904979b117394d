"""The generic launch: ``launch(fn, grid, block, args=[(value, code), ...])``.

The slower, convenient path over :class:`~.launch.Launcher`: the configuration from
ints, tuples or a :class:`LaunchConfig`, the parameter format from the ``(value, code)``
pairs (pointers may be ints, :class:`DeviceMemory` or objects with
``__cuda_array_interface__``), then ``fn.launcher(fmt).launch(cfg, *values)``.
"""

from __future__ import annotations

from typing import Any

from .launchconfig import LaunchConfig
from .stream import stream_handle

__all__ = ["launch", "launch_cooperative"]


def _dim3(d):
    """An int or a 1-3 tuple -> a 3-tuple (its entries are validated by LaunchConfig)."""
    if isinstance(d, (tuple, list)):
        if not 1 <= len(d) <= 3:
            raise ValueError(f"launch dimensions must have 1 to 3 entries, got {d!r}")
        return tuple(d) + (1,) * (3 - len(d))
    return (d, 1, 1)


def _value(value, code):
    if code in "QqPNn" and not isinstance(value, int):
        ptr = getattr(value, "ptr", None)
        if isinstance(ptr, int):
            return ptr
        cai = getattr(value, "__cuda_array_interface__", None)
        if cai is not None:
            return cai["data"][0]
    return value


def _generic_config(grid, block, shared_mem, stream, cooperative, cluster, programmatic_dependent_launch):
    """The LaunchConfig of the generic path's arguments: a LaunchConfig given as
    ``grid`` with the keywords given (not None) replacing its fields, or one built
    from grid/block (ints or 1-3 tuples) and the keywords."""
    changes = {k: v for k, v in (("shared_mem", shared_mem), ("cooperative", cooperative), ("cluster", cluster),
                                 ("programmatic_dependent_launch", programmatic_dependent_launch))
               if v is not None}
    if stream is not None:
        changes["stream"] = stream_handle(stream)
    if isinstance(grid, LaunchConfig):
        return grid.replace(**changes) if changes else grid
    if grid is None or block is None:
        raise TypeError("launch() needs grid and block, or a LaunchConfig")
    if changes.get("cluster") is not None:
        changes["cluster"] = _dim3(changes["cluster"])
    return LaunchConfig(_dim3(grid), _dim3(block), **changes)


def launch(fn: Any, grid: Any = None, block: Any = None, args: Any = (), shared_mem: Any = None, stream: Any = None,
           cooperative: Any = None, *, cluster: Any = None, programmatic_dependent_launch: Any = None,
           config: Any = None) -> None:
    """Generic launch: ``args`` is a sequence of ``(value, code)`` with struct codes
    (``"Q"`` pointers -- ints, DeviceMemory or CUDA-array-interface objects --,
    ``"f"``, ``"i"``, ...).  The configuration is either ``grid``/``block`` (ints or
    1-3 tuples) with the keywords, or a :class:`LaunchConfig` (``config=cfg``, or in
    ``grid``'s place: ``launch(fn, cfg, args)``) whose fields the keywords given
    replace.  One driver entry: :meth:`Launcher.launch`.

    Parameters
    ----------
    fn : Function
        The kernel.
    grid : int, tuple of int or LaunchConfig
        Grid dimensions (an int or a 1- to 3-tuple), or the whole configuration.
    block : int or tuple of int
        Block dimensions: an int or a 1- to 3-tuple (with a LaunchConfig in
        ``grid``'s place, this position may hold ``args``).
    args : sequence of (value, str), optional
        One ``(value, code)`` pair per kernel parameter; ``code`` is a struct code
        (``"Q"`` for a pointer, given as an int, a :class:`DeviceMemory` or an object
        with ``__cuda_array_interface__``; ``"f"``, ``"i"``, ...).
    shared_mem : int, optional
        Dynamic shared memory per block, in bytes (default 0).
    stream : Stream or int, optional
        The stream to launch on; ``None`` (default) is the legacy default stream.
    cooperative : bool, optional
        Launch with the cooperative attribute (the grid may synchronize; default False).
    cluster : int or tuple of int, optional
        Thread-block cluster dimensions chosen at launch (compute capability 9.0+).
    programmatic_dependent_launch : bool, optional
        Allow programmatic dependent launch (compute capability 9.0+).
    config : LaunchConfig, optional
        The configuration, instead of ``grid``/``block``.

    Raises
    ------
    TypeError, ValueError
        If the configuration is invalid (a dimension with more than 3 entries, not
        positive, ...) or given twice.
    CudaDriverError
        If the driver rejects the launch.
    """
    if config is not None:
        if grid is not None or block is not None:
            raise TypeError("launch() takes grid/block or config=, not both")
        grid = config
    elif isinstance(grid, LaunchConfig) and block is not None:
        if args:
            raise TypeError("launch(fn, config, ...) takes the args in the third position or the second, "
                            "not both (no block with a LaunchConfig)")
        args, block = block, None
    cfg = _generic_config(grid, block, shared_mem, stream, cooperative, cluster, programmatic_dependent_launch)
    args = list(args)
    fmt = "".join(code for _, code in args)
    values = [_value(v, c) for v, c in args]
    fn.launcher(fmt).launch(cfg, *values)


def launch_cooperative(fn: Any, grid: Any = None, block: Any = None, args: Any = (), shared_mem: Any = None,
                       stream: Any = None, **kwargs: Any) -> None:
    """Generic cooperative launch: ``launch(..., cooperative=True)`` (the
    ``CU_LAUNCH_ATTRIBUTE_COOPERATIVE`` attribute through ``cuLaunchKernelEx``: the
    grid may synchronize; every block must be co-resident).

    Parameters
    ----------
    fn : Function
        The kernel.
    grid : int, tuple of int or LaunchConfig
        Grid dimensions (an int or a 1- to 3-tuple), or the whole configuration.
    block : int or tuple of int
        Block dimensions: an int or a 1- to 3-tuple.
    args : sequence of (value, str), optional
        One ``(value, code)`` pair per kernel parameter (see :func:`launch`).
    shared_mem : int, optional
        Dynamic shared memory per block, in bytes (default 0).
    stream : Stream or int, optional
        The stream to launch on; ``None`` (default) is the legacy default stream.
    **kwargs
        ``cluster=``, ``programmatic_dependent_launch=``, ``config=`` as for :func:`launch`.

    Raises
    ------
    CudaDriverError
        If the driver rejects the launch (e.g. too many blocks to be co-resident).
    """
    if "cooperative" in kwargs:
        raise TypeError("launch_cooperative() always launches cooperatively: no cooperative= argument")
    launch(fn, grid, block, args, shared_mem, stream, True, **kwargs)
