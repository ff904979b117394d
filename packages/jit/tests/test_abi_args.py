"""GPU-less: for every kind of argument the runtime flattens to exactly the slots that
the kernel ABI (cudalite.core.abi) gives its parameter, in slot order -- through the
handlers' ``flat`` (the dispatcher's slow path) and through the generated fast path
(first launch and identity-cache hit)."""

from __future__ import annotations

import types

import numpy as np
import pytest

from cudalite.core.abi import Role, kernel_abi
from cudalite.core.types import (
    Array, Tuple, boolean, complex64, complex128, float32, float64, int32, int64,
)
from cudalite.cuda._memory import layout as L
from cudalite.cuda._launch.keys import compatible
from cudalite.cuda._launch.config import make_config
from cudalite.cuda._launch.fastpath import make_factory

from _fake_arrays import BASE, FakeKernel, handler, install_fake_libs, make_source

PTR = BASE + 0x100
SHAPES = {1: (7,), 2: (3, 5), 3: (2, 3, 4)}


@pytest.fixture
def fake_libs(monkeypatch):
    install_fake_libs(monkeypatch)


def layout_strides(shape, itemsize, layout):
    if layout == "C":
        return L.c_strides(shape, itemsize)
    if layout == "F":
        return L.f_strides(shape, itemsize)
    return tuple(2 * s for s in L.c_strides(shape, itemsize))  # every other element: neither C nor F


def expected(obj, spec, arrays):
    """The values the slots of ``spec`` ask for, read off ``obj`` (``arrays``: id of an
    array object -> its (ptr, shape, strides))."""
    if isinstance(spec.type, Tuple):
        return tuple(v for x, item in zip(obj, spec.items) for v in expected(x, item, arrays))
    out = []
    for s in spec.slots:
        if s.role in (Role.DATA, Role.SHAPE, Role.STRIDE):
            ptr, shape, strides = arrays[id(obj)]
            out.append({Role.DATA: lambda: ptr, Role.SHAPE: lambda: shape[s.dim],
                        Role.STRIDE: lambda: strides[s.dim]}[s.role]())
        elif s.role is Role.REAL:
            out.append(complex(obj).real)
        elif s.role is Role.IMAG:
            out.append(complex(obj).imag)
        elif s.role is Role.BOOL:
            out.append(1 if obj else 0)
        else:
            out.append(obj)
    return tuple(out)


def _kern(*args):
    pass


def fast_path_values(objs, argtypes):
    """The values the generated launch code passes (two launches: the second may hit
    the identity cache; both must agree)."""
    hs = [handler(o) for o in objs]
    keys = [h.key(o) for h, o in zip(hs, objs)]
    calls = []

    def slow(*a):
        raise AssertionError("the fast path's guard rejected its own arguments")

    disp = types.SimpleNamespace(py_func=_kern, _launch_slow=slow)
    factory = make_factory(disp, [f"a{i}" for i in range(len(objs))], hs, keys, FakeKernel(argtypes, calls), {})
    launch = factory(make_config(1, 1), None)
    launch(*objs)
    launch(*objs)
    assert calls[0] == calls[1]
    return calls[0]


# (ndim, the array's layout, the parameter's layout): its own, or 'A' (a conversion)
ARRAY_CASES = sorted({(ndim, layout, param) for ndim in (1, 2, 3) for layout in "CFA" for param in (layout, "A")
                      if not (ndim == 1 and layout == "F")})


@pytest.mark.parametrize("kind", ["device", "cai", "dlpack", "cupy", "torch"])
@pytest.mark.parametrize("ndim, layout, param", ARRAY_CASES)
def test_arrays_flatten_to_their_slots(fake_libs, kind, ndim, layout, param):
    shape = SHAPES[ndim]
    strides = layout_strides(shape, 4, layout)
    obj = make_source(kind, PTR, shape, strides, np.float32)
    h = handler(obj)
    key = h.key(obj)
    assert key == (np.dtype(np.float32), ndim, layout)
    t = Array(float32, ndim, param)
    assert compatible(key, t) >= 0
    spec = kernel_abi((t,)).args[0]
    want = expected(obj, spec, {id(obj): (PTR, shape, strides)})
    assert len(want) == spec.count == 1 + ndim * (2 if param == "A" else 1)
    assert tuple(h.flat(obj, spec, 0)) == want
    assert fast_path_values([obj], (t,)) == want


