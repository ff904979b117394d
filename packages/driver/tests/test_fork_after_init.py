"""A child forked after the driver was initialized cannot use CUDA (the CUDA
driver's rule): cudalite raises numba's ``CudaDriverError("CUDA initialized before
forking")`` there instead of calling into the parent's state (GPU-less: the
initialized driver is stood in for)."""

from __future__ import annotations

import os

import pytest

from cudalite.driver import CudaDriverError, _state

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def test_child_forked_after_init_gets_numbas_error(monkeypatch):
    monkeypatch.setattr(_state, "_DRIVER", object())  # "initialized"
    monkeypatch.setattr(_state, "_FORKED", [])
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report what get_driver() does, and leave at once
        try:
            _state.get_driver()
            msg = b"no error"
        except CudaDriverError as e:
            msg = str(e).encode()
        except BaseException as e:  # noqa: BLE001
            msg = repr(e).encode()
        os.write(w, msg)
        os._exit(0)
    os.close(w)
    got = os.read(r, 4096).decode()
    os.close(r)
    os.waitpid(pid, 0)
    assert got == "[3] CUDA initialized before forking"
    assert not _state._FORKED  # the parent is untouched


def test_child_forked_before_init_may_initialize(monkeypatch):
    monkeypatch.setattr(_state, "_DRIVER", None)
    monkeypatch.setattr(_state, "_FORKED", [])
    _state._after_fork_in_child()
    assert _state._FORKED == [] and _state._DRIVER is None
