"""Typing of the warpgroup matrix multiply-accumulate (PTX ``wgmma``, sm_90a only) and
register reallocation (``setmaxnreg``, sm_90a), in ``cuda.wgmma`` and ``cuda.setmaxnreg``.

A warpgroup is 4 consecutive warps (128 threads along ``threadIdx.x``) that run one
``wgmma`` together: ``D[64, N] = A[64, K] @ B[K, N] + D``, A and B read by the tensor
cores from shared memory through 64-bit *matrix descriptors* (or A from registers), D
held in registers spread over the 128 threads -- N/2 float32 per thread, a tuple.

* ``make_desc(array, index, swizzle, leading_bytes, stride_bytes)``: the descriptor of a
  tile starting at ``array[index]`` (shared memory), laid out with ``swizzle`` (the
  constant 0, 32, 64 or 128 bytes) and the two byte offsets of PTX's canonical layouts;
  a uint64;
* ``zeros(n)``: the accumulator of an m64nNk shape, N = ``n`` (a constant multiple of 8
  from 8 to 256): a tuple of n/2 float32 zeros;
* ``mma_async(acc, a, b, dtype, scale_d=True, trans_a=False, trans_b=False)``: issue one
  ``wgmma.mma_async`` of the m64nNkK shape of ``dtype`` (the constant ``"f16"``,
  ``"bf16"`` (K 16), ``"tf32"`` (K 8), ``"e4m3"`` or ``"e5m2"`` (K 32)); ``a`` a descriptor
  (an integer) or a tuple of 4 uint32 (A from registers), ``b`` a descriptor; ``scale_d``
  False computes ``A @ B`` (the accumulator's values are not read); ``trans_a`` /
  ``trans_b`` (constants, f16/bf16 only) read the tile MN-major instead of K-major;
  returns the new accumulator -- not ready until ``wait_group``;
* ``fence()``, ``commit_group()``: ``wgmma.fence`` (before the first mma_async, and after
  the accumulator was written by other code), ``wgmma.commit_group`` (closes the group of
  mma_async issued since the last commit);
* ``wait_group(n, *frags)``: waits until at most ``n`` (a constant 0-7) groups are in
  flight and returns the fragments passed (one: it, several: a tuple), now safe to read
  -- code reading them is ordered after the wait.  Accumulators, and also A fragments
  (uint32 tuples, nested tuples of them) an in-flight MMA still reads from registers:
  passing those keeps their registers from being reused before the wait;
* ``accumulator_coords(i)``: the (row, column) of element ``i`` of this thread's
  accumulator in the 64 x N tile (``i`` an integer; the warpgroup from ``threadIdx.x``);
* ``store(acc, array, row, col)``: the accumulator's 64 x N tile written to
  ``array[row:row + 64, col:col + N]`` (a 2-d array of real numbers; each value converted
  to its dtype), unrolled, with constant register indices (a loop over ``acc[i]`` with a
  runtime ``i`` would put the accumulator in local memory); the tile must lie inside the
  array (``row``, ``col`` >= 0, no wraparound; checked under ``boundscheck=True``);
* ``scale_rows(acc, lo, hi)``: the accumulator with this thread's elements of its first
  row (``accumulator_coords`` row ``16w + l//4``) multiplied by ``lo`` and those of its
  second row (8 below) by ``hi`` -- the rescaling of an online softmax;
* ``cuda.setmaxnreg.inc(n)`` / ``.dec(n)``: the warpgroup's registers per thread raised /
  lowered to ``n`` (a constant multiple of 8 from 24 to 256).

Constant operands are checked here; the target (sm_90a) by the lowering.
"""

from __future__ import annotations

from ... import device_api as api
from ...registry import registry
from ...types import (
    Array, BFloat16, Boolean, Float, Integer, Signature, Tuple, UniTuple, float32, int32, none, uint32, uint64,
)
from .._records import Resolved
from .warpspec import no_args

__all__ = ["WGMMA_KINDS", "WgmmaCall", "SWIZZLE_MODES"]

#: dtype -> (K of the shape, PTX type name, whether the tiles may be MN-major (transposed))
WGMMA_KINDS = {
    "f16": (16, "f16", True), "bf16": (16, "bf16", True), "tf32": (8, "tf32", False),
    "e4m3": (32, "e4m3", False), "e5m2": (32, "e5m2", False),
}
#: swizzle bytes -> the descriptor's layout-type field (bits 62-63)
SWIZZLE_MODES = {0: 0, 128: 1, 64: 2, 32: 3}


class WgmmaCall:
    """The payload of ``mma_async``: dtype, N, A from registers, transposes, and whether
    ``scale_d`` is the constant False (the accumulator's values are then not read)."""

    __slots__ = ("dtype", "n", "rs", "trans_a", "trans_b", "overwrite")

    def __init__(self, dtype, n, rs, trans_a, trans_b, overwrite=False):
        self.dtype, self.n, self.rs, self.trans_a, self.trans_b = dtype, n, rs, trans_a, trans_b
        self.overwrite = overwrite


