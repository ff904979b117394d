"""The simulator against the GPU, one generated kernel per device function.

Each test compiles a small kernel calling one registry key (a ``math``/``cmath``
function, a ``cuda.libdevice`` function, a ``cuda.fp16`` function, a bit intrinsic) and
runs it on the GPU; the simulator's implementation of the same key
(:func:`cudalite.cuda.simulator.device_table.simulator_entry`) runs on the same inputs.
The thread-state, warp and block functions are compared by launching one kernel on the
GPU and the same Python function through the simulator
(:func:`sim_harness.simulated_device_api`).  Tolerances (docs/simulator.md): float64
``rtol=4e-15``, float32 ``rtol=4e-6`` (libdevice's few ulp against the simulator's
float64-then-rounded result), libdevice's ``fast_`` approximations ``rtol=2e-5,
atol=1e-6``, float16 ``rtol=4e-3, atol=1e-3`` (the GPU's half-precision
approximations), complex128 ``rtol=1e-11``; integers and predicates exactly.  Inputs
stay inside every function's domain, where Python's math does not raise.

Run on a GPU machine: ``pytest -m gpu tests-integration/gpu/test_gpu_sim_parity.py``.
"""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest

from cudalite import cuda
from cudalite import nvvm as dev
from cudalite.core import device_api
from cudalite.core.libdevice_table import FUNCTIONS as LIBDEVICE
from cudalite.core.typing.rules.mathfuncs import CMATH_UNARY, MATH_BINARY, MATH_PREDICATES, MATH_UNARY

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("compares the simulator with the GPU")]

_RTOL = {np.float32: 4e-6, np.float64: 4e-15}
_X = (0.125, 0.25, 0.5, 0.75, 0.9, 0.3, 0.6)
_Y = (0.5, 1.5, 2.0, 0.25, 3.0, 1.0, 0.7)
_N = (0, 1, 3, -2, 5, -1, 2)
_DOMAIN = {"acosh": lambda x: 1.0 + x}  # where _X is outside the function's domain
_LD_TYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64}


def _sim(key):
    from cudalite.cuda.simulator.device_table import simulator_entry

    entry = simulator_entry(key)
    assert entry.implementation is not None, entry
    return entry.implementation


def _run(fn, dtypes, inputs, out_dtypes):
    """Launch ``out_k[i] = fn(x[i], ...)`` (``fn`` returning ``len(out_dtypes)`` values)
    on the GPU; ``(outputs, typed inputs)``."""
    args = [np.asarray(a, dtype=d) for a, d in zip(inputs, dtypes)]
    outs = [np.zeros(len(inputs[0]), dtype=d) for d in out_dtypes]
    kernels = {
        (1, 1): _kernel_1_1, (2, 1): _kernel_2_1, (3, 1): _kernel_3_1, (1, 2): _kernel_1_2, (2, 2): _kernel_2_2,
    }
    cuda.jit(kernels[len(args), len(outs)](fn))[1, 32](*outs, *args)
    return outs, args


def _kernel_1_1(fn):
    def k(r, x):
        i = dev.grid(1)
        if i < r.size:
            r[i] = fn(x[i])
    return k


def _kernel_2_1(fn):
    def k(r, x, y):
        i = dev.grid(1)
        if i < r.size:
            r[i] = fn(x[i], y[i])
    return k


def _kernel_3_1(fn):
    def k(r, x, y, z):
        i = dev.grid(1)
        if i < r.size:
            r[i] = fn(x[i], y[i], z[i])
    return k


def _kernel_1_2(fn):
    def k(r, s, x):
        i = dev.grid(1)
        if i < r.size:
            a, b = fn(x[i])
            r[i] = a
            s[i] = b
    return k


def _kernel_2_2(fn):
    def k(r, s, x, y):
        i = dev.grid(1)
        if i < r.size:
            a, b = fn(x[i], y[i])
            r[i] = a
            s[i] = b
    return k


