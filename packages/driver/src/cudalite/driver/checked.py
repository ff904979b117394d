"""Checked launches: ``Launcher.bind_checked(config, checks)``, the launch a runtime's
generated code calls.

A checked launch takes one value per kernel parameter, like a bound launch
(:meth:`Launcher.bind`), and also *checks* them: a parameter may name the exact class
its value must have (``type(value) is cls``), and how the value converts:

* ``"struct"`` (default) -- :mod:`struct`'s conversion of the parameter's code, errors
  included (``pack_params``);
* ``"wrap"`` -- an integer parameter gets the value's ``__index__`` modulo 2**bits
  (C's conversion, what numba does with an int for an int32 parameter: ``0xFFFFFFFF``
  is -1);
* ``"truth"`` -- 1 when the value is true, else 0.

The call returns instead of raising, so the caller's own code decides what a miss
means: ``None`` (launched), ``False`` (a value's class is not the one its check names;
nothing was launched and nothing converted), or the nonzero CUresult as an int
(nothing was launched; :meth:`Launcher.settle` retries a launch refused for want of a
context, as a bound launch does, or raises :class:`CudaDriverError`).  Conversion
errors (a value ``struct`` cannot pack) raise as ``struct`` raises them.

With the compiled shim (backend ``shim``) the whole call is C: the shim's
``METH_FASTCALL`` function checks the classes, converts exact ints, floats and bools in
C (any other value through the parameter's own ``struct.Struct``, so the results and the
errors are ``struct``'s), fills a parameter buffer on the C stack (a heap one above 4
KiB: no per-thread state, so threads may share it), releases the GIL and calls the
driver.  Other backends get the same contract from generated Python around the bound
launch's code.

The *direct* launch (``Launcher.bind_direct(config, groups, fallback, record,
precondition)``, shim only) goes one step further: a C callable taking the kernel's
*arguments* -- numbers (checked as above), objects carrying their parameter values
(``("attrs", key_attr, key, values_attr, n[, stable])``: ``getattr(a, key_attr)`` is or
equals ``key``, ``getattr(a, values_attr)`` is the tuple of its ``n`` values; for objects
of exactly the class ``stable``, whose two attributes never change, C keeps weak
references to the last two seen with their converted values) and objects whose
values the fallback cached (``("cached", holder, name, checks, n)``: ``holder[name]`` is
``(a, fields..., n values)`` -- the object itself first -- and for each ``(attr, call,
index)`` of ``checks``, ``getattr(a, attr)`` (called when ``call``) equals
``holder[name][index]``) -- that launches when ``precondition`` (``(fn, value)``) is None or
``fn()`` is ``value``, records ``mapping[key] = value`` and returns None, or hands the very
call to ``fallback`` whenever it cannot (a keyword, a count, a class or key that differs,
a cache entry of another object, a value it does not convert, a driver error: nothing
was launched).  It is GC-aware (its fallback usually refers back to it).
"""

from __future__ import annotations

import ctypes
import functools
import operator
import struct
from typing import Any

from ._launchcode import generate_source
from .launchconfig import LaunchConfig

__all__ = ["MODES", "bind_checked", "bind_direct", "native_maker", "slot_table", "reference", "self_test"]

#: conversion modes, by name, as the shim numbers them
MODES = {"struct": 0, "wrap": 1, "truth": 2}
_INT_CODES = frozenset("bBhHiIlLqQnNP")


def native_maker(lib: Any) -> Any:
    """The shim's ``(make_checked_launch, make_direct_launch)`` function objects
    (``lib``: the shim's cffi lib)."""
    address = lib.cl_checked_maker()
    if not address:
        raise RuntimeError("the launch shim made no checked-launch maker")
    pair = ctypes.cast(ctypes.c_void_p(address), ctypes.py_object).value
    ctypes.pythonapi.Py_DecRef(ctypes.py_object(pair))  # the C side returned a new reference
    return pair


@functools.lru_cache(maxsize=64)
def _pack1(code: str) -> Any:
    return struct.Struct("@" + code).pack


