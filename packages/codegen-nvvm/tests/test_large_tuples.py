"""Large tuples make linear-size NVVM IR (issue 10): a uniform tuple is an LLVM
array ``[n x T]`` (numba's UniTuple model), whose type text does not grow with n,
and a tuple literal of constants is one constant, not n ``insertvalue``s.  Every
tuple operation still compiles and links with the array representation."""

from __future__ import annotations

import cmath
import linecache

import pytest

from cudalite import nvvm as cuda
from cudalite import types
from cudalite.nvvm import compile_ptx
from cudalite.nvvm.api import make_options
from cudalite.nvvm.pipeline import EntrySpec, run_pipeline

_SEEN: dict = {}


def _function(name, src):
    """A function defined by ``src`` whose source ``inspect`` can read."""
    filename = f"<test_large_tuples {name}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns: dict = {}
    exec(compile(src, filename, "exec"), ns)  # noqa: S102 - test-generated source
    _SEEN[filename] = ns  # keep linecache's entry meaningful for the test's life
    return ns[name]


def _literal_kernel(n):
    items = ", ".join(str(i) for i in range(n))
    return _function(f"lit{n}", f"def lit{n}(a):\n    t = ({items},)\n    a[0] = t[5] + t[a.size % {n}]\n")


def _nvvm_ir(fn, sig):
    res = run_pipeline(fn, sig, EntrySpec(device=False), make_options(cc=(9, 0)), until="nvvm-ir")
    return res.artifacts["nvvm-ir"].data


def _ir_size(n):
    return len(_nvvm_ir(_literal_kernel(n), "void(int64[::1])"))


def test_ir_of_a_tuple_literal_grows_linearly():
    small, big = _ir_size(300), _ir_size(3000)
    assert big / small < 15  # was ~95 (63 MB for 3,000 items): each item's insertvalue spelled the type
    assert big < 100_000


def test_a_3000_item_literal_compiles_to_ptx(assemble):
    ptx, _ = compile_ptx(_literal_kernel(3000), "void(int64[::1])", cc=(9, 0))
    assemble(ptx)


def test_uniform_tuples_are_arrays_and_others_structs():
    def k(a):
        u = (a[0], a[1], a[2])
        h = (a[0], 1)
        a[3] = u[a.size % 3] + h[1]

    ir = _nvvm_ir(k, "void(float64[::1])")
    assert "[3 x double]" in ir and "{double, i64}" in ir
    assert "{double, double, double}" not in ir


# -- every tuple operation on a large uniform tuple --------------------------------------------------
N = 40
ITEMS = ", ".join(f"a[{i}]" for i in range(N))

_OPS_SRC = f"""
def total(t):
    s = 0
    for x in t:
        s += x
    return s

def rev(t):
    return t

def ops(a, k, out):
    t = ({ITEMS},)
    c = t + (7, 8)
    out[0] = t[a.size % {N}] + c[{N} + 1]
    out[1] = total(t) + total(k)
    out[2] = len(c)
    out[3] = 1 if t == t else 0
    first, second = (t[0], t[1])
    out[4] = second - first
    nested = (t, t)
    out[5] = nested[1][{N} - 1]
    f = rev(k)
    out[6] = f[3]
    i = 0
    for x in k:
        i += 1
    out[7] = i
"""


def test_operations_on_a_large_uniform_tuple_compile_and_link(assemble):
    ops = _function("ops", _OPS_SRC)
    sig = f"void(int64[::1], UniTuple(int64, {N}), int64[::1])"
    ptx, _ = compile_ptx(ops, sig, cc=(9, 0))
    assemble(ptx)


def test_small_uniform_tuples_built_by_intrinsics(assemble):
    def k(a, z):
        g = cuda.grid(2)
        s = cuda.gridsize(2)
        p = cmath.polar(z)
        a[0] = g[a.size % 2] + s[1] + p[a.size % 2]

    ptx, _ = compile_ptx(k, "void(float64[::1], complex128)", cc=(9, 0))
    assemble(ptx)


@pytest.mark.parametrize("abi", ["c", "numba"])
def test_device_function_returning_a_uniform_tuple(abi, assemble):
    def pair(x):
        return x, x * 2

    ptx, resty = compile_ptx(pair, "UniTuple(float32, 2)(float32)", device=True, abi=abi, cc=(9, 0))
    assert resty == types.UniTuple(types.float32, 2)
    if abi == "c":  # returned by value: 8 bytes, 4-aligned, as the struct {float, float} was
        assert ".param .align 4 .b8 func_retval0[8]" in ptx
    assemble(ptx)
