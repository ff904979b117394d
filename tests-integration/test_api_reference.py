"""The API reference (docs/api.md, made by autodoc) is complete and documents what it lists.

Complete: every public function and class of the user-facing packages
(``cudalite.cuda``, ``cudalite.nvvm``, ``cudalite.linker``, ``cudalite.driver``) is
listed there, unless it is one of the few kinds :data:`EXCLUDED` names (device-only
intrinsics, type objects).  Public means ``__all__``; ``cudalite.cuda`` has none, so
there it means what ``from cudalite.cuda import *`` gives (every name without a
leading underscore).  An object two packages export (``cudalite.cuda.CudaSupportError``
is ``cudalite.driver.CudaSupportError``) is listed once.

Documented: every function and class listed there has a docstring, and one taking
parameters has a NumPy-style ``Parameters`` section (what napoleon renders as the
parameter table); so does every public method of a listed class (with ``:members:``).  A
class users never construct may say so ("not constructed directly") instead of listing
its constructor's parameters.
"""

from __future__ import annotations

import importlib
import inspect
import re
import types
from pathlib import Path

import pytest

API = Path(__file__).resolve().parents[1] / "docs" / "api.md"
PACKAGES = ("cudalite.cuda", "cudalite.nvvm", "cudalite.linker", "cudalite.driver")
PARAMETERS = re.compile(r"^Parameters\n-+$", re.M)
# A class users never construct (made by a factory function) says so instead of listing
# its constructor's parameters: the factory documents them.
FACTORY_MADE = re.compile(r"[Nn]ot (?:meant to be )?constructed\s+directly")


def _device_api_names():
    from cudalite.core.device_api import DEVICE_API_NAMES

    return frozenset(DEVICE_API_NAMES)


def _type_system_names():
    import cudalite.types

    return frozenset(cudalite.types.__all__)


# Public callables the reference does not list, by kind, with the reason.  Only these:
EXCLUDED = {
    # cuda.syncthreads, cuda.atomic.add, cuda.shfl_sync, vector types (float32x4), ...:
    # device-side intrinsics; calling them from Python raises.  docs/language.md ("The
    # device-side API", "Vector types") documents them; api.md points there.
    "device-only intrinsic": lambda module, name, obj: name in _device_api_names(),
    # float32, int64, void, Array, UniTuple, from_dtype, ...: the type system that
    # cudalite.cuda re-exports from cudalite.types (as numba.cuda re-exports numba.types)
    # for signatures; documented in docs/language.md ("Types"), and api.md says so.
    "type-system re-export": lambda module, name, obj: (
        module == "cudalite.cuda" and name in _type_system_names() and name != "typeof"
    ),
}


def _public(module_name):
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:  # cudalite.cuda: what a star import gives
        names = [n for n in vars(module) if not n.startswith("_")]
    return module, list(names)


def _excluded(module, name, obj):
    return next((why for why, test in EXCLUDED.items() if test(module, name, obj)), None)


def _public_callables():
    """``(module, name, object)`` of every public function and class not excluded."""
    out = []
    for module_name in PACKAGES:
        module, names = _public(module_name)
        for name in names:
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType) or not callable(obj):
                continue  # modules (cuda.types, cuda.errors), constants, namespaces
            if _excluded(module_name, name, obj) is None:
                out.append((module_name, name, obj))
    return out


