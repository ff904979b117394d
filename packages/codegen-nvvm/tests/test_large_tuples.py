"""Large tuples make linear-size NVVM IR (issue 10): a uniform tuple is an LLVM
array ``[n x T]`` (numba's UniTuple model), whose type text does not grow with n,
a large heterogeneous tuple an identified struct type ``%tuple.<hash>``, and a
tuple literal of constants is one constant, not n ``insertvalue``s.  Every
tuple operation still compiles and links with the array representation."""

from __future__ import annotations

import cmath
import linecache
import re

import pytest

from cudalite import nvvm as cuda
from cudalite import types
from cudalite.nvvm import compile_ptx
from cudalite.nvvm.api import make_options
from cudalite.nvvm.lower._irtypes import NAMED_TUPLE_MIN as NAMED
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


# -- heterogeneous tuples: identified struct types ----------------------------------------------------
def _mixed_kernel(n):
    items = ", ".join(f"a[{i % 8}]" if i % 2 else f"i{i % 3}" for i in range(n))
    src = (f"def mixed{n}(a, i0, i1, i2, out):\n    t = ({items},)\n"
           f"    out[0] = t[{n - 1}] + t[{n - 2}] + t[0]\n")
    return _function(f"mixed{n}", src)


_MIXED_SIG = "void(float64[::1], int64, int32, int16, float64[::1])"


def test_ir_of_a_heterogeneous_tuple_grows_linearly():
    small = len(_nvvm_ir(_mixed_kernel(300), _MIXED_SIG))
    big = len(_nvvm_ir(_mixed_kernel(3000), _MIXED_SIG))
    assert big / small < 12  # was ~93 (59 MB for 3,000 items): the literal struct in every instruction
    assert big < 2_000_000  # 1.0 MB here


def test_large_heterogeneous_tuples_are_one_declared_named_type(assemble):
    ir = _nvvm_ir(_mixed_kernel(40), _MIXED_SIG)
    names = sorted(set(re.findall(r'%"tuple\.[0-9a-f]{16}"', ir)))
    assert len(names) == 1
    decl = re.findall(rf"^{re.escape(names[0])} = type {{(.*)}}$", ir, re.M)
    assert len(decl) == 1 and decl[0].count(",") == 39
    assert decl[0].split(", ")[:6] == ["i64", "double", "i16", "double", "i32", "double"]
    ptx, _ = compile_ptx(_mixed_kernel(40), _MIXED_SIG, cc=(9, 0))
    assemble(ptx)


def test_small_heterogeneous_tuples_stay_literal_structs():
    ir = _nvvm_ir(_mixed_kernel(NAMED - 1), _MIXED_SIG)
    assert "tuple." not in ir and "{i64, double, i16, double, i32, double" in ir


@pytest.mark.parametrize("abi", ["c", "numba"])
def test_device_functions_passing_large_heterogeneous_tuples(abi, assemble):
    src = ("def inner(t):\n    return t[0] + t[39]\n\n"
           "def outer(x, i):\n"
           f"    return inner(({', '.join('x' if k % 2 else 'i' for k in range(40))},))\n")
    _function("inner", src)
    outer = _function("outer", src)
    ptx, resty = compile_ptx(outer, "float64(float64, int64)", device=True, abi=abi, cc=(9, 0))
    assert resty == types.float64
    assemble(ptx)


def test_a_module_declares_only_the_named_types_it_uses():
    _nvvm_ir(_mixed_kernel(50), _MIXED_SIG)  # another module's tuple type exists in this process
    ir = _nvvm_ir(_mixed_kernel(40), _MIXED_SIG)
    assert len(re.findall(r'^%"tuple\.[0-9a-f]{16}" = type', ir, re.M)) == 1
