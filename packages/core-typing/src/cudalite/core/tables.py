"""One keyed-table class behind the typing registry and the lowering table.

Both tables key their entries the same way, so a typing rule in core and a
lowering in nvvm registered for the same key meet:

* calls: the called Python object (``math.sin``, ``cuda.atomic.add``), by
  :func:`registry_key`; class calls: any instance of a class (looked up along
  the object's MRO), for declared foreign functions and extension objects;
* values: an object used as a value (``cuda.threadIdx.x``);
* attributes and methods: ``(type class, name)``, looked up along the MRO of
  the value's type (typing) or exactly, at the key typing chose (lowering);
* lazy modules: ``lazy("numpy", register)`` runs ``register()`` the first time an
  object of that module is looked up, so NumPy's tables cost nothing until a
  kernel uses NumPy.

Lazy registration is thread-safe: while one thread runs ``register()``, a
lookup of the same module's objects in another thread waits for it to finish
(a re-entrant lock, since ``register()`` may itself look things up); lookups
when nothing is pending take no lock.  Tables are filled by decorators at import
time (and by lazy registrations) and are read-only otherwise.
"""

from __future__ import annotations

import threading

__all__ = ["KeyedTable", "registry_key"]


def registry_key(obj):
    """Hashable identity key for any Python object."""
    try:
        hash(obj)
    except TypeError:
        return ("id", id(obj))
    if isinstance(obj, (int, float, complex, str, tuple)):
        return ("value", type(obj), obj)
    return obj


def _module_root(obj) -> str:
    mod = getattr(obj, "__module__", None) or type(obj).__module__
    return (mod if isinstance(mod, str) else "").split(".")[0]


class KeyedTable:
    """Entries for calls, class calls, values, attributes and methods, plus lazily
    registered modules.  Subclasses add the decorators that build the entries."""

    def __init__(self):
        self._calls: dict = {}
        self._class_calls: dict = {}
        self._values: dict = {}
        self._attrs: dict = {}
        self._methods: dict = {}
        self._lazy: dict = {}  # module root -> register(); removed once it has run
        self._loading: set = set()  # module roots whose register() is running
        self._lock = threading.RLock()

    # -- adding entries ----------------------------------------------------------------
    def add_call(self, obj, entry):
        self._calls[registry_key(obj)] = entry

    def add_class_call(self, cls, entry):
        self._class_calls[cls] = entry

    def add_value(self, obj, entry):
        self._values[registry_key(obj)] = entry

    def add_attr(self, type_class, name, entry):
        self._attrs[(type_class, name)] = entry

    def add_method(self, type_class, name, entry):
        self._methods[(type_class, name)] = entry

    def lazy(self, module: str, register):
        """Run ``register()`` the first time an object of ``module`` (e.g. ``numpy``)
        is looked up: tables keyed by a library's objects, without importing it."""
        with self._lock:
            self._lazy[module] = register

    def _load_lazy(self, obj) -> bool:
        """Run (or wait for) the pending registration of ``obj``'s module; True when
        the caller should look again."""
        if not self._lazy:  # the fast path: nothing pending, no lock
            return False
        root = _module_root(obj)
        if root not in self._lazy:
            return False
        with self._lock:  # waits while another thread registers this module
            register = self._lazy.get(root)
            if register is None:  # another thread finished it while we waited
                return True
            if root in self._loading:  # a lookup from inside register() itself
                return False
            self._loading.add(root)
            try:
                register()
            finally:
                self._loading.discard(root)
            del self._lazy[root]  # only now: concurrent lookups took the lock and waited
            return True

    # -- lookups -----------------------------------------------------------------------
    def lookup_call(self, obj):
        """The entry for calling ``obj``: by the object itself (after a pending lazy
        registration of its module), else by its class along the MRO; or None."""
        key = registry_key(obj)
        entry = self._calls.get(key)
        if entry is None and self._load_lazy(obj):
            entry = self._calls.get(key)
        if entry is None and self._class_calls:
            for cls in type(obj).__mro__:
                entry = self._class_calls.get(cls)
                if entry is not None:
                    break
        return entry

    def lookup_value(self, obj):
        return self._values.get(registry_key(obj))

    def lookup_attr(self, ty, name):
        """``(entry, type class)`` of attribute ``name`` along ``type(ty)``'s MRO."""
        return _along_mro(self._attrs, ty, name)

    def lookup_method(self, ty, name):
        """``(entry, type class)`` of method ``name`` along ``type(ty)``'s MRO."""
        return _along_mro(self._methods, ty, name)

    def attr_at(self, key):
        """The attribute entry at exactly ``key = (type class, name)``."""
        return self._attrs.get(key)

    def method_at(self, key):
        """The method entry at exactly ``key = (type class, name)``."""
        return self._methods.get(key)

    def has_method(self, ty, name) -> bool:
        return self.lookup_method(ty, name)[0] is not None


def _along_mro(table, ty, name):
    for cls in type(ty).__mro__:
        entry = table.get((cls, name))
        if entry is not None:
            return entry, cls
    return None, None