SCALARS = [
    (1.5, float64), (1.5, float32), (3, int64), (3, float64), (True, boolean), (True, int32), (False, float64),
    (1 + 2j, complex128), (2, complex64), (True, complex64), (np.float32(2.5), float32), (np.int16(7), int32),
    (np.bool_(True), boolean), (np.complex64(1 - 1j), complex64), (np.int64(-4), float64),
]


@pytest.mark.parametrize("value, t", SCALARS, ids=lambda x: str(x))
def test_scalars_flatten_to_their_slots(value, t):
    h = handler(value)
    assert compatible(h.key(value), t) >= 0
    spec = kernel_abi((t,)).args[0]
    want = expected(value, spec, {})
    assert len(want) == spec.count
    assert tuple(h.flat(value, spec, 0)) == want
    assert fast_path_values([value], (t,)) == want


def test_tuples_flatten_item_by_item(fake_libs):
    arr = make_source("device", PTR, (3, 5), (20, 4), np.float32)
    cai = make_source("cai", PTR + 64, (4,), (8,), np.float32)
    obj = (1.5, (7, arr), np.float32(3), (cai, True))
    t = Tuple((float64, Tuple((int64, Array(float32, 2, "A"))), float32, Tuple((Array(float32, 1, "A"), boolean))))
    spec = kernel_abi((t,)).args[0]
    arrays = {id(arr): (PTR, (3, 5), (20, 4)), id(cai): (PTR + 64, (4,), (8,))}
    want = expected(obj, spec, arrays)
    assert want == (1.5, 7, PTR, 3, 5, 20, 4, 3.0, PTR + 64, 4, 8, 1) and len(want) == spec.count
    assert tuple(handler(obj).flat(obj, spec, 0)) == want
    assert fast_path_values([obj], (t,)) == want


def test_a_whole_signature_in_parameter_order(fake_libs):
    shape2 = (3, 5)
    objs = [make_source("cupy", PTR, shape2, L.f_strides(shape2, 8), np.float64), 2.5,
            make_source("torch", PTR + 8, shape2, (40, 4), np.float32), (1, 2j),
            make_source("device", PTR + 16, (6,), (16,), np.float32), True]
    argtypes = (Array(float64, 2, "F"), float32, Array(float32, 2, "A"), Tuple((int32, complex128)),
                Array(float32, 1, "A"), boolean)
    arrays = {id(objs[0]): (PTR, shape2, L.f_strides(shape2, 8)), id(objs[2]): (PTR + 8, shape2, (40, 4)),
              id(objs[4]): (PTR + 16, (6,), (16,))}
    abi = kernel_abi(argtypes)
    want = tuple(v for o, spec in zip(objs, abi.args) for v in expected(o, spec, arrays))
    assert len(want) == len(abi.slots) == len(abi.param_format)
    assert want == (PTR, 3, 5, 2.5, PTR + 8, 3, 5, 40, 4, 1, 0.0, 2.0, PTR + 16, 6, 16, 1)
    slow = tuple(v for o, spec in zip(objs, abi.args) for v in handler(o).flat(o, spec, 0))
    assert slow == want
    assert fast_path_values(objs, argtypes) == want


@pytest.mark.parametrize("kind", ["device", "cai", "dlpack", "cupy", "torch"])
def test_zero_d_arrays_flatten_to_their_data_pointer(fake_libs, kind):
    # numba-cuda's 0-d result arrays (np.zeros((), np.float32)): the ABI has no extents;
    # the generated launch code used to unpack an empty shape (a SyntaxError)
    obj = make_source(kind, PTR, (), (), np.float32)
    h = handler(obj)
    key = h.key(obj)
    assert key == (np.dtype(np.float32), 0, "C")
    t = Array(float32, 0, "C")
    assert compatible(key, t) == 1
    spec = kernel_abi((t,)).args[0]
    assert tuple(h.flat(obj, spec, 0)) == (PTR,)
    assert fast_path_values([obj], (t,)) == (PTR,)
