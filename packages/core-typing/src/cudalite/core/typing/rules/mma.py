"""Typing of the warp-level matrix multiply-accumulate (tensor cores, PTX ``mma.sync``,
sm_80+) and its fragment helpers, in ``cuda.mma``:

* ``ldmatrix(array, index, count, trans=False)``: ``ldmatrix.sync.aligned.m8n8.x{count}``
  -- each thread of the warp gives the address of one 16-byte row (``array[index]``, in
  shared memory); returns a tuple of ``count`` (1, 2 or 4, a constant) uint32 registers,
  each holding two 16-bit elements; ``trans`` (a constant) transposes the 8x8 tiles;
* ``m16n8k16_f16_f32(a, b, c)`` / ``m16n8k16_bf16_f32`` / ``m16n8k8_tf32_f32`` /
  ``m16n8k32_s8_s32`` / ``m16n8k32_e4m3_f32`` / ``m16n8k32_e5m2_f32`` (fp8 inputs, sm_89+):
  ``D = A @ B + C`` for one warp, A row-major, B column-major, in PTX's fragment layouts:
  ``a`` 4 uint32, ``b`` 2 uint32, ``c`` 4 float32 (int32 for the s8 shape); returns ``d``
  of ``c``'s type;
* ``pack_f16x2(lo, hi)`` / ``pack_bf16x2(lo, hi)``: two float32 rounded to one uint32
  of two halves (``lo`` in the low 16 bits); ``to_tf32(x)``: a float32 rounded to tf32,
  as the uint32 an A/B fragment of the tf32 shape holds.
"""

from __future__ import annotations

from ... import device_api as api
from ...registry import registry
from ...types import Boolean, Float, Integer, Signature, Tuple, UniTuple, float32, int32, uint32
from .._records import Resolved
from .async_copy import _array_and_index

__all__ = ["MMA_SHAPES", "MMA_MIN_CC"]

# name -> (PTX shape and types, accumulator element type)
MMA_SHAPES = {
    "m16n8k16_f16_f32": ("m16n8k16.row.col.f32.f16.f16.f32", float32),
    "m16n8k16_bf16_f32": ("m16n8k16.row.col.f32.bf16.bf16.f32", float32),
    "m16n8k8_tf32_f32": ("m16n8k8.row.col.f32.tf32.tf32.f32", float32),
    "m16n8k32_s8_s32": ("m16n8k32.row.col.s32.s8.s8.s32", int32),
    "m16n8k32_e4m3_f32": ("m16n8k32.row.col.f32.e4m3.e4m3.f32", float32),  # sm_89+
    "m16n8k32_e5m2_f32": ("m16n8k32.row.col.f32.e5m2.e5m2.f32", float32),  # sm_89+
}
MMA_MIN_CC = {"m16n8k32_e4m3_f32": (8, 9), "m16n8k32_e5m2_f32": (8, 9)}  # the others: sm_80


def _regs(site, k, n, what):
    t = site.args[k]
    if not (isinstance(t, Tuple) and len(t.types) == n
            and all(isinstance(x, Integer) and x.bitwidth == 32 for x in t.types)):
        raise site.error(f"{what} must be a tuple of {n} 32-bit integers (uint32 fragment registers), not {t}")
    return UniTuple(uint32, n)


def _mma_typer(name, acc):
    def typer(site):
        if len(site.args) != 3:
            raise site.error(f"takes the fragments a, b and c: {len(site.args)} argument(s) given")
        a, b = _regs(site, 0, 4, "a"), _regs(site, 1, 2, "b")
        c = site.args[2]
        if not (isinstance(c, Tuple) and len(c.types) == 4 and all(x == acc for x in c.types)):
            raise site.error(f"c must be a tuple of 4 {acc} (the accumulator fragment), not {c}")
        return Signature(UniTuple(acc, 4), (a, b, UniTuple(acc, 4)))

    return typer


for _name, (_ptx, _acc) in MMA_SHAPES.items():
    registry.call(getattr(api.mma, _name), params=("a", "b", "c"), name=f"cuda.mma.{_name}")(_mma_typer(_name, _acc))


@registry.call(api.mma.ldmatrix, params=("array", "index", "count", "trans"), name="cuda.mma.ldmatrix")
def _ldmatrix(site):
    if not 3 <= len(site.args) <= 4:
        raise site.error(f"takes array, index, count and optionally trans: {len(site.args)} argument(s) given")
    arr, idx = _array_and_index(site, 0, "source")
    count = site.const(2, "matrix count")
    if count not in (1, 2, 4) or isinstance(count, bool):
        raise site.error(f"the matrix count must be the constant 1, 2 or 4, not {count!r}")
    trans = site.const(3, "trans flag") if len(site.args) == 4 else False
    if not isinstance(trans, bool):
        raise site.error(f"trans must be the constant True or False, not {trans!r}")
    args = (arr, idx) + tuple(site.args[2:])
    return Resolved(Signature(UniTuple(uint32, count), args), (int(count), trans))


def _float_pair(site):
    if len(site.args) != 2:
        raise site.error(f"takes lo and hi: {len(site.args)} argument(s) given")
    for t in site.args:
        if not isinstance(t, (Float, Integer, Boolean)):
            raise site.error(f"packs real numbers, not {t}")
    return Signature(uint32, (float32, float32))


registry.call(api.mma.pack_f16x2, params=("lo", "hi"), name="cuda.mma.pack_f16x2")(_float_pair)
registry.call(api.mma.pack_bf16x2, params=("lo", "hi"), name="cuda.mma.pack_bf16x2")(_float_pair)


@registry.call(api.mma.to_tf32, params=("x",), name="cuda.mma.to_tf32")
def _to_tf32(site):
    if len(site.args) != 1 or not isinstance(site.args[0], (Float, Integer)):
        raise site.error("takes one real number")
    return Signature(uint32, (float32,))



