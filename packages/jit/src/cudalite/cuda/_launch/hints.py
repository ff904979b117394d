"""``cuda.In`` / ``cuda.Out`` / ``cuda.InOut``: numba's kernel-argument transfer hints.

Wrapping a host (NumPy) array argument says which copies the launch makes:
``In(a)`` copies it to the device before the kernel and not back; ``Out(a)``
allocates the device array without copying in and copies it back after the kernel;
``InOut(a)`` does both (what a bare NumPy argument gets, without the performance
warning).  A device array (or any CUDA array) inside a hint is passed as it is and
never copied.  Copies back complete before the launch returns.
"""

from __future__ import annotations

from typing import Any

from cudalite.core.numpy_support import lazy_numpy as np

from .._memory import api as _memory_api
from ..devicearray import is_device_array

__all__ = ["ArgHint", "In", "Out", "InOut", "wrap_arg", "prepare_hints"]


def _is_host_array(value):

    return isinstance(value, np.ndarray) and not is_device_array(value)


class ArgHint:
    """Base class of the transfer hints: ``.value`` is the wrapped argument."""

    copy_input = True
    copy_output = False

    def __init__(self, value: Any) -> None:
        self.value = value

    def to_device(self, retr: Any, stream: Any = 0) -> Any:
        """The value to pass to the kernel; appends the work to do after the launch
        (functions of no arguments) to ``retr``, as numba's."""
        value = self.value
        if not _is_host_array(value):
            return value

        dev = _memory_api.to_device(value, stream=stream, copy=self.copy_input)
        if self.copy_output:
            retr.append(lambda: dev.copy_to_host(value, stream=stream))
        else:
            retr.append(lambda: dev)  # keeps the device copy alive until the launch is done
        return dev

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value!r})"


class In(ArgHint):
    """Copy to the device before the launch; never copied back."""


class Out(ArgHint):
    """Not copied in (the device array starts uninitialized); copied back after."""

    copy_input = False
    copy_output = True


class InOut(Out):
    """Copied in before and back after the launch."""

    copy_input = True


def wrap_arg(value: Any, default: Any = InOut) -> Any:
    return value if isinstance(value, ArgHint) else default(value)


def prepare_hints(args: Any, stream: Any) -> Any:
    """``(args, retr)``: ``args`` with every hint replaced by what the kernel gets,
    and the work to do after the launch (empty when no argument is a hint)."""
    retr: list = []
    if not any(isinstance(a, ArgHint) for a in args):
        return args, retr
    return tuple(a.to_device(retr, stream) if isinstance(a, ArgHint) else a for a in args), retr
