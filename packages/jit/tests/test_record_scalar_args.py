"""Record scalars as kernel arguments (numba: by reference to a device copy, copied
back after the launch); it was "a record scalar cannot be passed to a kernel".
GPU-less: the handler, the type, the compiled kernel and the copy-back."""

import numpy as np

from cudalite import types
from cudalite.core.abi import Role, kernel_abi
from cudalite.cuda._launch.host import DeviceRecord, RecordCopyBack, RecordScalarKind
from cudalite.cuda._launch.keys import compatible, key_to_type
from cudalite.cuda._launch.kinds import kind_for
from cudalite.cuda._compiler.kernel import CompiledKernel
from cudalite.cuda._compiler.options import JitOptions

REC = np.dtype([("a", np.float64), ("b", np.int32)], align=True)


def _set_b(r, v):
    r.b = v
    r.a = r.a * 2.0


def test_record_scalar_gets_the_record_handler_and_type():
    arr = np.zeros(2, dtype=REC)
    for sample in (arr[1], arr.view(np.recarray)[0]):
        h = kind_for(type(sample), sample, None)
        assert isinstance(h, RecordScalarKind) and h.needs_copy(sample) and not h.warns_copy(sample)
        key = h.key(sample)
        t = key_to_type(key)
        assert t == types.from_dtype(REC)
        assert compatible(key, t) == 1
        assert kernel_abi((t,)).args[0].slots[0].role is Role.POINTER  # one pointer: by reference


def test_kernel_with_a_record_parameter_compiles():
    t = types.from_dtype(REC)
    k = CompiledKernel(_set_b, (t, types.int32), JitOptions(), (8, 0), load=False)
    assert k.artifact.cubin[:4] == b"\x7fELF"
    assert "st.global.u32" in k.ptx or "st.u32" in k.ptx


def test_copy_back_updates_the_record_in_its_array(monkeypatch):
    arr = np.zeros(2, dtype=REC)
    arr[1]["a"] = 1.5
    rec = arr[1]
    host = np.empty(1, dtype=REC)
    host[0] = rec
    back = RecordCopyBack(rec, host)
    synced = []
    from cudalite.cuda._launch import host

    monkeypatch.setattr(host, "_synchronize", lambda stream: synced.append(stream))

    class FakeDevice:
        def copy_to_host(self, out, stream=0):
            out["a"], out["b"] = 3.0, 42  # what the kernel wrote

    back.copy_back(FakeDevice(), 0)
    assert synced == [0]
    assert arr[1]["a"] == 3.0 and arr[1]["b"] == 42 and arr[0]["b"] == 0


def test_device_record_flat_is_its_pointer():
    class FakeArray:
        dtype = REC
        __cuda_array_interface__ = {"data": (0x7000_1000, False)}

    d = DeviceRecord(FakeArray())
    h = kind_for(type(d), d, None)
    assert h.key(d) == REC and h.flat(d, None, 0) == (0x7000_1000,)