def _uniform(t, dtype) -> int:
    """The length of ``t`` when it is a tuple of ``dtype`` values, else 0."""
    return len(t.types) if isinstance(t, Tuple) and t.types and all(x == dtype for x in t.types) else 0


def _accumulator(site, k, what="the accumulator"):
    t = site.args[k]
    count = _uniform(t, float32)
    if not (4 <= count <= 128 and count % 4 == 0):
        raise site.error(f"{what} must be a tuple of N/2 float32 (N a multiple of 8 from 8 to 256: "
                         f"cuda.wgmma.zeros(N)), not {t}")
    return t


def _flag(site, k, what):
    if len(site.args) <= k:
        return False
    value = site.const(k, what)
    if not isinstance(value, (bool, int)) or value not in (0, 1):
        raise site.error(f"{what} must be the constant True or False, not {value!r}")
    return bool(value)


@registry.call(api.wgmma.mma_async, params=("acc", "a", "b", "dtype", "scale_d", "trans_a", "trans_b"),
               name="cuda.wgmma.mma_async", defaults={"scale_d": True, "trans_a": False})
def _mma_async(site):
    if not 4 <= len(site.args) <= 7:
        raise site.error(f"takes acc, a, b, dtype and optionally scale_d, trans_a, trans_b: {len(site.args)} "
                         "argument(s) given")
    acc = _accumulator(site, 0)
    a, b = site.args[1], site.args[2]
    rs = isinstance(a, Tuple)
    if rs and _uniform(a, uint32) != 4:
        raise site.error(f"A from registers must be a tuple of 4 uint32, not {a}")
    if not rs and not isinstance(a, Integer):
        raise site.error(f"a must be a shared-memory descriptor (cuda.wgmma.make_desc) or a tuple of 4 uint32 "
                         f"(A from registers), not {a}")
    if not isinstance(b, Integer):
        raise site.error(f"b must be a shared-memory descriptor (cuda.wgmma.make_desc), not {b}")
    dtype = site.const(3, "dtype")
    if dtype not in WGMMA_KINDS:
        raise site.error(f"dtype must be one of {', '.join(map(repr, WGMMA_KINDS))}, not {dtype!r}")
    scale = site.args[4] if len(site.args) > 4 else None
    if scale is not None and not isinstance(scale, (Integer, Boolean)):
        raise site.error(f"scale_d must be a bool (False: D = A @ B, the accumulator not read), not {scale}")
    trans_a, trans_b = _flag(site, 5, "trans_a"), _flag(site, 6, "trans_b")
    if (trans_a or trans_b) and not WGMMA_KINDS[dtype][2]:
        raise site.error(f"{dtype} tiles cannot be transposed (PTX: only f16 and bf16 take trans_a/trans_b); "
                         "lay both out K-major")
    if trans_a and rs:
        raise site.error("trans_a is for A in shared memory; A from registers has one layout")
    args = (acc, a if rs else uint64, uint64, site.args[3]) + ((int32,) if scale is not None else ()) + \
        tuple(site.args[5:])
    overwrite = scale is not None and site.is_const(4) and not site.consts[4]
    return Resolved(Signature(acc, args), WgmmaCall(dtype, len(acc.types) * 2, rs, trans_a, trans_b, overwrite))


@registry.call(api.wgmma.make_desc, params=("array", "index", "swizzle", "leading_bytes", "stride_bytes"),
               name="cuda.wgmma.make_desc")
def _make_desc(site):
    if len(site.args) != 5:
        raise site.error(f"takes array, index, swizzle, leading_bytes, stride_bytes: {len(site.args)} argument(s) "
                         "given")
    arr, idx = site.args[0], site.args[1]
    if not isinstance(arr, Array):
        raise site.error(f"the tile must be in a shared-memory array, not {arr}")
    if isinstance(idx, Integer):
        if arr.ndim != 1:
            raise site.error(f"the index must be a tuple of {arr.ndim} integers (the array is {arr.ndim}-d)")
    elif not (isinstance(idx, Tuple) and len(idx.types) == arr.ndim and all(isinstance(t, Integer) for t in idx.types)):
        raise site.error(f"the index must be an integer or a tuple of {arr.ndim} integers, not {idx}")
    swizzle = site.const(2, "swizzle")
    if isinstance(swizzle, bool) or swizzle not in SWIZZLE_MODES:
        raise site.error(f"swizzle must be the constant 0, 32, 64 or 128 (bytes), not {swizzle!r}")
    for k, what in ((3, "leading_bytes"), (4, "stride_bytes")):
        if not isinstance(site.args[k], Integer):
            raise site.error(f"{what} must be an integer, not {site.args[k]}")
        if site.is_const(k):
            value = site.consts[k]
            if not 0 <= value < 1 << 18 or value % 16:
                raise site.error(f"{what} must be a multiple of 16 below 262144 (the descriptor holds it >> 4 in "
                                 f"14 bits), not {value}")
    return Resolved(Signature(uint64, (arr, idx, site.args[2], uint32, uint32)), SWIZZLE_MODES[swizzle])