def _checks(layout: Any, checks: Any) -> list:
    """``checks`` normalized: one ``(cls or None, mode name)`` per parameter."""
    n = layout.count
    if checks is None:
        return [(None, "struct")] * n
    checks = list(checks)
    if len(checks) != n:
        raise ValueError(f"checks has {len(checks)} entries for {n} parameters")
    out = []
    for i, (check, code) in enumerate(zip(checks, layout.codes)):
        cls, mode = (None, "struct") if check is None else check
        if mode not in MODES:
            raise ValueError(f"parameter {i}: unknown conversion {mode!r} (one of {', '.join(MODES)})")
        if (mode == "wrap" and code not in _INT_CODES) or (mode == "truth" and code not in _INT_CODES and code != "?"):
            what = "an integer" if mode == "wrap" else "an integer or bool"
            raise ValueError(f"parameter {i}: conversion {mode!r} needs {what} parameter, not {code!r}")
        if cls is not None and not isinstance(cls, type):
            raise TypeError(f"parameter {i}: the check names {cls!r}, not a class")
        out.append((cls, mode))
    return out


def slot_table(layout: Any, checks: Any = None) -> tuple:
    """The shim's per-parameter table: ``(code, offset, size, mode, cls, pack1)``."""
    return tuple((ord(code[-1]), off, size, MODES[mode], cls, _pack1(code))
                 for code, off, size, (cls, mode) in zip(layout.codes, layout.offsets, layout.sizes,
                                                         _checks(layout, checks)))


@functools.lru_cache(maxsize=256)
def _python_factory(count: int, kind: str, ex: bool, pattern: tuple) -> Any:
    """``make`` of the Python checked launch (:func:`._launchcode.generate_source` with
    checks): ``pattern`` has one entry per parameter, (has a class, mode, signed bits or
    0); ``make`` reads the classes and wrap constants from its ``K``."""
    names = [f"a{i}" for i in range(count)]
    unpack, checks = [], []
    for i, (has_cls, _mode, _bits) in enumerate(pattern):
        if has_cls:
            unpack.append(f"C{i} = K[{i}][0]")
            checks.append(f"if type({names[i]}) is not C{i}:\n            return False")
    for i, (_has_cls, mode, _bits) in enumerate(pattern):
        a = names[i]
        if mode == "wrap":
            unpack.append(f"H{i}, M{i} = K[{i}][1], K[{i}][2]")
            checks.append(f"{a} = ((INDEX({a}) + H{i}) & M{i}) - H{i}")
        elif mode == "truth":
            checks.append(f"{a} = 1 if {a} else 0")
    src = generate_source(count, kind, ex, "".join(f"    {line}\n" for line in unpack),
                          "".join(f"        {line}\n" for line in checks))
    namespace = {"INDEX": operator.index}
    exec(compile(src, f"<cudalite.driver checked launch/{kind}/{count}{'/ex' * ex}>", "exec"), namespace)
    return namespace["make"]


def _python_checked(launcher: Any, config: Any, checks: Any, raw_args: tuple) -> Any:
    """The checked launch of a backend without the shim: generated Python."""
    layout = launcher.layout
    norm = _checks(layout, checks)
    pattern, consts = [], []
    for code, size, (cls, mode) in zip(layout.codes, layout.sizes, norm):
        bits = 8 * size if mode == "wrap" else 0
        half = (1 << (bits - 1)) if bits and code.islower() else 0
        pattern.append((cls is not None, mode, bits))
        consts.append((cls, half, (1 << bits) - 1 if bits else 0))
    make = _python_factory(layout.count, launcher._kind, config.has_attributes, tuple(pattern))
    raw, entry, common, extra, keep = raw_args
    launch = make(raw, entry, *common[:4], tuple(consts), *extra)
    launch.keep = keep
    return launch


def bind_checked(launcher: Any, config: Any, checks: Any = None) -> Any:
    """See :meth:`Launcher.bind_checked`."""
    if not isinstance(config, LaunchConfig):
        raise TypeError(f"bind_checked takes a cudalite.driver.LaunchConfig, got {type(config).__name__}")
    raw_args = launcher._bind_parts(config)
    maker = launcher._maker
    if maker is None:
        return _python_checked(launcher, config, checks, raw_args)
    _raw, entry, _common, extra, keep = raw_args
    layout = launcher.layout
    if config.has_attributes:
        ex, (cfg,), dims = 1, extra, (0,) * 7
        stream = 0
    else:
        ex, cfg = 0, 0
        dims, stream = extra[:7], extra[7]
    launch, _pack = maker(ex, entry, launcher.function.handle, *dims, stream, cfg, layout.size,
                          slot_table(layout, checks), keep)
    return launch


