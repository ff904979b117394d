"""``cudalite.cuda.args``: numba-cuda's ``numba.cuda.args`` -- the kernel-argument transfer
hints (``In``, ``Out``, ``InOut``, their base ``ArgHint``) and ``wrap_arg(value,
default=InOut)``, which launch extensions use to choose how a host array is copied.
Under the CPU simulator (``CUDALITE_ENABLE_CUDASIM=1``) they are the simulator's hints,
the ones its ``cuda.In`` gives."""

from .config import simulator_enabled as _simulator_enabled

if _simulator_enabled():
    from .simulator.host import In, InOut, Out
    from .simulator.host import _Hint as ArgHint
else:
    from ._launch.hints import ArgHint, In, InOut, Out


def wrap_arg(value, default=InOut):
    """``value`` itself when it is a hint, else ``default(value)``."""
    return value if isinstance(value, ArgHint) else default(value)


__all__ = ["ArgHint", "In", "Out", "InOut", "wrap_arg"]
