"""More numba-style usage: argument kinds, launch shapes and runtime features together."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda, types

pytestmark = pytest.mark.gpu


@cuda.jit(device=True)
def in_circle(x, y):
    return x * x + y * y <= 1.0


@cuda.jit
def grid3(out, n, offsets):
    x, y, z = cuda.grid(3)
    if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
        v = x * 100 + y * 10 + z + offsets[0] + offsets[1]
        if in_circle(x / n, y / n):
            out[x, y, z] = v
        else:
            out[x, y, z] = -v


def test_3d_grid_tuple_argument_and_bool_device_function(gpu):
    out = cuda.device_array((5, 6, 7), dtype=np.int64)
    n = np.uint32(4)
    grid3[(2, 2, 2), (4, 4, 4)](out, n, (1, 2))
    x, y, z = np.meshgrid(np.arange(5), np.arange(6), np.arange(7), indexing="ij")
    v = x * 100 + y * 10 + z + 3
    ref = np.where((x / 4.0) ** 2 + (y / 4.0) ** 2 <= 1.0, v, -v)
    np.testing.assert_array_equal(out.copy_to_host(), ref)


@cuda.jit
def scale_strided(a, factor):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] *= factor


def test_strided_device_views_and_setitem(gpu):
    host = np.arange(20, dtype=np.float32)
    d = cuda.to_device(host)
    scale_strided[1, 32](d[::2], 10.0)
    d[1] = -1.0
    ref = host.copy()
    ref[::2] *= 10
    ref[1] = -1
    np.testing.assert_array_equal(d.copy_to_host(), ref)


@cuda.jit
def dyn_shared_sum(x, out):
    buf = cuda.shared.array(0, dtype=types.float64)
    t = cuda.threadIdx.x
    buf[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        s = 0.0
        for k in range(cuda.blockDim.x):
            s += buf[k]
        out[cuda.blockIdx.x] = s


def test_dynamic_shared_memory_with_stream(gpu):
    x = np.arange(256, dtype=np.float64)
    out = np.zeros(4)
    s = cuda.stream()
    dyn_shared_sum[4, 64, s, 64 * 8](cuda.to_device(x, stream=s), cuda.to_device(out, stream=s))
    d_out = cuda.device_array(4)
    dyn_shared_sum[4, 64, s, 64 * 8](cuda.to_device(x, stream=s), d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(stream=s), x.reshape(4, 64).sum(axis=1))


@cuda.jit
def atomic_extremes(x, res):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.max(res, 0, x[i])
        cuda.atomic.min(res, 1, x[i])


def test_float_atomic_max_min(gpu):
    x = np.random.default_rng(2).normal(size=5000)
    res = np.array([-np.inf, np.inf])
    atomic_extremes[(5000 + 127) // 128, 128](x, res)
    np.testing.assert_array_equal(res, [x.max(), x.min()])


@cuda.jit("void(complex128[:], float64[:])")
def complex_stats(z, out):
    i = cuda.grid(1)
    if i < z.size:
        w = z[i] * z[i].conjugate() + 1j
        out[i] = abs(w) + z[i].real - z[i].imag


def test_eager_complex_signature(gpu):
    z = np.random.default_rng(4).normal(size=64) + 1j * np.random.default_rng(5).normal(size=64)
    out = np.zeros(64)
    complex_stats[2, 32](z, out)
    np.testing.assert_allclose(out, np.abs(z * z.conj() + 1j) + z.real - z.imag, rtol=1e-12)


rec = np.dtype([("pos", np.float32, ), ("vel", np.float32), ("id", np.int32)])


@cuda.jit
def step_particles(p, dt):
    i = cuda.grid(1)
    if i < p.shape[0]:
        p[i].pos = p[i].pos + p[i].vel * dt
        if p[i].pos > 1.0:
            p[i].vel = -p[i].vel
            return
        p[i]["id"] = p[i]["id"] + 1


def test_record_arrays_on_device(gpu):
    p = np.zeros(50, dtype=rec)
    p["pos"] = np.linspace(0, 1.2, 50)
    p["vel"] = 0.5
    d = cuda.to_device(p)
    step_particles[2, 32](d, np.float32(0.1))
    got = d.copy_to_host()
    pos = (p["pos"] + p["vel"] * np.float32(0.1)).astype(np.float32)
    np.testing.assert_allclose(got["pos"], pos, rtol=1e-6)
    np.testing.assert_array_equal(got["vel"], np.where(pos > 1.0, -0.5, 0.5).astype(np.float32))
    np.testing.assert_array_equal(got["id"], np.where(pos > 1.0, 0, 1))


@cuda.jit
def int_power_table(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        b = i - 5
        out[i, 0] = b ** 3
        out[i, 1] = (-2) ** i
        out[i, 2] = b // 3
        out[i, 3] = b % 3


def test_integer_semantics_in_a_launch(gpu):
    out = np.zeros((11, 4), np.int64)
    int_power_table[1, 16](out)
    b = np.arange(11) - 5
    np.testing.assert_array_equal(out, np.stack([b ** 3, (-2) ** np.arange(11), b // 3, b % 3], axis=1))


@pytest.mark.nosim("foreign device arrays: CUDA array interface and DLPack need real device pointers")
def test_forall_and_cupy_arguments(gpu):
    cupy = pytest.importorskip("cupy")
    a = cupy.arange(1000, dtype=cupy.float64)
    scale_strided.forall(1000)(a, 3.0)
    np.testing.assert_array_equal(cupy.asnumpy(a), np.arange(1000) * 3.0)


@pytest.mark.nosim("foreign device arrays: CUDA array interface and DLPack need real device pointers")
def test_torch_arguments(gpu):
    torch = pytest.importorskip("torch")
    t = torch.arange(64, dtype=torch.float32, device="cuda")
    scale_strided[1, 64](t, 0.5)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(64, dtype=np.float32) * 0.5)


class _DLPackOnly:
    """A CUDA tensor that exports only DLPack (no __cuda_array_interface__)."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()

    def __dlpack__(self, stream=None):
        return self.tensor.__dlpack__(stream=stream)


@pytest.mark.nosim("foreign device arrays: CUDA array interface and DLPack need real device pointers")
def test_dlpack_only_producers_are_kernel_arguments(gpu):
    torch = pytest.importorskip("torch")
    t = torch.arange(64, dtype=torch.float32, device="cuda")
    wrapped = _DLPackOnly(t)
    assert not hasattr(wrapped, "__cuda_array_interface__")
    scale_strided[1, 64](wrapped, 2.0)
    scale_strided[1, 64](_DLPackOnly(t[::2]), 10.0)
    torch.cuda.synchronize()
    ref = np.arange(64, dtype=np.float32) * 2
    ref[::2] *= 10
    np.testing.assert_array_equal(t.cpu().numpy(), ref)
