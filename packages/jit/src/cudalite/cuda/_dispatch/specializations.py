"""A kernel dispatcher's specializations: one immutable record each, in one table.

:class:`Specialization` is what one compiled signature is (its argument types and its
loaded kernel, or None for an eager signature type-checked where no device was
usable: compiled at its first launch).  :class:`SpecTable` holds a dispatcher's records
and the caches derived from them: type keys -> record, generated launcher factories,
configured launchers, and the dispatchers ``specialize`` made.  A record is replaced,
never changed; ``recompile`` and ``specialize`` make a new table instead of resetting
fields, so launchers made before keep the code they were made with.
"""

from __future__ import annotations

__all__ = ["Specialization", "SpecTable"]


class Specialization:
    """One signature of a kernel: ``argtypes`` (a tuple of cudalite types) and ``kernel``
    (the loaded ``CompiledKernel``; None until a device is usable).  Immutable, equal by
    value.  (A plain class rather than a dataclass: this module loads with
    ``import cudalite.cuda``, and making a dataclass costs a compile.)"""

    __slots__ = ("argtypes", "kernel")

    def __init__(self, argtypes, kernel=None):
        object.__setattr__(self, "argtypes", tuple(argtypes))
        object.__setattr__(self, "kernel", kernel)

    def __setattr__(self, name, value):
        raise AttributeError(f"a Specialization is immutable: make a new one instead of setting {name!r}")

    def __eq__(self, other):
        if not isinstance(other, Specialization):
            return NotImplemented
        return self.argtypes == other.argtypes and self.kernel is other.kernel

    def __hash__(self):
        return hash((self.argtypes, id(self.kernel)))

    def __repr__(self):
        return f"Specialization(argtypes={self.argtypes!r}, kernel={self.kernel!r})"


class SpecTable:
    """A dispatcher's :class:`Specialization` records (in signature order) and their
    derived caches (see the module docstring).  Replaced whole, never emptied by hand."""

    __slots__ = ("records", "by_keys", "factories", "configs", "children", "last_factory", "launchers")

    def __init__(self, records=()):
        self.records = {r.argtypes: r for r in records}
        self.by_keys = {}  # tuple of argument type keys -> Specialization
        self.factories = {}  # (argument classes, keys, device id) -> launcher factory (or None)
        self.configs = {}  # launch-configuration key -> configured launcher (bounded by the dispatcher)
        self.children = {}  # argument types -> the dispatcher specialize() made for them
        self.last_factory = None  # the factory a new configuration gets (the most recent one)
        # (factory key, configuration key) -> the configured launcher a factory made for it:
        # taken again when the arguments switch back (no new launcher bound); bounded
        self.launchers = {}

    def put(self, record: Specialization) -> Specialization:
        """Add ``record``, or replace the one of the same argument types."""
        self.records[record.argtypes] = record
        return record

    def kernels(self) -> dict:
        """Argument types -> compiled kernel, for every compiled record."""
        return {a: r.kernel for a, r in self.records.items() if r.kernel is not None}

    def pending(self) -> list:
        """The argument types of the records waiting for a device."""
        return [a for a, r in self.records.items() if r.kernel is None]

    def signatures(self) -> list:
        """Every record's argument types, in order."""
        return list(self.records)
