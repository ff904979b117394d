"""The FlashAttention forward of examples/flash_attention.py (TMA + wgmma, warp-specialised,
sm_90a) against NumPy for head_dim 64 and 128, causal and not, float16 and bfloat16, over
more key tiles than pipeline stages; and the ring of cudalite.cuda.tma_pipeline on its
own, its phases wrapping many times."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from cudalite import cuda

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("warpgroup MMA (cuda.wgmma, sm_90a)")]


@pytest.fixture(autouse=True)
def _sm90():
    if cuda.get_current_device().compute_capability != (9, 0):
        pytest.skip("wgmma exists only on sm_90a (H100/H200)")


@pytest.fixture(scope="module")
def fa():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
    try:
        import flash_attention
    finally:
        sys.path.pop(0)
    return flash_attention


def _device_of(a):
    from cudalite.cuda.devicearray import DeviceNDArray

    raw = cuda.to_device(np.ascontiguousarray(a).view(np.uint8))
    return DeviceNDArray(a.shape, a.strides, a.dtype, ptr=raw._ptr, owner=raw)


@pytest.mark.parametrize("d, causal, dtype, options", [
    (128, False, "f16", {}), (128, True, "f16", {}), (64, False, "bf16", {}), (64, True, "f16", {}),
    (128, True, "bf16", {}), (128, False, "f16", {"overlap": True}), (64, True, "f16", {"overlap": True}),
    (128, False, "f16", {"pingpong": True}), (128, True, "bf16", {"pingpong": True}),
    (128, False, "f16", {"overlap": True, "pingpong": True}), (64, True, "f16", {"overlap": True, "pingpong": True}),
    (128, True, "f16", {"stages": 3}), (64, False, "bf16", {"stages": 3}),
])
def test_attention_forward(fa, d, causal, dtype, options):
    if dtype == "bf16":
        np_dtype = pytest.importorskip("ml_dtypes").bfloat16
    else:
        np_dtype = np.float16
    rng = np.random.default_rng(d + causal)
    q, k, v = (rng.standard_normal((2, 2, 384, d)).astype(np_dtype) for _ in range(3))
    out = _device_of(np.zeros(q.shape, np_dtype))
    kernel = fa.make_attention(d, causal, dtype, **options)
    fa.attention_forward(kernel, _device_of(q), _device_of(k), _device_of(v), out)
    got = out.copy_to_host().astype(np.float32)
    tol = 4e-3 if dtype == "f16" else 3e-2  # the output's rounding (P rounded to 16 bits as well)
    np.testing.assert_allclose(got, fa.reference(q, k, v, causal), atol=tol, rtol=tol)


def test_attention_shape_checks(fa):
    q = cuda.device_array((1, 1, 100, 64), np.float16)
    with pytest.raises(ValueError, match="multiple of 128"):
        fa.attention_forward(fa.make_attention(64), q, q, q, q)
    with pytest.raises(ValueError, match="head_dim must be 64 or 128"):
        fa.make_attention(96)
    with pytest.raises(ValueError, match="stages must be 2 or 3"):
        fa.make_attention(128, stages=4)


def test_pipeline_ring_phases():
    """A producer thread hands 100 values through a 3-stage ring to 64 consumer threads;
    every consumer sees every value once, in order (the stages are reused 33 times)."""
    from cudalite.cuda import tma_pipeline as pipe

    @cuda.jit
    def ring(out, n):
        buf = cuda.shared.array(3, np.int32)
        full = cuda.shared.array(3, np.uint64, alignment=8)
        empty = cuda.shared.array(3, np.uint64, alignment=8)
        t = cuda.threadIdx.x
        if t == 0:
            pipe.init(full, empty, 64)
        cuda.syncthreads()
        if t == 0:
            for it in range(n):
                s = pipe.producer_acquire(empty, it)
                buf[s] = it * 7 + 1
                cuda.threadfence_block()
                pipe.producer_commit(full, s, 0)
        elif t >= 32:
            total = 0
            ok = 1
            for it in range(n):
                s = pipe.consumer_wait(full, it)
                v = buf[s]
                ok &= v == it * 7 + 1
                total += v
                pipe.consumer_release(empty, s)
            out[t - 32, 0] = total
            out[t - 32, 1] = ok

    out = cuda.to_device(np.zeros((64, 2), np.int64))
    ring[1, 96](out, 100)
    got = out.copy_to_host()
    assert (got[:, 0] == sum(i * 7 + 1 for i in range(100))).all() and (got[:, 1] == 1).all()
