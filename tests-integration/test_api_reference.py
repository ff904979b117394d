"""The API reference (docs/api.md, made by autodoc) documents what it lists: every
function named there has a docstring, and one taking parameters has a NumPy-style
``Parameters`` section (what napoleon renders as the parameter table)."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

API = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def _listed():
    module, out = None, []
    for line in API.read_text().splitlines():
        m = re.match(r"\.\. currentmodule:: (\S+)", line.strip())
        if m:
            module = m.group(1)
        m = re.match(r"\.\. auto(function|class):: (\S+)", line.strip())
        if m:
            out.append((module, m.group(2), m.group(1)))
    return out


def test_the_reference_lists_the_main_entry_points():
    names = {n for _, n, _ in _listed()}
    assert {"jit", "to_device", "device_array", "stream", "compile_ptx", "declare_device"} <= names


@pytest.mark.parametrize("module, name, kind", _listed(), ids=lambda v: str(v))
def test_listed_object_is_documented(module, name, kind):
    obj = getattr(importlib.import_module(module), name)
    doc = inspect.getdoc(obj) or ""
    assert doc.strip(), f"{module}.{name} has no docstring"
    if kind == "function":
        params = [p for p in inspect.signature(obj).parameters.values()
                  if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        if params:
            assert re.search(r"^Parameters\n-+$", doc, re.M), f"{module}.{name}: no NumPy-style Parameters section"
