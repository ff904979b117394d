"""A deeply nested tuple (a global of 1-tuples nested 200 deep) is lowered with its LLVM
type built once per nesting level: the tuple types' LLVM types are memoized, so the work
is linear in the depth (before: every use rebuilt the whole nest -- 26 s at depth 2,000)."""

from __future__ import annotations

from cudalite import nvvm as cuda
from cudalite.nvvm.lower import _irtypes

DEPTH = 200  # Python 3.12 types nests of a few hundred levels (its C stack bounds the typing stage)


def _nest(depth):
    g = 1
    for _ in range(depth):
        g = (g,)
    return g


G = _nest(DEPTH)


def reads_deep_global(x):
    t = G
    return x + len(t)


def test_each_nesting_level_gets_its_llvm_type_built_once():
    _irtypes._tuple_value_type.cache_clear()
    ptx, _ = cuda.compile_ptx(reads_deep_global, "int64(int64)", device=True, cc=(9, 0))
    info = _irtypes._tuple_value_type.cache_info()
    assert ".func" in ptx
    assert DEPTH <= info.currsize <= DEPTH + 8  # one LLVM type per level (plus a few other tuples)
    # linear work: a build per level, plus those of a first attempt that ran out of stack
    # and was retried on a bigger one (where Python's recursion limit is lower, e.g. 3.13)
    assert info.misses <= 2 * DEPTH + 8
    assert info.hits >= DEPTH  # and every later use of a level is a lookup
