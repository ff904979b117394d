"""cudalite.cuda.random: numba.cuda.random's xoroshiro128+ generator.

A numba program ports by changing its import line::

    from cudalite.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

Each thread owns one 128-bit state (a record of two ``uint64`` words, ``s0`` and
``s1``) in a device array.  :func:`create_xoroshiro128p_states` seeds state 0 the
way numba does (both words are the first splitmix64 output for ``seed``) and
places state ``i`` ``(subsequence_start + i) * 2**64`` steps further along that one
sequence, with xoroshiro128+'s jump polynomial, so threads never overlap unless
one draws more than ``2**64`` numbers.  The same seed gives numba's states.

Initialisation runs on the host with NumPy: a jump is a linear map of the 128
state bits over GF(2), so ``J**(2**b)`` is a 128x128 bit matrix, applied to many
states at once through byte lookup tables, and the n states are built by doubling
(states ``[2**b, 2**(b+1))`` are ``J**(2**b)`` applied to states ``[0, 2**b)``).

The device functions (``xoroshiro128p_next``, ``_uniform_float32/64``,
``_normal_float32/64``) are ``@cuda.jit(device=True)`` Python functions that use
unsigned arithmetic only.  Uniform floats keep the top 24 (float32) or 53 (float64)
bits, so they lie in ``[0, 1)`` exactly; the normal draws use Box-Muller on
``1 - u`` (never ``log(0)``) and return one of the pair.
"""

from __future__ import annotations

import math

import numpy as np

from ._memory.api import to_device
from .config import simulator_enabled

if simulator_enabled():  # CUDALITE_ENABLE_CUDASIM=1: the device functions run as Python
    from .simulator.host import to_device as _sim_to_device
    from .simulator.kernel import jit
else:
    from ._dispatch.decorator import jit

    _sim_to_device = None

__all__ = [
    "xoroshiro128p_dtype", "init_xoroshiro128p_states", "create_xoroshiro128p_states",
    "xoroshiro128p_next", "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
    "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64",
    "splitmix64", "xoroshiro128p_jump_host", "xoroshiro128p_states_host",
]

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)

_MASK64 = (1 << 64) - 1
# xoroshiro128+ (a, b, c) = (55, 14, 36), the version numba implements, and the
# jump polynomial of that version (equivalent to 2**64 calls of next()).
_JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)

# device-code constants (frozen at compile time)
_SH55 = np.uint64(55)
_SH9 = np.uint64(9)
_SH14 = np.uint64(14)
_SH36 = np.uint64(36)
_SH28 = np.uint64(28)
_SH40 = np.uint64(40)
_SH11 = np.uint64(11)
_F32_ULP = np.float32(1.0 / (1 << 24))
_F64_ULP = 1.0 / (1 << 53)
_TWO_PI = 2.0 * math.pi
_TWO_PI_F32 = np.float32(2.0 * math.pi)
_ONE_F32 = np.float32(1.0)
_MINUS_TWO_F32 = np.float32(-2.0)


# ----------------------------------------------------------------------------- host reference

