"""Issue 28, finding 13: the code a pickled kernel carries is checked (a SHA-256 of the
carried cubin and code texts, verified before it is used), and a tampered pickle is a
:class:`pickle.UnpicklingError`, never an internal AttributeError or TypeError.

GPU-less: kernels are built for sm_90 without loading (as in test_pickling_carry)."""

from __future__ import annotations

import functools
import pickle
import warnings

import pytest

from cudalite import cuda
from cudalite.core.errors import NumbaWarning
from cudalite.cuda import types
from cudalite.cuda._compiler import carry as _carry
from cudalite.cuda._compiler.artifact import MAGIC, KernelArtifact, PayloadError
from cudalite.cuda._compiler.kernel import CompiledKernel
from cudalite.cuda._dispatch import kernel as _dispatcher
from cudalite.cuda._ufuncs import vectorize as _vectorize

SIG = (types.float32[::1], types.float32)
NOLOAD = functools.partial(CompiledKernel, load=False)


def _make():
    @cuda.jit
    def scale(a, s):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= s

    return scale


@pytest.fixture
def compiled(monkeypatch):
    monkeypatch.setattr(_dispatcher, "current_cc", lambda: (9, 0))
    k = _make()
    k._compiler = NOLOAD
    k.compile(SIG)
    return k


def _flipped(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]


def _loads_quietly(data):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        k = pickle.loads(data)
    return k, [str(w.message) for w in record if issubclass(w.category, NumbaWarning)]


def test_a_flipped_cubin_byte_is_never_used(compiled):
    cubin = compiled.overloads[SIG].artifact.cubin
    data = pickle.dumps(compiled)
    start = data.index(cubin)
    step = max(1, len(cubin) // 61)
    for at in range(start, start + len(cubin), step):
        k, messages = _loads_quietly(_flipped(data, at))
        assert not isinstance(k._compiler, _carry.CarriedCode), f"a flip at cubin byte {at - start} was accepted"
        assert len(messages) == 1 and "is not valid (kernel artifact: the carried code does not match its " \
                                       "SHA-256" in messages[0] and "compiled again on first use" in messages[0]


def test_a_flipped_ptx_byte_is_never_used(compiled):
    assert ".address_size" in compiled.overloads[SIG].artifact.stage("ptx")
    data = pickle.dumps(compiled)
    payload = data.index(MAGIC)  # (this file's text travels too, before the payload)
    at = data.index(b".address_size", payload) + 3  # in the PTX text (JSON-escaped in the payload)
    k, messages = _loads_quietly(_flipped(data, at))
    assert not isinstance(k._compiler, _carry.CarriedCode) and "SHA-256" in messages[0]


def test_intact_pickle_still_carries_its_code(compiled):
    k, messages = _loads_quietly(pickle.dumps(compiled))
    assert messages == [] and isinstance(k._compiler, _carry.CarriedCode)
    (art,) = k._compiler.artifacts.values()
    assert art.cubin == compiled.overloads[SIG].artifact.cubin


def test_payload_without_its_digest_is_refused(compiled):
    import json
    import struct

    data = compiled.overloads[SIG].artifact.to_payload()
    n = struct.unpack_from("<II", data, len(MAGIC))[1]
    start = len(MAGIC) + 8
    doc = json.loads(data[start:start + n])
    del doc["sha256"]
    body = json.dumps(doc).encode()
    with pytest.raises(PayloadError, match="malformed field"):
        KernelArtifact.from_payload(data[:len(MAGIC)] + struct.pack("<II", 3, len(body)) + body + data[start + n:],
                                    SIG)


@pytest.mark.parametrize("field, value, what", [
    ("options", 5, "the options of a CUDADispatcher are a int"),
    ("options", {"link": ()}, "the options of a CUDADispatcher are a dict"),
    ("_sigs", 5, "the signatures of a CUDADispatcher are a int"),
])
def test_tampered_dispatcher_fields_are_unpickling_errors(compiled, field, value, what):
    setattr(compiled, field, value)
    data = pickle.dumps(compiled)
    with pytest.raises(pickle.UnpicklingError, match="is malformed \\(" + what):
        pickle.loads(data)


def test_tampered_function_globals_fail_while_the_users_unpickler_opens_the_stream(compiled, monkeypatch):
    """cudalite never unpickles: the nested by-value stream is opened by the user's own
    ``pickle.loads``, so an altered one fails there with the rebuilding error (no
    dispatcher is made from it)."""
    import cloudpickle.cloudpickle as cp

    real = cp._function_getstate

    def tampered(func):
        state, slotstate = real(func)
        return state, dict(slotstate, __globals__=5)

    monkeypatch.setattr(cp, "_function_getstate", tampered)
    data = pickle.dumps(compiled)
    monkeypatch.undo()
    with pytest.raises(TypeError, match="'int' object is not iterable"):
        pickle.loads(data)


@pytest.mark.parametrize("field, value, what", [
    ("_jit_options", 5, "the options of a ufunc are a int"),
    ("_sigs", 5, "the signatures of a ufunc are a int"),
])
def test_tampered_ufunc_fields_are_unpickling_errors(field, value, what):
    uf = _vectorize.CUDAUFunc(lambda x: x, ["float32(float32)"])
    setattr(uf, field, value)
    data = pickle.dumps(uf)
    with pytest.raises(pickle.UnpicklingError, match="is malformed \\(" + what):
        pickle.loads(data)
