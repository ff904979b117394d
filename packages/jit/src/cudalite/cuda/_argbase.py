"""The base of the kernel-argument handlers (:mod:`._args`, :mod:`._foreign_args`):
how one class of Python objects becomes kernel parameters, and the values of an array
argument for a parameter.  Its own module so both handler modules import it without
importing each other."""

from __future__ import annotations

from cudalite.core.abi import array_values

__all__ = ["ArgHandler", "_array_flat"]


def _array_flat(ptr, shape, strides, spec):
    """The values of an array argument for the parameter ``spec`` (an ArgABI)."""
    return array_values(ptr, shape, strides, spec.type.layout)


def _devices_ok(devices, allowed) -> bool:
    """True when every device of ``devices`` is in ``allowed``."""
    for d in devices:
        if d not in allowed:
            return False
    return True


class ArgHandler:
    """How one class of Python objects becomes kernel parameters."""

    host = False  # a host array: copied in and back by the dispatcher
    fast = True  # may be inlined into generated launch code
    after_launch = None  # or a method(sh) called once the kernel is enqueued on stream handle sh

    def key(self, arg):
        raise NotImplementedError

    def flat(self, arg, spec, sh):
        raise NotImplementedError

    def snippet(self, i, a, spec, key, ns):
        """Python source for argument ``i`` (variable ``a``, parameter ``spec``):
        ``(guard, prelude lines, values)``; ``ns`` collects the names the source uses."""
        ns[f"H{i}"], ns[f"K{i}"], ns[f"P{i}"] = self, key, spec
        return f"H{i}.key({a}) == K{i}", [f"_cl_v{i} = H{i}.flat({a}, P{i}, SH)"], f"*_cl_v{i}"

    def devices(self, arg):
        """The ordinals of the devices whose memory ``arg`` refers to (``_devices.ANY``
        for managed memory); empty for scalars and host data.  Multi-GPU routing only."""
        return ()

    def device_guard(self, i, a, ns):
        """Source of a check, for the multi-GPU launch code, that argument ``a`` may be
        used on device ``DEV`` (``DEVS`` is ``(DEV, ANY)``), or None when it has no
        device of its own (scalars).  Default: :meth:`devices`, through ``H{i}``."""
        ns[f"H{i}"], ns["DEVS_OK"] = self, _devices_ok
        return f"DEVS_OK(H{i}.devices({a}), DEVS)"

    #: validation fields of the identity cache (0: the handler does not use one)
    cache_fields = 0

    def cache_snippet(self, a, fields, values, ns, key):
        """For the launch code's identity cache (see ``_fastpath``): ``(checks, stores)``
        -- expressions that must all be true for the object cached at this position
        (``a is cached``, of type key ``key``) to still have the flattened ``values`` it
        had when stored, given the ``fields`` saved with it; and the expressions whose
        values are saved as ``fields`` (an expression yielding None means: do not cache
        this object)."""
        raise NotImplementedError
