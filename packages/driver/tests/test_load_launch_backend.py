"""``load_launch_backend``: the launch backend's native code loaded ahead of the first
launcher, once (GPU-less with a fake driver record)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import cudalite.driver as drv
import importlib

launch_mod = importlib.import_module("cudalite.driver.backends")


class FakeDriver:
    def __init__(self, backend, native_result):
        self.config = SimpleNamespace(launch_backend=backend)
        self.calls = []
        self._result = native_result

    def native(self, backend):
        self.calls.append(backend)
        return self._result


@pytest.mark.parametrize("backend,result,expected", [
    ("shim", ("shim", 1, 2), "shim"), ("shim", None, "bindings"), ("ctypes", object(), "ctypes"),
    ("cffi", None, "bindings")])
def test_loads_the_configured_backend(monkeypatch, backend, result, expected):
    fake = FakeDriver(backend, result)
    monkeypatch.setattr(launch_mod, "get_driver", lambda: fake)
    assert drv.load_launch_backend() == expected
    assert fake.calls == [backend]


def test_bindings_loads_nothing_and_an_explicit_backend_wins(monkeypatch):
    fake = FakeDriver("bindings", None)
    monkeypatch.setattr(launch_mod, "get_driver", lambda: fake)
    assert drv.load_launch_backend() == "bindings" and fake.calls == []
    fake = FakeDriver("bindings", ("shim", 1, 2))
    monkeypatch.setattr(launch_mod, "get_driver", lambda: fake)
    assert drv.load_launch_backend("shim") == "shim" and fake.calls == ["shim"]