def _resolve(module, name):
    """The object ``.. autoX:: name`` documents under ``.. currentmodule:: module``."""
    if name.startswith("cudalite."):
        parts = name.split(".")
        for i in range(len(parts) - 1, 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            for attr in parts[i:]:
                obj = getattr(obj, attr)
            return obj
    obj = importlib.import_module(module)
    for attr in name.split("."):
        obj = getattr(obj, attr)
    return obj


def _listed():
    """``(module, name, kind, options)`` of every autodoc directive of api.md."""
    module, out = None, []
    for line in API.read_text().splitlines():
        line = line.strip()
        m = re.match(r"\.\. currentmodule:: (\S+)", line)
        if m:
            module = m.group(1)
        m = re.match(r"\.\. auto(function|class|exception|data):: (\S+)", line)
        if m:
            out.append([module, m.group(2), m.group(1), ""])
        elif out and line.startswith(":"):
            out[-1][3] += line + "\n"
    return [tuple(entry) for entry in out]


def _parameters(obj):
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    return [p for p in sig.parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in ("self", "cls")]


def _own_constructor(cls):
    """Whether the class defines how it is constructed (else its base documents it)."""
    return "__init__" in vars(cls) or "__new__" in vars(cls)


def _needs_parameters(kind, obj, doc):
    if kind == "function":
        return bool(_parameters(obj))
    return inspect.isclass(obj) and _own_constructor(obj) and bool(_parameters(obj)) and not FACTORY_MADE.search(doc)


def _methods(cls, options):
    """``(name, function)`` of the public methods a listed class documents: its own and
    those of its cudalite bases (not properties), and the special methods its entry
    names (``:special-members: __getitem__, __call__``)."""
    m = re.search(r":special-members:(.*)", options)
    special = {n.strip() for n in m.group(1).split(",")} if m else set()
    out = []
    for name in dir(cls):
        if name.startswith("_") and name not in special:
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or not owner.__module__.startswith("cudalite"):
            continue
        attr = vars(owner)[name]
        if isinstance(attr, (staticmethod, classmethod)):
            attr = attr.__func__
        if inspect.isfunction(attr):
            out.append((name, attr))
    return out


def test_the_reference_lists_the_main_entry_points():
    names = {n for _, n, _, _ in _listed()}
    assert {"jit", "to_device", "device_array", "stream", "compile_ptx", "declare_device"} <= names


def test_every_public_callable_is_in_the_reference():
    listed = {(module, name) for module, name, _, _ in _listed()}
    listed_objects = [_resolve(module, name) for module, name, _, _ in _listed()]
    missing = [f"{module}.{name}" for module, name, obj in _public_callables()
               if (module, name) not in listed and not any(obj is o for o in listed_objects)]
    assert not missing, f"public but not in docs/api.md (list them, or exclude them in this test): {missing}"


def test_the_exclusions_are_used():
    """Each kind of exclusion still excludes something (no stale entries)."""
    used = set()
    for module_name in PACKAGES:
        module, names = _public(module_name)
        for name in names:
            obj = getattr(module, name)
            if callable(obj) and not isinstance(obj, types.ModuleType):
                used.add(_excluded(module_name, name, obj))
    assert set(EXCLUDED) <= used


@pytest.mark.parametrize("module, name, kind, options", _listed(), ids=lambda v: str(v).strip())
def test_listed_object_is_documented(module, name, kind, options):
    obj, label = _resolve(module, name), _label(module, name)
    doc = inspect.getdoc(obj) or ""
    assert doc.strip(), f"{label} has no docstring"
    assert not doc.startswith(("\n", " ")), f"{label}: the first line of the docstring is empty"
    if _needs_parameters(kind, obj, doc):
        assert PARAMETERS.search(doc), f"{label}: no NumPy-style Parameters section"


def _label(module, name):
    return name if name.startswith("cudalite.") else f"{module}.{name}"


def _listed_methods():
    out = []
    for module, name, kind, options in _listed():
        obj = _resolve(module, name)
        if kind in ("class", "exception") and ":members:" in options:
            out.extend((_label(module, name), method, fn) for method, fn in _methods(obj, options))
    return out


@pytest.mark.parametrize("cls, method, fn", _listed_methods(), ids=lambda v: v if isinstance(v, str) else "")
def test_methods_of_listed_classes_are_documented(cls, method, fn):
    doc = inspect.getdoc(fn) or ""
    assert doc.strip(), f"{cls}.{method} has no docstring"
    if _parameters(fn):
        assert PARAMETERS.search(doc), f"{cls}.{method}: no NumPy-style Parameters section"