@registry.call(api.wgmma.zeros, params=("n",), name="cuda.wgmma.zeros")
def _zeros(site):
    if len(site.args) != 1:
        raise site.error(f"takes n (the shape's N): {len(site.args)} argument(s) given")
    n = site.const(0, "N")
    if isinstance(n, bool) or not isinstance(n, int) or not 8 <= n <= 256 or n % 8:
        raise site.error(f"N must be a constant multiple of 8 from 8 to 256, not {n!r}")
    return Resolved(Signature(UniTuple(float32, n // 2), (site.args[0],)), n)


registry.call(api.wgmma.fence, name="cuda.wgmma.fence")(no_args)
registry.call(api.wgmma.commit_group, name="cuda.wgmma.commit_group")(no_args)


def _leaves(t):
    """The number of registers of a fragment tuple (float32 accumulators, uint32 A
    fragments, nested tuples of those), or 0 for anything else."""
    if not isinstance(t, Tuple) or not t.types:
        return 0
    total = 0
    for x in t.types:
        n = 1 if x in (float32, uint32) else _leaves(x)
        if not n:
            return 0
        total += n
    return total


@registry.call(api.wgmma.wait_group, name="cuda.wgmma.wait_group")
def _wait_group(site):
    if not site.args:
        raise site.error("takes n (groups left in flight) and the fragments to wait for")
    n = site.const(0, "group count")
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 7:
        raise site.error(f"the group count must be a constant from 0 to 7, not {n!r}")
    frags = site.args[1:]
    for k, t in enumerate(frags, 1):
        if not _leaves(t):
            raise site.error(f"argument {k} must be a fragment: a tuple of float32 (an accumulator) or of uint32 "
                             f"(A from registers), or a tuple of such tuples, not {t}")
    if sum(_leaves(t) for t in frags) > 256:
        raise site.error("waits for at most 256 registers at once (two m64n256 accumulators)")
    ret = none if not frags else frags[0] if len(frags) == 1 else Tuple(frags)
    return Resolved(Signature(ret, (site.args[0],) + tuple(frags)), n)


@registry.call(api.wgmma.accumulator_coords, params=("i",), name="cuda.wgmma.accumulator_coords")
def _coords(site):
    if len(site.args) != 1 or not isinstance(site.args[0], Integer):
        raise site.error("takes i, the index of an accumulator element (an integer)")
    return Signature(UniTuple(int32, 2), (int32,))


@registry.call(api.wgmma.store, params=("acc", "array", "row", "col"), name="cuda.wgmma.store")
def _store(site):
    if len(site.args) != 4:
        raise site.error(f"takes acc, array, row, col: {len(site.args)} argument(s) given")
    acc, arr = _accumulator(site, 0), site.args[1]
    if not (isinstance(arr, Array) and arr.ndim == 2 and isinstance(arr.dtype, (Float, BFloat16, Integer))):
        raise site.error(f"the destination must be a 2-d array of real numbers, not {arr}")
    if arr.readonly:
        raise site.error(f"the destination is read-only ({arr})")
    for k, what in ((2, "row"), (3, "col")):
        if not isinstance(site.args[k], Integer):
            raise site.error(f"{what} must be an integer, not {site.args[k]}")
    return Signature(none, (acc, arr, uint64, uint64))


@registry.call(api.wgmma.scale_rows, params=("acc", "lo", "hi"), name="cuda.wgmma.scale_rows")
def _scale_rows(site):
    if len(site.args) != 3:
        raise site.error(f"takes acc, lo, hi: {len(site.args)} argument(s) given")
    acc = _accumulator(site, 0)
    for k, what in ((1, "lo"), (2, "hi")):
        if not isinstance(site.args[k], (Float, Integer)):
            raise site.error(f"{what} must be a real number, not {site.args[k]}")
    return Signature(acc, (acc, float32, float32))


def _setmaxnreg(site):
    if len(site.args) != 1:
        raise site.error(f"takes n, the registers per thread: {len(site.args)} argument(s) given")
    n = site.const(0, "register count")
    if isinstance(n, bool) or not isinstance(n, int) or not 24 <= n <= 256 or n % 8:
        raise site.error(f"the register count must be a constant multiple of 8 from 24 to 256, not {n!r}")
    return Resolved(Signature(none, (site.args[0],)), n)


registry.call(api.setmaxnreg.inc, params=("n",), name="cuda.setmaxnreg.inc")(_setmaxnreg)
registry.call(api.setmaxnreg.dec, params=("n",), name="cuda.setmaxnreg.dec")(_setmaxnreg)
