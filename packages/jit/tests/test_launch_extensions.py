"""numba-cuda's launch extensions (``cuda.jit(extensions=...)``, ``kernel.extensions``)
without a GPU: validation, the order extensions run in, the work they register, and
that changing the list drops the kernel's launchers."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda
from cudalite.cuda._dispatch.extensions import apply_extensions
from cudalite.cuda.args import In, InOut, wrap_arg


class Tag:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def prepare_args(self, ty, val, stream=None, retr=None):
        self.log.append((self.name, str(ty)))
        retr.append(lambda: self.log.append(("after", self.name)))
        return ty, val


class DefaultIn:
    def prepare_args(self, ty, val, **kwargs):
        return ty, wrap_arg(val, default=In)


def test_extensions_run_last_first_and_register_work():
    log = []
    args, retr = apply_extensions([Tag("a", log), Tag("b", log)], (np.zeros(2, np.float32), 3), 0)
    assert [n for n, _ in log] == ["b", "a", "b", "a"]
    assert log[0][1] == "array(float32, 1d, C)" and log[2][1] == "int64"
    for work in retr:
        work()
    assert log[-4:] == [("after", "b"), ("after", "a"), ("after", "b"), ("after", "a")]


def test_wrap_arg_keeps_a_hint_and_wraps_a_value():
    a = np.zeros(1)
    assert isinstance(wrap_arg(a), InOut) and wrap_arg(a).value is a
    hinted = In(a)
    assert wrap_arg(hinted, default=InOut) is hinted
    (out,), _ = apply_extensions([DefaultIn()], (a,), 0)
    assert isinstance(out, In) and out.value is a


def test_jit_takes_extensions_and_checks_them():
    def f(a):
        a[0] = 3

    k = cuda.jit(extensions=[DefaultIn()])(f)
    assert len(k.extensions) == 1
    with pytest.raises(TypeError, match="needs a prepare_args"):
        cuda.jit(extensions=[object()])(f)
    with pytest.raises(TypeError, match="extensions must be a list"):
        cuda.jit(extensions=DefaultIn())
    with pytest.raises(TypeError, match="device function"):
        cuda.jit(device=True, extensions=[DefaultIn()])
    with pytest.raises(TypeError, match="needs a prepare_args"):
        k.extensions.append(42)


def test_changing_the_extensions_drops_launchers():
    k = cuda.jit(lambda a: None)
    table = k._table
    table.configs["x"] = object()
    table.factories["y"] = object()
    table.last_factory = object()
    k.extensions.append(DefaultIn())
    assert not table.configs and not table.factories and table.last_factory is None
