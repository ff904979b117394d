"""GPU-less tests of cudalite.cuda.random: the host-side splitmix64 / xoroshiro128+
reference and the vectorised jump against an independent plain-Python-int model
of the algorithms' definitions, the state dtype, and the device functions'
compilation to PTX (no device touched)."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda
from cudalite.cuda import random as curand
from cudalite.cuda.random import xoroshiro128p_uniform_float32

M64 = (1 << 64) - 1


# ----------------------------------------------------------------------------- independent model

def sm64(state):
    """splitmix64 (Vigna): returns (state', output)."""
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


def xnext(s0, s1):
    """xoroshiro128+ (55, 14, 36): returns (output, s0', s1')."""
    out = (s0 + s1) & M64
    s1 ^= s0
    return out, rotl(s0, 55) ^ s1 ^ ((s1 << 14) & M64), rotl(s1, 36)


def jump_poly(s0, s1):
    a0 = a1 = 0
    for word in (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922):
        for b in range(64):
            if word >> b & 1:
                a0 ^= s0
                a1 ^= s1
            _, s0, s1 = xnext(s0, s1)
    return a0, a1


def _apply(cols, v):
    r = 0
    k = 0
    while v:
        if v & 1:
            r ^= cols[k]
        v >>= 1
        k += 1
    return r


def _pack(s0, s1):
    return s0 | s1 << 64


def _unpack(v):
    return v & M64, v >> 64


def steps_2_pow_64(s0, s1):
    """The state 2**64 single steps later, via the one-step matrix squared 64 times."""
    cols = [_pack(*xnext(*_unpack(1 << k))[1:]) for k in range(128)]
    for _ in range(64):
        cols = [_apply(cols, c) for c in cols]
    return _unpack(_apply(cols, _pack(s0, s1)))


def model_state(seed, k):
    """State 0 of ``seed`` jumped k times, with the polynomial jump."""
    _, z = sm64(seed & M64)
    s = (z, z)
    for _ in range(k):
        s = jump_poly(*s)
    return s


# ----------------------------------------------------------------------------- tests

def test_dtype_layout():
    dt = curand.xoroshiro128p_dtype
    assert dt.names == ("s0", "s1")
    assert dt.itemsize == 16 and dt.isalignedstruct
    assert dt.fields["s0"] == (np.dtype(np.uint64), 0)
    assert dt.fields["s1"] == (np.dtype(np.uint64), 8)


def test_splitmix64_known_values():
    # splitmix64 seeded with 0: the published first outputs
    state, outs = 0, []
    for _ in range(3):
        state, o = curand.splitmix64(state)
        outs.append(o)
    assert outs == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    for seed in (1, 42, 2**63, M64):
        assert curand.splitmix64(seed) == sm64(seed)


def test_xoroshiro_step_by_hand():
    # from the definition: out = s0 + s1; t = s0 ^ s1; s0' = rotl(s0, 55) ^ t ^ (t << 14); s1' = rotl(t, 36)
    out, a, b = xnext(1, 2)
    assert out == 3
    assert a == (1 << 55) ^ 3 ^ (3 << 14)
    assert b == 3 << 36
    s0 = np.array([1, M64], np.uint64)
    s1 = np.array([2, 5], np.uint64)
    o, n0, n1 = curand._next_np(s0, s1)
    assert [int(x) for x in o] == [3, 4]
    assert (int(n0[0]), int(n1[0])) == (a, b)
    assert (int(n0[1]), int(n1[1])) == xnext(M64, 5)[1:]


def test_jump_polynomial_is_2_pow_64_steps():
    s = (0x0123456789ABCDEF, 0xFEDCBA9876543210)
    expect = steps_2_pow_64(*s)
    assert jump_poly(*s) == expect
    assert curand.xoroshiro128p_jump_host(*s) == expect
    assert curand.xoroshiro128p_jump_host(*s, times=3) == jump_poly(*jump_poly(*expect))


@pytest.mark.parametrize("seed,start", [(0, 0), (1, 0), (42, 3), (2**64 - 1, 1), (-1, 2), (12345, 17)])
def test_states_match_model(seed, start):
    states = curand.xoroshiro128p_states_host(6, seed, subsequence_start=start)
    assert states.dtype == curand.xoroshiro128p_dtype and states.shape == (6,)
    s = model_state(seed, start)
    for i in range(6):
        assert (int(states[i]["s0"]), int(states[i]["s1"])) == s, i
        s = jump_poly(*s)


def test_numba_seeding():
    # numba seeds both words with the first splitmix64 output of the seed
    st = curand.xoroshiro128p_states_host(1, 7)
    _, z = sm64(7)
    assert int(st[0]["s0"]) == int(st[0]["s1"]) == z
    assert curand.xoroshiro128p_states_host(1, np.uint64(7))[0] == st[0]


def test_many_states_fast_and_exact():
    n = 1 << 20
    states = curand.xoroshiro128p_states_host(n, 99, subsequence_start=5)
    s = model_state(99, 5)
    for _ in range(777):
        s = jump_poly(*s)
    assert (int(states[777]["s0"]), int(states[777]["s1"])) == s
    assert len(np.unique(states["s0"])) == n


def test_subsequence_start_shifts():
    a = curand.xoroshiro128p_states_host(10, 5)
    b = curand.xoroshiro128p_states_host(7, 5, subsequence_start=3)
    assert np.array_equal(a[3:], b)


def test_empty_and_errors():
    assert curand.xoroshiro128p_states_host(0, 1).shape == (0,)
    with pytest.raises(ValueError):
        curand.xoroshiro128p_states_host(-1, 1)
    with pytest.raises(ValueError):
        curand.xoroshiro128p_states_host(1, 1, subsequence_start=-1)


def test_public_names():
    for name in ("create_xoroshiro128p_states", "init_xoroshiro128p_states", "xoroshiro128p_next",
                 "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
                 "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64", "xoroshiro128p_dtype"):
        assert name in curand.__all__ and hasattr(curand, name)


@pytest.mark.parametrize("name,resty", [
    ("xoroshiro128p_next", "uint64"),
    ("xoroshiro128p_uniform_float32", "float32"),
    ("xoroshiro128p_uniform_float64", "float64"),
    ("xoroshiro128p_normal_float32", "float32"),
    ("xoroshiro128p_normal_float64", "float64"),
])
def test_device_functions_compile(name, resty):
    from cudalite.core.types import Array, int64, type_from_dtype

    st = Array(type_from_dtype(curand.xoroshiro128p_dtype), 1, "C")
    ptx, rt = cuda.compile_ptx(getattr(curand, name), (st, int64), device=True, cc=(9, 0))
    assert str(rt) == resty
    assert ".func" in ptx


def _mc_kernel(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        x = xoroshiro128p_uniform_float32(states, i)
        y = xoroshiro128p_uniform_float32(states, i)
        out[i] = 1.0 if x * x + y * y <= 1.0 else 0.0


def test_kernel_compiles():
    from cudalite.core.types import Array, float32, type_from_dtype

    st = Array(type_from_dtype(curand.xoroshiro128p_dtype), 1, "C")
    ptx, _ = cuda.compile_ptx(_mc_kernel, (st, Array(float32, 1, "C")), cc=(9, 0))
    assert ".entry" in ptx
