"""Multi-device logic of the driver without a GPU (driver calls faked): a new thread
adopts the device whose primary context another library made current, a launch refused
for another device's context is retried with the function's context pushed (the thread
keeps its device), and the default streams have no device."""

from __future__ import annotations

import importlib
import threading

import pytest

import cudalite.driver as drv
from cudalite.driver import _state
from cudalite.driver.errors import CudaDriverError

launch = importlib.import_module("cudalite.driver.launch")  # the module (the package exports a function of that name)


class _Ctx(int):
    pass


def _fake_driver(monkeypatch, current_ctx, ctx_device, primaries):
    """A Driver without cuInit: ``primaries`` are the primary contexts by device."""
    d = _state.Driver.__new__(_state.Driver)
    d.device_count, d.alive = len(primaries), True
    d._lock, d._tls = threading.RLock(), threading.local()
    d._handles = {i: i for i in range(len(primaries))}
    d._contexts = {}
    made_current = []

    def call(name, *args):
        if name == "cuCtxGetCurrent":
            return _Ctx(made_current[-1] if made_current else current_ctx)
        if name == "cuCtxGetDevice":
            return ctx_device
        if name == "cuDevicePrimaryCtxRetain":
            return _Ctx(primaries[args[0]])
        if name == "cuCtxSetCurrent":
            made_current.append(int(args[0]))
            return None
        raise AssertionError(name)

    monkeypatch.setattr(_state, "call", call)
    return d, made_current


def test_new_thread_adopts_a_primary_context_made_current_elsewhere(monkeypatch):
    d, made = _fake_driver(monkeypatch, current_ctx=0xB1, ctx_device=1, primaries=[0xA0, 0xB1])
    assert d.current() == 1 and made == [0xB1] and d.current_id() == 1


def test_new_thread_without_context_starts_on_device_0(monkeypatch):
    d, made = _fake_driver(monkeypatch, current_ctx=0, ctx_device=0, primaries=[0xA0, 0xB1])
    assert d.current_id() == 0 and made == [0xA0]


def test_a_non_primary_context_is_not_adopted(monkeypatch):
    d, made = _fake_driver(monkeypatch, current_ctx=0xCC, ctx_device=1, primaries=[0xA0, 0xB1])
    assert d.current() == 0 and made == [0xA0]


class _RetryDriver:
    def __init__(self, device):
        self.device, self.log = device, []

    def current(self):
        self.log.append("current")
        return self.device

    def push(self, i):
        self.log.append(("push", i))

    def pop(self):
        self.log.append("pop")


def test_retry_pushes_the_functions_context_for_one_launch(monkeypatch):
    fake = _RetryDriver(device=0)
    monkeypatch.setattr(launch, "get_driver", lambda: fake)
    results = iter([0])
    retry = launch._retry_factory(1, bindings=False)
    retry(201, "cuLaunchKernel", lambda *a: next(results), ())
    assert fake.log == ["current", ("push", 1), "pop"]  # the thread's device (0) is kept


def test_retry_in_the_threads_own_device(monkeypatch):
    fake = _RetryDriver(device=1)
    monkeypatch.setattr(launch, "get_driver", lambda: fake)
    retry = launch._retry_factory(1, bindings=False)
    retry(201, "cuLaunchKernel", lambda *a: 0, ())
    assert fake.log == ["current"]
    with pytest.raises(CudaDriverError) as info:  # still refused: the driver's error
        retry(201, "cuLaunchKernel", lambda *a: 201, ())
    assert info.value.code == 201


def test_default_streams_have_no_device():
    assert drv.stream_device(None) is None and drv.stream_device(0) is None
    assert drv.stream_device(1) is None and drv.stream_device(2) is None
