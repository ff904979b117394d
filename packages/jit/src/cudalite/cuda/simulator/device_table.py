"""The simulator's column of the one device-function table.

The typing registry (:data:`cudalite.core.registry.registry`) is keyed by the objects
kernels call: the stubs of :mod:`cudalite.core.device_api` (``cuda.popc``,
``cuda.atomic.add``, ``cuda.fp16.hadd``, ``cuda.threadIdx.x`` ...) and the functions of
:mod:`math` and :mod:`cmath`; the nvvm lowering table uses the same keys.  This module
gives, for each of those keys, the object a simulated kernel reaches instead:

* a stub ``cuda.a.b`` resolves to the simulator namespace's ``a.b`` (the same path the
  kernel's source spells), so the simulator keeps no name list of its own;
* a ``math``/``cmath`` function is itself (a simulated kernel is Python code calling it);
* a name the simulator cannot run resolves to the reason, from the one table of what is
  not simulated (:mod:`.unsupported`: ``UNSUPPORTED``, ``UNSUPPORTED_NAMESPACES`` and
  ``UNSUPPORTED_LIBDEVICE``).

``packages/jit/tests/test_simulator_parity.py`` walks every device-API key the registry
knows and fails when one has neither a simulator implementation nor a reason, and
compares the implementations with NumPy/Python references on shared inputs.
"""

from __future__ import annotations

import inspect
from typing import NamedTuple

from cudalite.core import device_api
from cudalite.core.registry import registry
from cudalite.core.typing import rules as _rules  # noqa: F401  (fills the registry)

from .unsupported import UNSUPPORTED, UNSUPPORTED_LIBDEVICE, UNSUPPORTED_MEMBERS, UNSUPPORTED_NAMESPACES
from . import api

__all__ = ["SimEntry", "KNOWN_DIVERGENCES", "device_api_keys", "simulator_entry", "device_table"]

# Where a simulated kernel, which calls Python's own math functions, differs from the
# GPU on the parity test's sample (test_simulator_parity.py checks that each still does)
_INT_RESULT = ("Python returns an int: -0.0 gives 0 and inf/nan raise, where the GPU returns the float "
               "(math.ceil(-0.5) == -0.0)")
KNOWN_DIVERGENCES = {
    "math.floor": _INT_RESULT,
    "math.ceil": _INT_RESULT,
    "math.trunc": _INT_RESULT + "; a NumPy float32/float64 argument raises TypeError",
    "math.nextafter": "computes in float64: a float32 argument steps to the next float64, not the next float32",
    "math.ldexp": "a NumPy integer exponent (an element of an int32 array) raises TypeError: Python's "
                  "math.ldexp takes only int",
}

_STUBS = (device_api.DeviceFunction, device_api.DeviceValue)


class SimEntry(NamedTuple):
    """One row: the registry key, its qualified name, and either the simulator's
    implementation or the reason it is not simulated."""

    key: object
    qualname: str
    implementation: object = None
    not_simulated: str | None = None


def device_api_keys():
    """Every device-API callable or value the typing registry knows, each once, sorted
    by qualified name: the registry's own keys that are stubs of
    :mod:`cudalite.core.device_api` (``cuda.popc``, ``cuda.bf16.hadd``,
    ``cuda.threadIdx.x`` ...) and the ``math``/``cmath`` functions it types."""
    keys = [k for k in registry.call_objects() + registry.value_objects()
            if isinstance(k, _STUBS) or getattr(k, "__module__", None) in ("math", "cmath")]
    return sorted(dict.fromkeys(keys), key=_qualname)


def _qualname(key) -> str:
    if isinstance(key, _STUBS):
        return key.__qualname__
    return f"{key.__module__}.{key.__name__}"


def _reason(parts):
    """The reason ``cuda.<parts>`` is not simulated, from the one table, or None."""
    if parts[0] in UNSUPPORTED:
        return UNSUPPORTED[parts[0]]
    if parts[0] in UNSUPPORTED_NAMESPACES:
        return UNSUPPORTED_NAMESPACES[parts[0]]
    if parts[0] == "libdevice" and len(parts) == 2:
        return UNSUPPORTED_LIBDEVICE.get(parts[1])
    return UNSUPPORTED_MEMBERS.get(".".join(parts))


def _resolve(parts):
    name = parts[0]
    obj = getattr(api, name) if name in api.__all__ else getattr(api, "_PER_THREAD", {}).get(name)
    for attr in parts[1:]:
        if obj is None:
            return None
        try:
            static = inspect.getattr_static(obj, attr)
        except AttributeError:
            static = None
        # a per-thread property (threadIdx.x) is not read outside a kernel: the property is the entry
        obj = static if isinstance(static, property) else getattr(obj, attr, None)
    return obj


def simulator_entry(key) -> SimEntry:
    """The simulator's row for registry key ``key`` (implementation None and no reason:
    a gap, which the parity test reports)."""
    qualname = _qualname(key)
    if not isinstance(key, _STUBS):
        return SimEntry(key, qualname, key)
    parts = qualname.split(".")[1:]  # "cuda.atomic.add" -> ["atomic", "add"]
    reason = _reason(parts)
    if reason is not None:
        return SimEntry(key, qualname, None, reason)
    try:
        impl = _resolve(parts)
    except NotImplementedError:
        impl = None
    return SimEntry(key, qualname, impl)


def device_table():
    """``[SimEntry]`` for every device-API key of the registry (built on each call)."""
    return [simulator_entry(k) for k in device_api_keys()]
