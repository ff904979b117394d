"""cudalite.cuda.random on the GPU: numba's xoroshiro128+ API (Monte Carlo pi in the
style of numba's documentation, uniform and normal statistics, determinism,
subsequences, and device draws equal to the host reference)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cudalite import cuda
from cudalite.cuda.random import (
    create_xoroshiro128p_states, init_xoroshiro128p_states, xoroshiro128p_dtype, xoroshiro128p_next,
    xoroshiro128p_normal_float32, xoroshiro128p_normal_float64, xoroshiro128p_uniform_float32,
    xoroshiro128p_uniform_float64,
)

pytestmark = pytest.mark.gpu

M64 = (1 << 64) - 1
SAMPLES = 1 << 20


@cuda.jit
def compute_pi(rng_states, iterations, out):
    """Each thread estimates pi from `iterations` points in the unit square."""
    thread_id = cuda.grid(1)
    inside = 0
    for i in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, thread_id)
        y = xoroshiro128p_uniform_float32(rng_states, thread_id)
        if x ** 2 + y ** 2 <= 1.0:
            inside += 1
    out[thread_id] = 4.0 * inside / iterations


@cuda.jit
def draw_all(states, per_thread, u32, u64, n32, n64):
    tid = cuda.grid(1)
    if tid < states.shape[0]:
        for k in range(per_thread):
            j = tid * per_thread + k
            u32[j] = xoroshiro128p_uniform_float32(states, tid)
            u64[j] = xoroshiro128p_uniform_float64(states, tid)
            n32[j] = xoroshiro128p_normal_float32(states, tid)
            n64[j] = xoroshiro128p_normal_float64(states, tid)


@cuda.jit
def draw_raw(states, per_thread, out):
    tid = cuda.grid(1)
    if tid < states.shape[0]:
        for k in range(per_thread):
            out[tid, k] = xoroshiro128p_next(states, tid)


def _host_next(s):
    s0, s1 = s
    out = (s0 + s1) & M64
    s1 ^= s0
    rot = lambda x, k: ((x << k) | (x >> (64 - k))) & M64  # noqa: E731
    return out, (rot(s0, 55) ^ s1 ^ ((s1 << 14) & M64), rot(s1, 36))


def _raw_draws(states, per_thread):
    d_out = cuda.device_array((states.shape[0], per_thread), dtype=np.uint64)
    draw_raw[(states.shape[0] + 63) // 64, 64](states, per_thread, d_out)
    return d_out.copy_to_host()


@pytest.mark.nosim("too slow under the simulator (millions of draws)")
def test_monte_carlo_pi():
    threads_per_block, blocks, iterations = 64, 64, SAMPLES // 4096
    rng_states = create_xoroshiro128p_states(threads_per_block * blocks, seed=1)
    out = np.zeros(threads_per_block * blocks, dtype=np.float32)
    compute_pi[blocks, threads_per_block](rng_states, iterations, out)
    assert abs(out.mean() - math.pi) < 1e-2


@pytest.mark.nosim("too slow under the simulator (millions of draws)")
def test_uniform_and_normal_statistics():
    nthreads, per = 4096, SAMPLES // 4096
    states = create_xoroshiro128p_states(nthreads, seed=2024)
    bufs = [cuda.device_array(SAMPLES, dtype=dt) for dt in (np.float32, np.float64, np.float32, np.float64)]
    draw_all[nthreads // 128, 128](states, per, *bufs)
    u32, u64, n32, n64 = (b.copy_to_host() for b in bufs)
    for u in (u32, u64):
        assert u.min() >= 0.0 and u.max() < 1.0
        assert abs(u.mean() - 0.5) < 1e-3
        assert abs(u.var() - 1.0 / 12) < 1e-3
    for n in (n32, n64):
        assert np.isfinite(n).all()
        assert abs(n.mean()) < 1e-2
        assert abs(n.std() - 1.0) < 1e-2


def test_states_deterministic_for_seed():
    a = create_xoroshiro128p_states(256, seed=7).copy_to_host()
    b = create_xoroshiro128p_states(256, seed=7).copy_to_host()
    c = create_xoroshiro128p_states(256, seed=8).copy_to_host()
    assert a.dtype == xoroshiro128p_dtype
    assert np.array_equal(a, b)
    assert not np.array_equal(a["s0"], c["s0"])
    ra = _raw_draws(create_xoroshiro128p_states(256, seed=7), 4)
    rb = _raw_draws(create_xoroshiro128p_states(256, seed=7), 4)
    assert np.array_equal(ra, rb)


def test_subsequences_differ():
    a = create_xoroshiro128p_states(64, seed=3)
    b = create_xoroshiro128p_states(64, seed=3, subsequence_start=1)
    ra, rb = _raw_draws(a, 8), _raw_draws(b, 8)
    assert not np.array_equal(ra, rb)
    assert np.array_equal(ra[1:], rb[:-1])  # state i + 1 of start 0 is state i of start 1
    assert len(np.unique(ra)) == ra.size  # no two threads, no two draws alike


def test_init_in_place_and_stream():
    s = cuda.stream()
    d = cuda.device_array(100, dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states(d, 11, subsequence_start=2, stream=s)
    s.synchronize()
    ref = create_xoroshiro128p_states(102, 11).copy_to_host()
    assert np.array_equal(d.copy_to_host(), ref[2:])


def test_device_draws_equal_host_reference():
    n, per = 8, 6
    states = create_xoroshiro128p_states(n, seed=123456789)
    host = [(int(r["s0"]), int(r["s1"])) for r in states.copy_to_host()]
    raw = _raw_draws(states, per)
    for t in range(n):
        s = host[t]
        for k in range(per):
            x, s = _host_next(s)
            assert int(raw[t, k]) == x, (t, k)
        host[t] = s
    # the states advanced on the device exactly as on the host
    assert [(int(r["s0"]), int(r["s1"])) for r in states.copy_to_host()] == host

    # uniform and normal draws from the same reference
    bufs = [cuda.device_array(n * 2, dtype=dt) for dt in (np.float32, np.float64, np.float32, np.float64)]
    draw_all[1, 32](states, 2, *bufs)
    u32, u64, n32, n64 = (b.copy_to_host() for b in bufs)
    for t in range(n):
        s = host[t]
        for k in range(2):
            j = t * 2 + k
            x, s = _host_next(s)
            assert u32[j] == np.float32((x >> 40) / 2.0 ** 24)
            x, s = _host_next(s)
            assert u64[j] == (x >> 11) / 2.0 ** 53
            a, s = _host_next(s)
            b, s = _host_next(s)
            e = math.sqrt(-2.0 * math.log(1.0 - (a >> 40) / 2.0 ** 24)) * math.cos(2 * math.pi * (b >> 40) / 2.0 ** 24)
            assert n32[j] == pytest.approx(e, rel=1e-5, abs=1e-5)
            a, s = _host_next(s)
            b, s = _host_next(s)
            e = math.sqrt(-2.0 * math.log(1.0 - (a >> 11) / 2.0 ** 53)) * math.cos(2 * math.pi * (b >> 11) / 2.0 ** 53)
            assert n64[j] == pytest.approx(e, rel=1e-12, abs=1e-12)