def bind_direct(launcher: Any, config: Any, groups: Any, fallback: Any, record: Any = None,
                precondition: Any = None) -> Any:
    """See :meth:`Launcher.bind_direct`."""
    if launcher._direct is None:
        return None
    checks: list = []
    table: list = []  # (kind, first, n, a, b, c, stable): the C groups (_shim_source_direct.py)
    first = 0
    for i, group in enumerate(groups):
        if group[0] == "value":
            checks.append(group[1])
            table.append((0, first, 1, None, None, None, None))
            first += 1
        elif group[0] == "attrs":
            _, key_attr, key, values_attr, n, *stable = group
            checks.extend([None] * n)
            table.append((1, first, n, key_attr, key, values_attr, stable[0] if stable else None))
            first += n
        elif group[0] == "cached":
            _, holder, name, tests, n = group
            checks.extend([None] * n)
            for a, c, _j in tests:
                if not (isinstance(a, str) or (c and callable(a))):
                    raise ValueError(f"argument {i}: a cached group's check is (attribute name, call, index) or "
                                     f"(function, True, index), not ({a!r}, {c!r}, ...)")
            tests = tuple((a, bool(c), int(j)) for a, c, j in tests)
            table.append((2, first, n, holder, name, tests, None))
            first += n
        else:
            raise ValueError(f"argument {i}: unknown group {group[0]!r} (\"value\", \"attrs\" or \"cached\")")
    if first != launcher.layout.count:
        raise ValueError(f"the groups give {first} parameters for {launcher.layout.count}")
    launch = bind_checked(launcher, config, checks)
    mapping, key, value = (None, None, None) if record is None else record
    pre_call, pre_value = (None, None) if precondition is None else precondition
    return launcher._direct(launch, tuple(table), fallback, mapping, key, value, pre_call, pre_value)


def reference(layout: Any, checks: Any, values: Any) -> Any:
    """What a checked launch with ``checks`` does with ``values``, in plain Python: the
    values ``struct`` then packs (a list), or False when a value's class is not its
    check's.  The definition the C and the generated code are tested against."""
    norm = _checks(layout, checks)
    if len(values) != len(norm):
        raise TypeError(f"this launch takes {len(norm)} parameter values ({len(values)} given)")
    if any(cls is not None and type(v) is not cls for v, (cls, _mode) in zip(values, norm)):
        return False
    out = []
    for v, code, size, (_cls, mode) in zip(values, layout.codes, layout.sizes, norm):
        if mode == "wrap":
            bits = 8 * size
            v = operator.index(v) & ((1 << bits) - 1)
            if code.islower() and v >> (bits - 1):
                v -= 1 << bits
        elif mode == "truth":
            v = 1 if v else 0
        out.append(v)
    return out


def self_test(lib: Any, ffi: Any, rec: Any, config: Any) -> Any:
    """The shim's ``(checked, direct)`` launch makers after launches through its probes
    (``cl_probe``/``cl_probe_ex``, recording into ``rec``; ``config``: a
    CUlaunchConfig stand-in whose first unsigned int is 29); None if one fails."""
    from .params import param_layout

    maker, direct = native_maker(lib)
    layout = param_layout("Qif")
    slots = slot_table(layout, [(int, "struct"), None, (float, "struct")])
    rec_at = int(ffi.cast("uintptr_t", rec))
    launch, pack = maker(0, lib.cl_probe_address(), rec_at, 1, 2, 3, 4, 5, 6, 7, 8, 0, layout.size, slots, None)
    rec[11] = 23
    # the probe records params and params[0] (an address in the call's own buffer): the
    # values are checked through ``pack``, which fills that buffer the same way
    if (launch(0x1234, -5, 1.5) != 23 or list(rec[0:8]) != [1, 2, 3, 4, 5, 6, 7, 8] or not rec[8] or not rec[9]
            or pack(0x1234, -5, 1.5) != struct.pack("@Qif", 0x1234, -5, 1.5) or launch(0x1234, -5, 1) is not False):
        return None
    launch, _pack = maker(1, lib.cl_probe_ex_address(), rec_at, 0, 0, 0, 0, 0, 0, 0, 0,
                          int(ffi.cast("uintptr_t", config)), layout.size, slots, None)
    rec[11] = 0
    if launch(7, 1, 2.0) is not None or rec[1] != 29 or not rec[2] or not rec[3]:
        return None
    record: dict = {}
    fell: list = []
    run = direct(launch, ((0, 0, 1, None, None, None, None), (0, 1, 1, None, None, None, None),
                          (0, 2, 1, None, None, None, None)),
                 lambda *a: fell.append(a), record, 0, "k", None, None)
    rec[0] = 0
    if run(7, 1, 2.0) is not None or record != {0: "k"} or rec[1] != 29 or fell or run(7, 1, 2) is not None \
            or fell != [(7, 1, 2)]:
        return None
    return maker, direct
