"""The argument-kind table: how each kind of Python value becomes kernel parameters.

Every kind of kernel argument (a device array, a NumPy array, a CuPy array, a number
of each dtype, a tuple, a record, a cuda.core buffer...) is one :class:`ArgKind`
subclass, an entry of one table ordered by :attr:`ArgKind.order`.  An entry states,
once:

* **recognition** -- :meth:`ArgKind.recognise` ``(cls, sample)``: whether objects of
  class ``cls`` are of this kind; the first entry (lowest ``order``) that says yes
  handles the class, and :meth:`ArgKind.make` builds its per-class instance;
* **type** -- :meth:`ArgKind.key`: a hashable type key (see :mod:`.keys`, which maps
  keys to cudalite types), the one thing kernels are specialized on;
* **layout and conversion** -- :meth:`ArgKind.source` (Python source of the values, in
  the order of the parameter's slots from ``KernelABI``) or :meth:`ArgKind.flat` (a
  call giving them).  A kind defines one of the two: the generated launcher inlines
  ``source``, and the slow path's ``flat`` is that same source compiled once per
  parameter (:meth:`ArgKind.flat`'s default), so there is one definition of each
  conversion (integer wrapping, bfloat16/fp8 bits, complex halves, array slots).
  :meth:`ArgKind.checked` says when the driver's checked launch takes the argument as
  it is instead (numbers: the class check and the conversion happen in C);
* **device** -- :meth:`ArgKind.devices` / :meth:`ArgKind.device_guard` (multi-GPU routing);
* **copies** -- :meth:`ArgKind.needs_copy` / :meth:`ArgKind.stage_in`: host data copied
  to the device before the launch, with the copy-back actions it registers;
  :attr:`ArgKind.after_launch`: work once the kernel is queued (a DLPack producer kept
  until the kernel has run);
* **identity cache** -- :attr:`ArgKind.cache_fields` / :meth:`ArgKind.cache_snippet`.

The dispatcher's slow path, the generated fast path (:mod:`.fastpath`), CUDA-graph
argument updates and ``cuda.typeof`` all read this table; nothing else knows a kind.
Adding a kind is one class with an ``order`` in one of the kind modules (see the worked
example in docs/architecture.md, :class:`.host.BufferKind`).
"""

from __future__ import annotations

import importlib

__all__ = ["ArgKind", "KIND_MODULES", "kind_table", "kind_for", "flatten"]

#: The modules holding the table's entries (each lists its kinds in ``KINDS``).
KIND_MODULES = ("extension", "scalars", "arrays", "host", "tuples", "foreign")


