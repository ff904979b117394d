"""Simulator behaviour that the GPU suite under ``CUDALITE_ENABLE_CUDASIM=1`` relies on
(numba.cuda semantics found missing when the suite first ran simulated): aligned
local/shared arrays, kernels called from kernels, record scalars by reference,
``to_device``/``auto_device`` of device arrays, views that would need a copy, mapped
arrays, stream handles, the device name, and unsupported classes that can be subclassed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cudalite.cuda import simulator as cuda


def test_aligned_local_and_shared_arrays():
    @cuda.jit
    def f(out):
        la = cuda.local.array(shape=3, dtype=np.uint8, alignment=64)
        sa = cuda.shared.array(shape=(2, 3), dtype=np.float32, alignment=256)
        la[2] = 5
        sa[1, 2] = 1.5
        out[0] = la.ctypes.data
        out[1] = sa.ctypes.data
        out[2] = la[2] + la[0]
        out[3] = sa.shape[0] * 10 + sa.shape[1]

    out = np.zeros(4, np.uint64)
    f[1, 1](out)
    assert out[0] % 64 == 0 and out[1] % 256 == 0 and out[2] == 5 and out[3] == 23

    @cuda.jit
    def bad(out):
        cuda.local.array(4, np.int32, alignment=3)

    with pytest.raises(ValueError, match="alignment must be a positive power of two, not 3"):
        bad[1, 1](out)


def test_kernel_called_from_a_kernel_is_a_device_call():
    @cuda.jit
    def twice(v):
        return v * 2

    @cuda.jit
    def outer(a):
        a[0] = twice(a[0])

    a = np.array([21])
    outer[1, 1](a)
    assert a[0] == 42
    with pytest.raises(ValueError, match="needs a launch configuration"):
        twice(3)


def test_record_scalar_is_passed_by_reference():
    rec_t = np.dtype([("a", np.float64), ("b", np.int32)], align=True)

    @cuda.jit
    def upd(r, v):
        r.b = v
        r.a = r.a * 2.0
        r["a"] += 1.0

    arr = np.zeros(2, rec_t)
    arr["a"] = [1.0, 2.5]
    upd[1, 1](arr[1], 7)
    assert arr[1]["a"] == 6.0 and arr[1]["b"] == 7 and arr[0]["b"] == 0

    @cuda.jit
    def wrong(r):
        r.nope = 1

    with pytest.raises(AttributeError, match="has no field 'nope'"):
        wrong[1, 1](arr[0])


def test_to_device_and_auto_device_of_a_device_array():
    d = cuda.to_device(np.arange(4))
    assert cuda.to_device(d) is d
    assert cuda.devicearray.auto_device(d) == (d, False)
    d2, copied = cuda.devicearray.auto_device(3)
    assert copied and d2.copy_to_host() == np.array(3)
    with pytest.raises(ValueError, match="non-contiguous"):
        cuda.devicearray.auto_device(np.arange(10.0)[::2])


def test_views_never_copy():
    h = np.arange(24.0).reshape(4, 6)
    d = cuda.to_device(h)
    np.testing.assert_array_equal(d.reshape(3, 8).copy_to_host(), h.reshape(3, 8))
    with pytest.raises(NotImplementedError, match="operation requires copying"):
        d.T.reshape(24)
    with pytest.raises(NotImplementedError, match="operation requires copying"):
        d[:, ::2].ravel()
    assert d.T.gpu_data is d.gpu_data and d._layout == "C" and d.T._layout == "F" and d[:, ::2]._layout == "A"


def test_mapped_gives_device_arrays_over_host_memory():
    h, h2 = np.arange(5.0), np.zeros(5)
    with cuda.mapped(h, h2) as (dh, dh2):
        dh2.copy_to_device(dh)
    np.testing.assert_array_equal(h2, h)


def test_stream_handles_and_device_name():
    s1, s2 = cuda.stream(), cuda.stream()
    assert int(s1) not in (0, 1, 2) and int(s1) != int(s2)
    assert int(cuda.default_stream()) == 0
    assert int(cuda.legacy_default_stream()) == 1 and int(cuda.per_thread_default_stream()) == 2
    assert cuda.get_current_device().name == "SIMULATOR"


def test_unsupported_class_can_be_subclassed_but_not_instantiated():
    class EMM(cuda.HostOnlyCUDAMemoryManager):
        pass

    with pytest.raises(NotImplementedError, match="external memory managers"):
        EMM()


def test_in_hint_is_not_copied_back_and_configure_launches():
    @cuda.jit
    def add_one(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] + 1
            x[i] = -1

    x = np.arange(8.0)
    out = np.zeros(8)
    add_one[1, 8](cuda.Out(out), cuda.In(x))
    np.testing.assert_array_equal(x, np.arange(8.0))
    np.testing.assert_array_equal(out, np.arange(8.0) + 1)
    add_one.configure(1, 8)(cuda.InOut(out), cuda.InOut(x))
    np.testing.assert_array_equal(x, np.full(8, -1.0))


def test_stream_callback_status_and_async_done():
    import asyncio

    s = cuda.stream()
    seen = []
    s.add_callback(lambda stream, status, arg: seen.append((stream is s, status, arg)), "a")
    assert seen == [(True, 0, "a")]

    async def main():
        return await s.async_done()

    assert asyncio.run(main()) is s


def test_print_of_thread_index_in_a_kernel(capsys):
    @cuda.jit
    def k():
        print(cuda.threadIdx, cuda.blockIdx)

    k[(1, 2), (2, 1, 1)]()
    lines = sorted(capsys.readouterr().out.splitlines())
    assert lines == ["(0, 0, 0) (0, 0, 0)", "(0, 0, 0) (0, 1, 0)", "(1, 0, 0) (0, 0, 0)", "(1, 0, 0) (0, 1, 0)"]
    assert repr(cuda.threadIdx) == "<cudalite simulator tid reader>"  # outside a kernel


def test_reduce_of_an_empty_array_is_init_in_the_arrays_dtype():
    got = cuda.reduce(lambda a, b: a + b)(np.zeros(0, np.float32), init=5)
    assert got == 5 and np.asarray(got).dtype == np.float32


def test_vector_constructors_carry_their_type_and_aliases():
    from cudalite import nvvm

    ctor = cuda.float32x4
    assert ctor.vector_type is nvvm.float32x4.vector_type and ctor.aliases == nvvm.float32x4.aliases == ("float4",)
    assert cuda.float4 is ctor


def test_vectorize_chooses_the_loop_from_the_input_dtypes():
    from cudalite.types import float32, float64, int32

    @cuda.vectorize([int32(int32, int32), float32(float32, float32), float64(float64, float64)])
    def add(a, b):
        return a + b

    for dtype in (np.int32, np.float32, np.float64):
        x = np.arange(5, dtype=dtype)
        got = add(x, x)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, x + x)
    assert add(np.int16(3), 4).dtype == np.int32  # int16 casts safely to the first loop
    assert add.reduce(np.arange(10, dtype=np.int32)) == 45
    with pytest.raises(TypeError, match=r"no loop for the input types \(complex128, complex128\)"):
        add(np.ones(2, complex), np.ones(2, complex))


def test_libdevice_bit_functions_tuples_and_fast_variants():
    lib = cuda.libdevice
    assert lib.popc(np.int32(-1)) == 32 and lib.clz(np.int32(1)) == 31 and lib.abs(np.int32(-4)) == 4
    assert lib.brev(np.int32(1)) == np.int32(-2**31) and lib.brev(np.int32(1)).dtype == np.int32
    s, c = lib.sincosf(0.5)
    assert (s, c) == (math.sin(0.5), math.cos(0.5)) and lib.fast_sinf(0.5) == math.sin(0.5)
    assert lib.remquo(7.0, 3.0) == (1.0, 2)
    with pytest.raises(AttributeError, match="cuda.libdevice has no function 'nosuch'"):
        lib.nosuch
    with pytest.raises(NotImplementedError, match=r"cuda\.libdevice\.rsqrtf: special functions with no Python math "
                                                  "counterpart cannot be simulated"):
        lib.rsqrtf


def test_record_argument_assigned_into_a_record_array():
    rec_t = np.dtype([("a", np.float64), ("b", np.int16)], align=True)

    @cuda.jit
    def k(ary, rec):
        ary[1] = rec

    ary = np.zeros(2, rec_t)
    k[1, 1](ary, np.array([(2.5, 7)], rec_t)[0])
    assert ary[1]["a"] == 2.5 and ary[1]["b"] == 7 and ary[0]["b"] == 0
    assert cuda.event().record() is not None  # record() returns the event
