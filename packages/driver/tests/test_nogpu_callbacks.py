"""The stream-callback trampoline, GPU-less: it calls the Python callable whose id it
gets, drops the reference ``add_callback`` took, and turns exceptions into warnings."""

from __future__ import annotations

import ctypes
import sys
import warnings

from cudalite.driver._callback import make_callback_trampoline


def _incref(obj):
    fn = ctypes.pythonapi.Py_IncRef
    fn.argtypes = [ctypes.py_object]
    fn(obj)


def test_trampoline_calls_and_releases_its_reference():
    tramp = make_callback_trampoline()
    got = []

    def fn(status):
        got.append(status)

    before = sys.getrefcount(fn)
    _incref(fn)
    tramp(None, 0, id(fn))
    tramp_status = got
    assert tramp_status == [0] and sys.getrefcount(fn) == before


def test_trampoline_turns_exceptions_into_warnings():
    tramp = make_callback_trampoline()

    def bad(status):
        raise KeyError(f"boom {status}")

    before = sys.getrefcount(bad)
    _incref(bad)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tramp(None, 700, id(bad))
    assert [str(x.message) for x in w] == ["Exception in stream callback: KeyError('boom 700')"]
    assert sys.getrefcount(bad) == before


def test_add_callback_refuses_a_non_callable_before_the_driver():
    import pytest

    import cudalite.driver as drv

    with pytest.raises(TypeError, match="must be callable, not int"):
        drv.add_callback(None, 5)
