"""The keyed tables behind the typing registry (and nvvm's lowering table):
keys, MRO lookups and thread-safe lazy registration."""

from __future__ import annotations

import math
import threading
import time

import numpy as np

from cudalite.core.registry import Registry, TyperEntry
from cudalite.core.tables import KeyedTable
from cudalite.core.types import Array, Integer, Type, float32, int32
from cudalite.core.typing.rules.numpyfuncs import register_numpy

_WAIT = 10.0  # seconds; only reached when something is broken


class _LibFunc:
    """A stand-in for a library's function: what matters is its ``__module__``."""

    def __init__(self, module, name):
        self.__module__ = module
        self.name = name

    def __repr__(self):
        return f"{self.__module__}.{self.name}"


def _lib(n, module="fakelib.sub"):
    return [_LibFunc(module, f"f{i}") for i in range(n)]


def test_entries_are_found_by_object_value_and_class_along_the_mro():
    t = KeyedTable()
    t.add_call(math.sin, "sin")
    t.add_call(3, "three")  # values key by (type, value): 3 and 3.0 differ
    t.add_class_call(Type, "any type")
    t.add_attr(Integer, "real", "int.real")
    t.add_method(Type, "conj", "type.conj")
    assert t.lookup_call(math.sin) == "sin"
    assert t.lookup_call(3) == "three" and t.lookup_call(3.0) is None
    assert t.lookup_call(int32) == "any type"  # an instance of a Type subclass
    assert t.lookup_call(math.cos) is None
    assert t.lookup_attr(int32, "real") == ("int.real", Integer)
    assert t.lookup_attr(float32, "real") == (None, None)
    assert t.lookup_method(Array(int32, 1), "conj") == ("type.conj", Type)
    assert t.attr_at((Integer, "real")) == "int.real" and t.method_at((Integer, "conj")) is None
    assert t.has_method(int32, "conj") and not t.has_method(int32, "nope")


def test_registry_decorators_build_typer_entries():
    reg = Registry()
    f = _LibFunc("mylib", "fast_exp")

    @reg.call(f, params=("x",), name="mylib.fast_exp")
    def typer(site):
        return None

    assert reg.lookup_call(f) == TyperEntry(typer, ("x",), "mylib.fast_exp")


def test_lazy_registration_runs_once_on_first_lookup_of_its_module():
    t = KeyedTable()
    funcs = _lib(2)
    runs = []

    def register():
        runs.append(1)
        for f in funcs:
            t.add_call(f, f.name)

    t.lazy("fakelib", register)
    assert t.lookup_call(math.sin) is None and runs == []  # another module: not triggered
    assert t.lookup_call(funcs[1]) == "f1"
    assert t.lookup_call(funcs[0]) == "f0"
    assert t.lookup_call(_LibFunc("fakelib", "unknown")) is None
    assert runs == [1]


def test_a_failed_lazy_registration_is_retried():
    t = KeyedTable()
    (f,) = _lib(1)
    attempts = []

    def register():
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("library not ready")
        t.add_call(f, "ok")

    t.lazy("fakelib", register)
    try:
        t.lookup_call(f)
    except RuntimeError:
        pass
    assert t.lookup_call(f) == "ok" and len(attempts) == 2


def test_register_may_look_up_its_own_module_and_other_lazy_modules():
    t = KeyedTable()
    (a,) = _lib(1, "liba")
    (b,) = _lib(1, "libb")
    seen = {}

    def register_b():
        t.add_call(b, "b")

    def register_a():
        seen["own, not yet added"] = t.lookup_call(a)  # re-entrant: no deadlock, no second run
        t.add_call(a, "a")
        seen["other module"] = t.lookup_call(b)

    t.lazy("liba", register_a)
    t.lazy("libb", register_b)
    assert t.lookup_call(a) == "a"
    assert seen == {"own, not yet added": None, "other module": "b"}


def test_a_lookup_during_another_threads_lazy_registration_waits_for_it():
    """The race behind "np.cos is not supported": thread A runs register() (first
    half registered, then blocked); thread B looks up an object of the second
    half and must get it once A finishes -- not None."""
    t = KeyedTable()
    funcs = _lib(4)
    half_done, release = threading.Event(), threading.Event()

    def register():
        for f in funcs[:2]:
            t.add_call(f, f.name)
        half_done.set()
        assert release.wait(_WAIT)
        for f in funcs[2:]:
            t.add_call(f, f.name)

    t.lazy("fakelib", register)
    results = {}
    a = threading.Thread(target=lambda: results.setdefault("a", t.lookup_call(funcs[0])))
    b = threading.Thread(target=lambda: results.setdefault("b", t.lookup_call(funcs[3])))
    a.start()
    try:
        assert half_done.wait(_WAIT)
        b.start()
        b.join(0.2)
        assert "b" not in results  # B waits for the registration instead of answering None
    finally:
        release.set()
    a.join(_WAIT)
    b.join(_WAIT)
    assert results == {"a": "f0", "b": "f3"}


def test_lookups_with_nothing_pending_take_no_lock():
    t = KeyedTable()
    t.add_call(math.sin, "sin")
    (f,) = _lib(1)
    t.lazy("fakelib", lambda: t.add_call(f, "f"))
    with t._lock:  # held by "another registration": lookups of other modules still answer
        done = {}
        th = threading.Thread(target=lambda: done.setdefault("sin", (t.lookup_call(math.sin),
                                                                      t.lookup_call(math.cos))))
        th.start()
        th.join(_WAIT)
        assert done == {"sin": ("sin", None)}


class _SlowRegistry(Registry):
    """NumPy's real registration, slowed down so that a second thread's lookup
    lands while it runs."""

    def __init__(self):
        super().__init__()
        self.started = threading.Event()

    def add_call(self, obj, entry):
        self.started.set()
        super().add_call(obj, entry)
        time.sleep(0.002)


def test_numpy_lazy_registration_seen_from_two_threads():
    reg = _SlowRegistry()
    reg.lazy("numpy", lambda: register_numpy(np, reg))
    results = {}
    first = threading.Thread(target=lambda: results.setdefault("sin", reg.lookup_call(np.sin)))
    second = threading.Thread(target=lambda: results.setdefault("square", reg.lookup_call(np.square)))
    first.start()
    assert reg.started.wait(_WAIT)
    second.start()  # np.square is registered last
    first.join(_WAIT)
    second.join(_WAIT)
    assert results["sin"] is not None and results["sin"].name == "numpy.sin"
    assert results["square"] is not None and results["square"].name == "numpy.square"


def test_numpy_lazy_registration_from_many_threads_at_once():
    reg = Registry()
    reg.lazy("numpy", lambda: register_numpy(np, reg))
    names = ["cos", "arctan2", "isnan", "maximum", "square", "sqrt", "abs", "hypot"]
    barrier = threading.Barrier(len(names))
    results = {}

    def look(name):
        barrier.wait(_WAIT)
        results[name] = reg.lookup_call(getattr(np, name))

    threads = [threading.Thread(target=look, args=(n,)) for n in names]
    for th in threads:
        th.start()
    for th in threads:
        th.join(_WAIT)
    assert {n: r is not None for n, r in results.items()} == {n: True for n in names}