class ArgKind:
    """One kind of kernel argument (see the module docstring).  Subclasses set
    :attr:`order` and override :meth:`recognise`, :meth:`key` and one of
    :meth:`source` / :meth:`flat`."""

    #: position in the table: lower is asked first
    order = 1000
    #: may be inlined into generated launch code (False: every launch takes the slow path)
    inline = True
    #: validation fields of the identity cache (0: the kind does not use one)
    cache_fields = 0
    #: ``method(stream_handle)`` called once the kernel is queued, or None
    after_launch = None

    # -- recognition --------------------------------------------------------------------
    @classmethod
    def recognise(cls, pycls, sample) -> bool:
        """Whether objects of class ``pycls`` (``sample`` is one) are of this kind."""
        return False

    #: the class the instance was made for (:meth:`make`), or None: the default
    #: :meth:`source` guard checks it before anything else
    pycls = None

    @classmethod
    def make(cls, pycls, sample, resolve):
        """The kind's instance for class ``pycls``; ``resolve(cls, obj)`` finds the
        kind of other values (tuple items)."""
        made = cls()
        made.pycls = pycls
        return made

    # -- type ---------------------------------------------------------------------------
    def key(self, arg):
        """The type key of ``arg`` (hashable; :func:`.keys.key_to_type` gives its type)."""
        raise NotImplementedError

    # -- conversion (define one of source / flat) -----------------------------------------
    def source(self, i, a, spec, key, ns):
        """Python source for argument ``i`` held in variable ``a``, for the parameter
        ``spec`` (its ``ArgABI``) and type key ``key``: ``(guard, prelude lines, values)``
        where ``guard`` is true when ``a`` has this kind and key, and ``values`` the
        comma-separated value expressions in slot order (``SH`` is the stream handle).
        ``ns`` collects the names the source uses.  Default: a call of :meth:`flat`,
        guarded by the argument's class (:attr:`pycls`) and then its key."""
        if type(self).flat is ArgKind.flat:
            raise TypeError(f"{type(self).__name__} defines neither source() nor flat()")
        ns[f"H{i}"], ns[f"K{i}"], ns[f"P{i}"] = self, key, spec
        guard = f"H{i}.key({a}) == K{i}"
        if self.pycls is not None:  # the class first: key() may read what only this class has
            ns[f"C{i}"] = self.pycls
            guard = f"type({a}) is C{i} and {guard}"
        return guard, [f"_cl_v{i} = H{i}.flat({a}, P{i}, SH)"], f"*_cl_v{i}"

    def checked(self, spec, key):
        """How the driver's checked launch (``Launcher.bind_checked``) may take this
        argument itself, with no guard or conversion in the generated code: one
        ``(cls, mode)`` per parameter slot (the argument is passed as it is, its class
        must be exactly ``cls``, ``mode`` is the driver's conversion), or None (the
        default: :meth:`source` guards and converts)."""
        return None

    def direct_group(self, spec, key):
        """How the driver's direct launch (``Launcher.bind_direct``: the whole launch in
        C) takes this argument: ``("value", (cls, mode))`` for an argument that is one
        checked parameter (default: from :meth:`checked`), ``("attrs", key_attr, key,
        values_attr, n)`` for an object carrying its values, or None (the default
        otherwise: kernels with such an argument launch through the generated code)."""
        checked = self.checked(spec, key)
        return ("value", checked[0]) if checked is not None and len(checked) == 1 else None

    def flat(self, arg, spec, sh):
        """The values of ``arg`` for the parameter ``spec`` on stream handle ``sh``, in
        slot order.  Default: :meth:`source`, compiled once per (parameter, key)."""
        key = self.key(arg)
        convert = self._converters().get((spec, key))
        if convert is None:
            convert = self._converters()[(spec, key)] = _compile_converter(self, spec, key)
        return convert(arg, sh)

    def _converters(self) -> dict:
        conv = self.__dict__.get("_conv")
        if conv is None:
            conv = self.__dict__["_conv"] = {}
        return conv

    # -- devices ------------------------------------------------------------------------
    def devices(self, arg):
        """The ordinals of the devices whose memory ``arg`` refers to (``devices.ANY``
        for managed memory); empty for values without a device."""
        return ()

    def device_guard(self, i, a, ns):
        """Source of a check, for multi-GPU launch code, that ``a`` may be used on device
        ``DEV`` (``DEVS`` is ``(DEV, ANY)``); None when the kind has no device."""
        ns[f"H{i}"], ns["DEVS_OK"] = self, _devices_ok
        return f"DEVS_OK(H{i}.devices({a}), DEVS)"

    # -- copies -------------------------------------------------------------------------
    def needs_copy(self, arg) -> bool:
        """Whether ``arg`` (or something inside it) is host data the launch copies to the
        device before the kernel (:meth:`stage_in`)."""
        return False

    def warns_copy(self, arg) -> bool:
        """Whether that copy earns numba's NumbaPerformanceWarning."""
        return self.needs_copy(arg)

    def stage_in(self, arg, stream, after: list):
        """``arg`` as the kernel gets it (host data copied to the device on ``stream``);
        appends to ``after`` the copy-back actions (no-argument callables, run in order
        once the kernel is queued, before the stream is synchronized)."""
        return arg

    # -- identity cache -----------------------------------------------------------------
    def cache_snippet(self, a, fields, values, ns, key):
        """For the launch code's identity cache (:mod:`.fastpath`): ``(checks, stores)``
        -- expressions that must all hold for the object cached at this position (``a is
        cached``, of type key ``key``) to still have the flattened ``values`` it had when
        stored, given the ``fields`` saved with it; and the expressions whose values are
        saved as ``fields`` (one yielding None: do not cache this object)."""
        raise NotImplementedError

    def direct_cache_checks(self, key):
        """The checks of :meth:`cache_snippet` for the driver's direct launch, which
        reads the same cache entry in C: one ``(attr, call, ("field" | "value", j))`` per
        check -- ``getattr(a, attr)``, called when ``call``, equals the entry's field or
        flattened value ``j`` -- or None (the default: kernels with such an argument
        launch through the generated code)."""
        return None


def _devices_ok(devices, allowed) -> bool:
    """True when every device of ``devices`` is in ``allowed``."""
    for d in devices:
        if d not in allowed:
            return False
    return True


def _compile_converter(kind, spec, key):
    """``convert(arg, SH) -> values``: the kind's :meth:`ArgKind.source` for ``spec``
    and ``key`` as a function (the slow path's conversion)."""
    ns = {}
    _guard, prelude, values = kind.source(0, "_cl_a", spec, key, ns)
    body = ["def convert(_cl_a, SH):"] + [f"    {line}" for line in prelude]
    body.append(f"    return ({values}{',' if values else ''})")
    exec(compile("\n".join(body) + "\n", f"<cudalite convert {type(kind).__name__}>", "exec"), ns)
    return ns["convert"]


def kind_table() -> tuple:
    """The kinds, ordered by :attr:`ArgKind.order` (the modules of :data:`KIND_MODULES`
    are imported on first use)."""
    kinds = []
    for name in KIND_MODULES:
        kinds.extend(importlib.import_module(f"{__package__}.{name}").KINDS)
    return tuple(sorted(kinds, key=lambda k: k.order))


def kind_for(cls, sample, resolve, table=None) -> ArgKind:
    """The kind instance for objects of class ``cls`` (``sample`` is one of them): the
    first table entry that recognises it; ``TypeError`` naming the class otherwise."""
    for kind in table if table is not None else kind_table():
        if kind.recognise(cls, sample):
            made = kind.make(cls, sample, resolve)
            if made is not None:
                return made
    raise TypeError(f"cannot pass an object of type {cls.__module__}.{cls.__qualname__} to a kernel "
                    "(expected a device array, a NumPy/CuPy array, a torch tensor, an object with "
                    "__cuda_array_interface__ or DLPack, a buffer, a number, or a tuple of these)")


def flatten(kinds, args, specs, sh) -> list:
    """Every argument's values, in parameter order (``specs``: the kernel ABI's
    ``args``): what the slow path and CUDA-graph updates pack."""
    values = []
    for k, a, spec in zip(kinds, args, specs):
        values.extend(k.flat(a, spec, sh))
    return values