# -- math and cmath ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", MATH_UNARY)
def test_math_unary_gpu_matches_simulator(name, dtype):
    if name == "trunc" and dtype is np.float32:
        pytest.skip("a documented divergence (device_table.KNOWN_DIVERGENCES): math.trunc(float32) raises")
    fn = getattr(math, name)
    (gpu,), (x,) = _run(fn, [dtype], [[_DOMAIN.get(name, float)(v) for v in _X]], [dtype])
    sim = np.array([_sim(fn)(v) for v in x]).astype(dtype)
    np.testing.assert_allclose(gpu, sim, rtol=_RTOL[dtype], atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", MATH_BINARY)
def test_math_binary_gpu_matches_simulator(name, dtype):
    if name == "nextafter" and dtype is np.float32:
        pytest.skip("a documented divergence (device_table.KNOWN_DIVERGENCES)")
    fn = getattr(math, name)
    (gpu,), (x, y) = _run(fn, [dtype, dtype], [_X, _Y], [dtype])
    sim = np.array([_sim(fn)(a, b) for a, b in zip(x, y)]).astype(dtype)
    np.testing.assert_allclose(gpu, sim, rtol=_RTOL[dtype], atol=0)


@pytest.mark.parametrize("name", MATH_PREDICATES)
def test_math_predicates_gpu_matches_simulator(name):
    fn = getattr(math, name)
    values = (0.0, -1.5, math.inf, -math.inf, math.nan, 1e300)
    (gpu,), (x,) = _run(fn, [np.float64], [values], [np.bool_])
    assert gpu.tolist() == [bool(_sim(fn)(v)) for v in x]


@pytest.mark.parametrize("name", CMATH_UNARY)
def test_cmath_gpu_matches_simulator(name):
    fn = getattr(cmath, name)
    values = (0.5 + 0.25j, -1.5 + 2j, 3 - 0.5j, -0.25 - 0.75j, 2 + 0j, 0.5j, 0.1 - 3j)
    (gpu,), (z,) = _run(fn, [np.complex128], [values], [np.complex128])
    sim = np.array([_sim(fn)(complex(v)) for v in z])
    np.testing.assert_allclose(gpu, sim, rtol=1e-11, atol=0)


# -- the bit intrinsics ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["popc", "clz", "ffs", "brev"])
@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_bit_intrinsics_gpu_matches_simulator(name, dtype):
    stub = getattr(device_api, name)
    values = (0, 1, 2, 7, 0x80000000, 0xFFFFFFFF, 12345678)
    (gpu,), (x,) = _run(stub, [dtype], [values], [np.uint64])
    assert gpu.tolist() == [int(_sim(stub)(v)) for v in x]


# -- cuda.libdevice: every function the simulator implements ----------------------------------------------


def _simulated_libdevice():
    from cudalite.cuda.simulator.device_table import device_table

    return sorted(e.qualname.rsplit(".", 1)[1] for e in device_table()
                  if e.qualname.startswith("cuda.libdevice.") and e.implementation is not None)


def _libdevice_inputs(name, inputs):
    types = [_LD_TYPES[t] for t in inputs]
    if types[0] in (np.int32, np.int64):
        return types, [(0, 1, 2, 7, -1, -(2**31), 12345678)]
    stem = name[len("fast_"):] if name.startswith("fast_") else name
    stem = stem[:-1] if types[0] is np.float32 and stem.endswith("f") else stem
    x = [_DOMAIN.get(stem, float)(v) for v in _X]
    return types, [x, _N if types[1:] == [np.int32] else _Y][:len(types)]


@pytest.mark.parametrize("name", _simulated_libdevice())
def test_libdevice_gpu_matches_simulator(name):
    result, inputs, outputs = LIBDEVICE[name]
    out_types = [_LD_TYPES[t] for t in ((result,) if result != "void" else ()) + outputs]
    stub = getattr(device_api.libdevice, name)
    types, values = _libdevice_inputs(name, inputs)
    gpu, args = _run(stub, types, values, out_types)
    sim = [_sim(stub)(*row) for row in zip(*args)]
    sim = [s if isinstance(s, tuple) else (s,) for s in sim]
    for k, (g, t) in enumerate(zip(gpu, out_types)):
        want = np.array([s[k] for s in sim])
        if t in (np.int32, np.int64):
            if name.startswith(("isinf", "isnan")):
                assert [bool(v) for v in g] == [bool(v) for v in want], name
            else:
                assert g.tolist() == want.astype(t).tolist(), (name, k)
        elif name.startswith("fast_"):
            np.testing.assert_allclose(g, want.astype(t), rtol=2e-5, atol=1e-6, err_msg=name)
        else:
            np.testing.assert_allclose(g, want.astype(t), rtol=_RTOL[t], atol=0, err_msg=name)


# -- cuda.fp16 ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", device_api.FP16_OPS + device_api.FP16_MATH_OPS)
def test_fp16_gpu_matches_simulator(name):
    stub = getattr(device_api.fp16, name)
    nargs = {"hneg": 1, "habs": 1, "hfma": 3}.get(name, 2 if name in device_api.FP16_OPS else 1)
    compare = name in ("heq", "hne", "hgt", "hge", "hlt", "hle")
    (gpu,), args = _run(stub, [np.float16] * nargs, [_X, _Y, _X][:nargs], [np.bool_ if compare else np.float16])
    sim = [_sim(stub)(*row) for row in zip(*args)]
    if compare:
        assert gpu.tolist() == [bool(s) for s in sim]
    else:
        np.testing.assert_allclose(gpu.astype(np.float32), np.array(sim, dtype=np.float32), rtol=4e-3, atol=1e-3,
                                   err_msg=name)


# -- thread state, warps and blocks: one kernel on the GPU and through the simulator ------------------------

_FULL = 0xFFFFFFFF


def _index_kernel(out):
    t = dev.threadIdx.x + dev.threadIdx.y * dev.blockDim.x + dev.threadIdx.z * dev.blockDim.x * dev.blockDim.y
    b = dev.blockIdx.x + dev.blockIdx.y * dev.gridDim.x + dev.blockIdx.z * dev.gridDim.x * dev.gridDim.y
    j = b * dev.blockDim.x * dev.blockDim.y * dev.blockDim.z + t
    out[j, 0], out[j, 1], out[j, 2] = dev.threadIdx.x, dev.threadIdx.y, dev.threadIdx.z
    out[j, 3], out[j, 4], out[j, 5] = dev.blockIdx.x, dev.blockIdx.y, dev.blockIdx.z
    out[j, 6], out[j, 7], out[j, 8] = dev.blockDim.x, dev.blockDim.y, dev.blockDim.z
    out[j, 9], out[j, 10], out[j, 11] = dev.gridDim.x, dev.gridDim.y, dev.gridDim.z
    out[j, 12], out[j, 13], out[j, 14] = dev.grid(3)
    out[j, 15], out[j, 16], out[j, 17] = dev.gridsize(3)
    out[j, 18] = dev.laneid
    out[j, 19] = dev.warpsize


def _warp_kernel(a, out):
    i = dev.threadIdx.x
    v = a[i]
    out[i, 0] = dev.shfl_sync(_FULL, v, 5)
    out[i, 1] = dev.shfl_up_sync(_FULL, v, 3)
    out[i, 2] = dev.shfl_down_sync(_FULL, v, 3)
    out[i, 3] = dev.shfl_xor_sync(_FULL, v, 6)
    out[i, 4] = dev.all_sync(_FULL, v >= 0) != 0
    out[i, 5] = dev.all_sync(_FULL, v > 3) != 0
    out[i, 6] = dev.any_sync(_FULL, v == 10) != 0
    out[i, 7] = dev.eq_sync(_FULL, v % 2 == 0) != 0
    out[i, 8] = dev.ballot_sync(_FULL, v % 2 == 1)
    out[i, 9] = dev.match_any_sync(_FULL, v % 3)
    m, pred = dev.match_all_sync(_FULL, v // 100)
    out[i, 10] = m
    out[i, 11] = pred
    out[i, 12] = dev.activemask()
    out[i, 13] = dev.lanemask_lt()
    dev.syncwarp(_FULL)


def _block_kernel(a, out, counts):
    i = dev.threadIdx.x
    n = dev.blockDim.x
    s = dev.shared.array(64, np.int64)
    loc = dev.local.array(2, np.int64)
    s[i] = a[i]
    dev.threadfence_block()
    dev.syncthreads()
    loc[0] = s[n - 1 - i] * 3
    dev.threadfence()
    out[i] = loc[0]
    counts[0, i] = dev.syncthreads_count(a[i] % 3 == 0)
    counts[1, i] = dev.syncthreads_and(a[i] >= 0) != 0
    counts[2, i] = dev.syncthreads_or(a[i] > 1000) != 0


def _both(pyfunc, grid, block, *arrays):
    """``pyfunc`` launched on the GPU and through the simulator, on copies of ``arrays``."""
    from sim_harness import simulated_device_api

    from cudalite.cuda import simulator

    gpu = [a.copy() for a in arrays]
    cuda.jit(pyfunc)[grid, block](*gpu)
    sim = [a.copy() for a in arrays]
    with simulated_device_api(pyfunc):
        simulator.jit(pyfunc)[grid, block](*sim)
    return gpu, sim


def test_thread_indexing_gpu_matches_simulator():
    (gpu,), (sim,) = _both(_index_kernel, (2, 3, 1), (4, 2, 5), np.zeros((240, 20), dtype=np.int64))
    np.testing.assert_array_equal(gpu, sim)


def test_warp_functions_gpu_matches_simulator():
    a = (np.arange(64) * 7 % 11).astype(np.int64)
    (_, gpu), (_, sim) = _both(_warp_kernel, 1, 64, a, np.zeros((64, 14), dtype=np.int64))
    np.testing.assert_array_equal(gpu, sim)


def test_block_functions_gpu_matches_simulator():
    a = (np.arange(48) * 5 % 13).astype(np.int64)
    gpu, sim = _both(_block_kernel, 1, 48, a, np.zeros(48, dtype=np.int64), np.zeros((3, 48), dtype=np.int64))
    np.testing.assert_array_equal(gpu[1], sim[1])
    np.testing.assert_array_equal(gpu[2], sim[2])