def splitmix64(x: int) -> tuple:
    """One splitmix64 step from state ``x``: ``(new_state, output)`` as Python ints."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x, z ^ (z >> 31)


def _next_np(s0, s1):
    """xoroshiro128+ step on NumPy uint64 arrays: (output, s0', s1')."""
    out = s0 + s1
    t = s1 ^ s0
    n0 = ((s0 << np.uint64(55)) | (s0 >> np.uint64(9))) ^ t ^ (t << np.uint64(14))
    n1 = (t << np.uint64(36)) | (t >> np.uint64(28))
    return out, n0, n1


def _jump_np(s0, s1):
    """Apply the jump polynomial (2**64 steps) to NumPy uint64 arrays of states."""
    a0 = np.zeros_like(s0)
    a1 = np.zeros_like(s1)
    for word in _JUMP:
        for b in range(64):
            if (word >> b) & 1:
                a0 ^= s0
                a1 ^= s1
            _, s0, s1 = _next_np(s0, s1)
    return a0, a1


def xoroshiro128p_jump_host(s0: int, s1: int, times: int = 1) -> tuple:
    """The state ``times * 2**64`` steps after ``(s0, s1)``, as Python ints."""
    a = np.array([s0], np.uint64)
    b = np.array([s1], np.uint64)
    a, b = _apply_power(_jump_matrices(max(int(times).bit_length(), 1)), int(times), a, b)
    return int(a[0]), int(b[0])


class _BitMatrix:
    """A 128x128 GF(2) matrix held as 16 byte lookup tables (one per input byte of
    the state ``s0 | s1 << 64``), each mapping a byte to its image (two uint64)."""

    __slots__ = ("t0", "t1")

    def __init__(self, col0, col1):
        # col0[k], col1[k]: the image of state bit k
        t0 = np.zeros((16, 256), np.uint64)
        t1 = np.zeros((16, 256), np.uint64)
        for byte in range(16):
            for j in range(8):
                lo, hi = 1 << j, 2 << j
                t0[byte, lo:hi] = t0[byte, :lo] ^ col0[8 * byte + j]
                t1[byte, lo:hi] = t1[byte, :lo] ^ col1[8 * byte + j]
        self.t0, self.t1 = t0, t1

    def apply(self, s0, s1):
        r0 = np.zeros_like(s0)
        r1 = np.zeros_like(s1)
        ff = np.uint64(0xFF)
        for byte in range(16):
            word = s0 if byte < 8 else s1
            idx = ((word >> np.uint64(8 * (byte % 8))) & ff).astype(np.intp)
            r0 ^= self.t0[byte][idx]
            r1 ^= self.t1[byte][idx]
        return r0, r1

    def square(self):
        return _BitMatrix(*self.apply(*self._columns()))

    def _columns(self):
        # the image of each unit vector: byte lookup of the single set bit
        c0 = np.empty(128, np.uint64)
        c1 = np.empty(128, np.uint64)
        for k in range(128):
            c0[k] = self.t0[k // 8, 1 << (k % 8)]
            c1[k] = self.t1[k // 8, 1 << (k % 8)]
        return c0, c1


def _jump_matrices(levels: int) -> list:
    """``[J, J**2, J**4, ..., J**(2**(levels-1))]`` for the jump map J."""
    u0 = np.array([1 << k if k < 64 else 0 for k in range(128)], np.uint64)
    u1 = np.array([1 << (k - 64) if k >= 64 else 0 for k in range(128)], np.uint64)
    mats = [_BitMatrix(*_jump_np(u0, u1))]
    while len(mats) < levels:
        mats.append(mats[-1].square())
    return mats


def _apply_power(mats, times, s0, s1):
    b = 0
    while times:
        if times & 1:
            s0, s1 = mats[b].apply(s0, s1)
        times >>= 1
        b += 1
    return s0, s1


def xoroshiro128p_states_host(n: int, seed, subsequence_start: int = 0) -> np.ndarray:
    """The n states :func:`create_xoroshiro128p_states` puts on the device, as a
    host array of :data:`xoroshiro128p_dtype`."""
    n = int(n)
    if n < 0:
        raise ValueError(f"the number of states must be >= 0, not {n}")
    start = int(subsequence_start)
    if start < 0:
        raise ValueError(f"subsequence_start must be >= 0, not {start}")
    states = np.empty(n, xoroshiro128p_dtype)
    if n == 0:
        return states
    _, z = splitmix64(int(seed) & _MASK64)
    s0 = np.empty(n, np.uint64)
    s1 = np.empty(n, np.uint64)
    s0[0] = s1[0] = z
    mats = _jump_matrices(max((n - 1).bit_length(), start.bit_length(), 1))
    s0[:1], s1[:1] = _apply_power(mats, start, s0[:1], s1[:1])
    filled, b = 1, 0
    while filled < n:
        m = min(filled, n - filled)
        s0[filled:filled + m], s1[filled:filled + m] = mats[b].apply(s0[:m], s1[:m])
        filled += m
        b += 1
    states["s0"] = s0
    states["s1"] = s1
    return states


# ----------------------------------------------------------------------------- host API

def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Fill the device array ``states`` (of :data:`xoroshiro128p_dtype`) in place:
    state i starts ``(subsequence_start + i) * 2**64`` steps into ``seed``'s sequence."""
    host = xoroshiro128p_states_host(states.shape[0], seed, subsequence_start)
    states.copy_to_device(host, stream=stream)


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A new device array of n xoroshiro128+ states (see :func:`init_xoroshiro128p_states`)."""
    if _sim_to_device is not None:
        return _sim_to_device(xoroshiro128p_states_host(n, seed, subsequence_start), stream=stream)

    return to_device(xoroshiro128p_states_host(n, seed, subsequence_start), stream=stream)


# ----------------------------------------------------------------------------- device functions

@jit(device=True)
def xoroshiro128p_next(states, index):
    """The next uint64 of ``states[index]`` (advancing it)."""
    s0 = states[index]["s0"]
    s1 = states[index]["s1"]
    result = s0 + s1
    s1 = s1 ^ s0
    states[index]["s0"] = ((s0 << _SH55) | (s0 >> _SH9)) ^ s1 ^ (s1 << _SH14)
    states[index]["s1"] = (s1 << _SH36) | (s1 >> _SH28)
    return result


@jit(device=True)
def xoroshiro128p_uniform_float32(states, index):
    """A float32 uniform in [0, 1) from ``states[index]`` (its top 24 bits)."""
    return np.float32(xoroshiro128p_next(states, index) >> _SH40) * _F32_ULP


@jit(device=True)
def xoroshiro128p_uniform_float64(states, index):
    """A float64 uniform in [0, 1) from ``states[index]`` (its top 53 bits)."""
    return float(xoroshiro128p_next(states, index) >> _SH11) * _F64_ULP


@jit(device=True)
def xoroshiro128p_normal_float32(states, index):
    """A float32 standard normal from ``states[index]`` (Box-Muller, two draws)."""
    u1 = _ONE_F32 - xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(_MINUS_TWO_F32 * math.log(u1)) * math.cos(_TWO_PI_F32 * u2)


@jit(device=True)
def xoroshiro128p_normal_float64(states, index):
    """A float64 standard normal from ``states[index]`` (Box-Muller, two draws)."""
    u1 = 1.0 - xoroshiro128p_uniform_float64(states, index)
    u2 = xoroshiro128p_uniform_float64(states, index)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(_TWO_PI * u2)
