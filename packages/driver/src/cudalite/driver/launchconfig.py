"""The launch configuration: one frozen, validated, hashable value.

A :class:`LaunchConfig` holds everything a kernel launch needs besides the kernel and
its argument values: grid and block dimensions, dynamic shared memory, the stream
(its raw ``CUstream`` handle as an int) and the launch attributes (cooperative,
cluster dimensions, programmatic dependent launch).  It is built once and handed
unchanged to the one driver entry, :meth:`Launcher.bind
<cudalite.driver.Launcher.bind>`, which bakes it into a generated launch closure:
``cuLaunchKernel`` when it has no attribute, ``cuLaunchKernelEx`` with a prebuilt
attribute array when it has some.  Validation happens here, once per configuration,
never per launch.  GPU-less: nothing here touches the driver.
"""

from __future__ import annotations

import dataclasses  # FrozenInstanceError (the module is loaded with the package anyway)
import operator
from typing import Any

__all__ = ["LaunchConfig"]


def _dim3(value, field):
    """``value`` as a 3-tuple of positive ints (TypeError/ValueError naming ``field``)."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"LaunchConfig.{field} must be a tuple of 3 positive ints, got {value!r}")
    if len(value) != 3:
        raise ValueError(f"LaunchConfig.{field} must have 3 entries (x, y, z), got {value!r}")
    try:
        dims = tuple(operator.index(v) for v in value)
    except TypeError:
        raise TypeError(f"LaunchConfig.{field} must be a tuple of 3 positive ints, got {value!r}") from None
    for axis, v in zip("xyz", dims):
        if v <= 0:
            raise ValueError(f"LaunchConfig.{field} must be positive in every dimension, got {value!r} "
                             f"({axis} = {v})")
        if v >= 1 << 32:
            raise ValueError(f"LaunchConfig.{field} {value!r} does not fit the driver's unsigned int "
                             f"({axis} = {v})")
    return dims


def _count(value, field, limit):
    """``value`` as an int in ``[0, limit)`` (TypeError/ValueError naming ``field``)."""
    if isinstance(value, bool):
        raise TypeError(f"LaunchConfig.{field} must be an int, got {value!r}")
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"LaunchConfig.{field} must be an int, got {value!r}") from None
    if n < 0:
        raise ValueError(f"LaunchConfig.{field} must be >= 0, got {n}")
    if n >= limit:
        raise ValueError(f"LaunchConfig.{field} must be < {limit:#x}, got {n:#x}")
    return n


def _flag(value, field):
    if not isinstance(value, (bool, int)) or isinstance(value, int) and value not in (0, 1):
        raise TypeError(f"LaunchConfig.{field} must be a bool, got {value!r}")
    return bool(value)


class LaunchConfig:
    """How to launch a kernel: a frozen value, equal and hashable by its contents.

    Parameters
    ----------
    grid : tuple of 3 int
        Grid dimensions in blocks, each positive.
    block : tuple of 3 int
        Block dimensions in threads, each positive (the driver rejects a block of
        more threads than the kernel or device allows, at launch).
    shared_mem : int, optional
        Dynamic shared memory per block, in bytes (default 0).
    stream : int, optional
        The raw ``CUstream`` handle (default 0: the legacy default stream; 1 and 2
        are the legacy and per-thread default streams' special handles).
    cooperative : bool, optional
        ``CU_LAUNCH_ATTRIBUTE_COOPERATIVE``: the blocks may synchronize the whole
        grid (all of them co-resident; cuLaunchCooperativeKernel's semantics).
    cluster : tuple of 3 int or None, optional
        ``CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION``: the thread-block cluster shape
        chosen at launch (compute capability 9.0+); the grid must be a multiple of
        it in every dimension (the driver checks).
    programmatic_dependent_launch : bool, optional
        ``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION``: the launch may
        start before the previous kernel in the stream has finished (compute
        capability 9.0+; the kernels synchronize with griddepcontrol).

    Raises
    ------
    TypeError, ValueError
        A field of the wrong type or out of range; the message names the field.
    """

    __slots__ = _FIELDS = ("grid", "block", "shared_mem", "stream", "cooperative", "cluster",
                           "programmatic_dependent_launch")
    grid: tuple
    block: tuple
    shared_mem: int
    stream: Any  # a stream handle or object (0: the default stream)
    cooperative: bool
    cluster: tuple | None
    programmatic_dependent_launch: bool

    def __init__(self, grid: Any, block: Any, shared_mem: int = 0, stream: Any = 0, cooperative: bool = False,
                 cluster: Any = None, programmatic_dependent_launch: bool = False) -> None:
        put = object.__setattr__  # immutable: every field is set (normalised) here, once
        put(self, "grid", _dim3(grid, "grid"))
        put(self, "block", _dim3(block, "block"))
        put(self, "shared_mem", _count(shared_mem, "shared_mem", 1 << 32))
        put(self, "stream", _count(stream, "stream", 1 << 64))
        put(self, "cooperative", _flag(cooperative, "cooperative"))
        put(self, "cluster", None if cluster is None else _dim3(cluster, "cluster"))
        put(self, "programmatic_dependent_launch",
            _flag(programmatic_dependent_launch, "programmatic_dependent_launch"))

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._FIELDS)

    def __setattr__(self, name: Any, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r} of a LaunchConfig")

    def __delattr__(self, name: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r} of a LaunchConfig")

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return "LaunchConfig(" + ", ".join(f"{n}={v!r}" for n, v in zip(self._FIELDS, self._values())) + ")"

    def __reduce__(self) -> Any:
        return (LaunchConfig, self._values())

    @property
    def has_attributes(self) -> bool:
        """Whether any launch attribute is set (the launch then goes through
        ``cuLaunchKernelEx``; without one, through ``cuLaunchKernel``)."""
        return self.cooperative or self.cluster is not None or self.programmatic_dependent_launch

    def replace(self, **changes: Any) -> LaunchConfig:
        """A copy with ``changes`` applied, validated like a new one.

        Parameters
        ----------
        **changes
            New values of fields (``grid=``, ``cooperative=``, ...).

        Raises
        ------
        TypeError, ValueError
            An unknown field, or a value :class:`LaunchConfig` refuses.
        """
        unknown = sorted(set(changes) - set(self._FIELDS))
        if unknown:
            raise TypeError(f"LaunchConfig has no field {unknown[0]!r}")
        return LaunchConfig(**{**dict(zip(self._FIELDS, self._values())), **changes})
