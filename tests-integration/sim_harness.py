"""The GPU suite's harness under the CPU simulator (``CUDALITE_ENABLE_CUDASIM=1``).

:class:`SimGpu` has the interface of :class:`gpu_harness.Gpu` that the GPU tests use
(``run(pyfunc, args, grid=, block=, sig=, shared=, cooperative=)``), but runs the
kernel's Python function in :mod:`cudalite.cuda.simulator` instead of compiling it:

* the device-side API a test module names (``from cudalite import nvvm as cuda`` or
  ``from cudalite.nvvm import fp16``, the UDF spellings, whose stubs only the compiler
  understands) is replaced by the simulator's object of the same name, in that module's
  globals and in the kernel's closure cells, for the duration of the launch, so the
  kernel and the plain Python device functions it calls see the simulated API;
* scalar arguments become NumPy scalars of the type the compiled kernel would give them
  (``sig``'s parameter types, else the harness's ``typeof_arg``: Python ``int`` is
  ``int64``, ``float`` is ``float64``), so that integer wrap-around and float rounding
  of the arguments match the GPU path as far as NumPy's own rules allow;
* NumPy arrays are used in place (the GPU harness copies them in and back);
* ``cooperative=`` and compile options are not needed: the simulator finds grid syncs
  itself and compiles nothing.

``run`` returns ``None`` (there is no PTX); a test that reads the PTX is marked
``nosim``.
"""

from __future__ import annotations

import contextlib

import numpy as np

from cudalite.core.types import Array, Boolean, Complex, Float, Integer, Tuple, parse_signature

__all__ = ["SimGpu"]


def _stand_ins() -> dict:
    """``{id(compiler-only object): simulator object}``: the ``cudalite.nvvm`` module, each
    device-side name it exports that the simulator has (the namespaces ``fp16``,
    ``atomic`` ... included), and every device function of the one device-function table
    (:mod:`cudalite.cuda.simulator.device_table`): its simulator implementation, or a
    function raising the table's NotImplementedError when it is not simulated (``fn =
    cuda.fp16.hcos`` at module level, then ``fn(x)`` in the kernel)."""
    import cudalite.nvvm as nvvm
    from cudalite.core.device_api import DEVICE_API_NAMES, DeviceFunction
    from cudalite.cuda import simulator
    from cudalite.cuda.simulator.device_table import device_table

    out = {id(nvvm): simulator}
    for name in DEVICE_API_NAMES:
        obj = getattr(nvvm, name, None)
        if name in simulator.__all__ and not _primitive(obj):
            out[id(obj)] = getattr(simulator, name)
    for entry in device_table():
        if not isinstance(entry.key, DeviceFunction):  # values (threadIdx.x) are read through their namespace
            continue
        if entry.implementation is not None:
            out.setdefault(id(entry.key), entry.implementation)
        else:
            out.setdefault(id(entry.key), _not_simulated(entry.qualname, entry.not_simulated))
    return out


def _not_simulated(qualname, reason):
    from cudalite.cuda.simulator.unsupported import not_simulated

    def stand_in(*args, **kwargs):
        not_simulated(qualname, reason)

    return stand_in


def _primitive(value) -> bool:
    return isinstance(value, (int, float, str, bytes, type(None)))


@contextlib.contextmanager
def simulated_device_api(func):
    """Rebind, in ``func``'s module globals and closure cells, every name bound to a
    compiler-only device-API object to the simulator's for the duration."""
    stand_ins = _stand_ins()
    g = func.__globals__
    replaced = {name: value for name, value in g.items() if id(value) in stand_ins}
    cells = [c for c in (func.__closure__ or ()) if _cell_value(c) is not None and id(c.cell_contents) in stand_ins]
    saved = [c.cell_contents for c in cells]
    g.update({name: stand_ins[id(value)] for name, value in replaced.items()})
    for c in cells:
        c.cell_contents = stand_ins[id(c.cell_contents)]
    try:
        yield
    finally:
        g.update(replaced)
        for c, v in zip(cells, saved):
            c.cell_contents = v


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _as_numpy_scalar(value, t):
    """``value`` as the NumPy scalar (or tuple of them) of the compiled type ``t``."""
    if isinstance(t, Array):
        return value
    if isinstance(t, Tuple):
        return tuple(_as_numpy_scalar(v, vt) for v, vt in zip(value, t.types))
    if isinstance(t, (Integer, Float, Complex, Boolean)):
        return np.dtype(t.name if not isinstance(t, Boolean) else np.bool_).type(value)
    return value


class SimGpu:
    """``gpu_harness.Gpu``'s ``run`` on the CPU simulator (see the module docstring)."""

    simulated = True
    cc = (8, 0)  # what the simulator reports for the device (cuda.get_current_device())

    def run(self, pyfunc, args, grid=1, block=1, sig=None, shared=0, cooperative=False, **opts):
        from cudalite.cuda import simulator

        from gpu_harness import typeof_arg

        argtypes = list(parse_signature(sig)[1]) if sig is not None else [typeof_arg(a) for a in args]
        call = [_as_numpy_scalar(a, t) for a, t in zip(args, argtypes)]
        kernel = simulator.jit(pyfunc)
        with simulated_device_api(pyfunc):
            kernel[grid, block, 0, shared](*call)
        return None
