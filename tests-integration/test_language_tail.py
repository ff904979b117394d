"""GPU-less checks of the language additions of the compat tail: ``in``/``not in`` over
tuples, ``literal_unroll`` over tuples of mixed item types, eager device-function
signatures (calls convert), debug-mode checks (tuple index, division by zero),
``cuda.typeof``, constant-argument errors naming RequireLiteralValue, and one eager
kernel signature accepting same-size arrays."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda, types
from cudalite.core import ir as cir
from cudalite.core.errors import TypingError
from cudalite.core.typing import TypingContext, infer
from cudalite.core.registry import registry
from cudalite.nvvm.api import make_options
from cudalite.nvvm.pipeline import EntrySpec, run_pipeline

MIXED = (np.float64([1.0, 0.0]), np.int64([[1, 2], [3, 4]]), np.float32([2.5]))


def _typed(fn, *argtypes):
    return infer(TypingContext(registry), fn, argtypes)


def _llvm(fn, sig, debug=False):
    res = run_pipeline(fn, sig, EntrySpec(device=False), make_options(debug=debug, opt=False, cc=(9, 0)))
    return res


# -- in / not in --------------------------------------------------------------------------
def membership(r, x):
    r[0] = x in (1, 2)
    r[1] = x not in (3, 4.5)
    r[2] = (x, 1) in ((1, 1), (2, 2))
    r[3] = x in ()


def test_in_over_tuples_types_to_bool_and_compiles():
    tf = _typed(membership, types.boolean[::1], types.int32)
    assert tf.return_type == types.void
    ptx = cuda.compile_ptx(membership, (types.boolean[::1], types.int32))[0]
    assert "st.global.u8" in ptx or "st.global.b8" in ptx


def test_in_with_an_empty_tuple_is_a_constant():
    def f(x):
        return x in ()

    def g(x):
        return x not in ()

    res = run_pipeline(f, "boolean(int32)", EntrySpec(device=True), make_options(cc=(9, 0)))
    assert "ret i1 0" in res["nvvm-ir"].data or "ret i8 0" in res["nvvm-ir"].data
    res = run_pipeline(g, "boolean(int32)", EntrySpec(device=True), make_options(cc=(9, 0)))
    assert "ret i1 1" in res["nvvm-ir"].data or "ret i8 1" in res["nvvm-ir"].data


def test_in_needs_a_tuple_on_the_right():
    def f(r, x, a):
        r[0] = x in a

    with pytest.raises(TypingError, match="'in' operator is supported with a tuple on its right"):
        _typed(f, types.boolean[::1], types.int32, types.int32)


# -- literal_unroll ------------------------------------------------------------------------
def unrolled(out):
    i = 0
    for case in cuda.literal_unroll(MIXED):
        out[i] = case.sum()
        i += 1


def test_literal_unroll_types_the_body_once_per_item():
    tf = _typed(unrolled, types.float64[::1])
    assert tf.return_type == types.void
    ir_text = _llvm(unrolled, "void(float64[::1])")["nvvm-ir"].data
    assert "sitofp" in ir_text  # the int64 item's sum converted to the float64 output
    assert "fpext" in ir_text  # the float32 item's sum widened


def test_literal_unroll_of_a_parameter_tuple_and_the_original_ir_is_kept():
    def f(out, t):
        i = 0
        for x in cuda.literal_unroll(t):
            out[i] = x[0]
            i += 1

    ctx = TypingContext(registry)
    mixed = types.Tuple((types.float32[::1], types.UniTuple(types.int64, 2)))
    tf = infer(ctx, f, (types.float64[::1], mixed))
    assert not any(isinstance(s, cir.ForIter) for s in cir.walk_stmts(tf.fir.body))
    assert any(isinstance(s, cir.ForIter) for s in cir.walk_stmts(ctx.function_ir(f).body))
    same = types.UniTuple(types.float32[::1], 2)  # items of one type: stays a loop
    tf = infer(TypingContext(registry), f, (types.float64[::1], same))
    assert any(isinstance(s, cir.ForIter) for s in cir.walk_stmts(tf.fir.body))


def test_literal_unroll_refuses_break_in_an_unrolled_body():
    def f(out, t):
        for x in cuda.literal_unroll(t):
            if x > 1:
                break

    with pytest.raises(TypingError, match="break/continue in a loop over cuda.literal_unroll"):
        _typed(f, types.float64[::1], types.Tuple((types.int32, types.float32[::1])))


# -- eager device signatures ---------------------------------------------------------------
@cuda.jit("int32(int32, int32)", device=True)
def pack(r, g):
    return ((r & 0xFF) << 8) | (g & 0xFF)


def test_device_function_with_eager_signature_converts_the_arguments():
    def caller(x, ch):
        x[0] = pack(ch[0], ch[1])

    tf = _typed(caller, types.int32[::1], types.float32[::1])
    callee = tf.callees[0]
    assert callee.argtypes == (types.int32, types.int32) and callee.return_type == types.int32
    ptx = cuda.compile_ptx(caller, (types.int32[::1], types.float32[::1]))[0]
    assert ptx.count("cvt.rzi.s32.f32") == 2


def test_device_function_with_eager_signature_refuses_what_does_not_convert():
    def caller(x, c):
        x[0] = pack(c, c)

    with pytest.raises(TypingError, match=r"No matching definition for argument type\(s\) complex64, complex64 "
                                          r"of device function pack; its signatures are: \(int32, int32\)"):
        _typed(caller, types.int32[::1], types.complex64)


# -- debug checks --------------------------------------------------------------------------
def divide(r, x, y):
    r[0] = y[0] / x[0]


def shape_at(ary):
    x = cuda.threadIdx.x
    if x == 2:
        ary[0] = ary.shape[-x]


def test_debug_division_by_zero_is_checked():
    res = _llvm(divide, "void(float64[::1], float64[::1], float64[::1])", debug=True)
    assert [(e.exc_class, e.args) for e in res.exceptions] == [(ZeroDivisionError, ("division by zero",))]
    assert len(_llvm(divide, "void(float64[::1], float64[::1], float64[::1])").exceptions) == 0


def test_debug_tuple_index_out_of_range_is_checked():
    res = _llvm(shape_at, "void(int64[::1])", debug=True)
    assert (IndexError, ("tuple index out of range",)) in [(e.exc_class, e.args) for e in res.exceptions]


# -- typeof, messages, eager matching ------------------------------------------------------
def test_typeof_matches_kernel_argument_types():
    assert cuda.typeof(np.arange(5).astype(np.int8)) == types.int8[::1]
    assert cuda.typeof(np.zeros((2, 3), order="F")) == types.float64[::1, :]
    assert cuda.typeof(1) == types.int64 and cuda.typeof(1.0) == types.float64
    assert cuda.typeof(np.float32(2)) == types.float32
    assert cuda.typeof((1, 2.0)) == types.Tuple((types.int64, types.float64))
    assert cuda.typeof(np.arange(3)).dtype.bitwidth == 64


def test_non_constant_grid_names_require_literal_value():
    def f(x):
        cuda.grid(x)

    with pytest.raises(TypingError, match=r"must be a compile-time constant, not a runtime int32 "
                                          r"\(RequireLiteralValue\)"):
        cuda.compile_ptx(f, (types.int32,))


def test_one_eager_signature_accepts_same_size_arrays_only():
    from cudalite.cuda._launch.keys import compatible

    u32 = (np.dtype(np.uint32), 2, "C")
    assert compatible(u32, types.int32[:, :], reinterpret=True) == 0
    assert compatible(u32, types.int32[:, :]) == -1
    assert compatible((np.dtype(np.uint64), 2, "C"), types.int32[:, :], reinterpret=True) == -1
    assert compatible((np.dtype(np.bool_), 1, "C"), types.int8[:], reinterpret=True) == -1
    assert compatible((np.dtype(np.float32), 1, "C"), types.int32[:], reinterpret=True) == 0


def test_is_between_numbers_is_refused_with_a_hint():
    """``is`` between numbers is refused (an IntEnum member is a plain int in device
    code, so identity cannot be told from equality): a located error suggesting ``==``."""
    from cudalite import types as T
    from cudalite.core.errors import TypingError
    from cudalite.cuda._compiler.options import JitOptions
    from cudalite.cuda._compiler.compile_code import compile_code

    def f(a, b, out):
        out[0] = a is b

    with pytest.raises(TypingError, match=r"'is' is supported only to compare with None, not int64 and int64 "
                                          r"\(compare numbers with == / !=\)"):
        compile_code(f, (T.int64, T.int64, T.boolean[:]), JitOptions(), (8, 0), until="typed-ir")

    def g(a, out):
        out[0] = a is None

    compile_code(g, (T.int64, T.boolean[:]), JitOptions(), (8, 0), until="ptx")


@pytest.mark.parametrize("name, modifier", [("ldca", "ca"), ("ldcg", "cg"), ("ldcs", "cs"), ("ldlu", "lu"),
                                            ("ldcv", "cv")])
def test_cache_hint_loads_through_a_pointer(name, modifier):
    from cudalite import cuda
    from cudalite import types as T

    op = getattr(cuda, name)

    def f(ptr, r, n):
        for i in range(n):
            r[i] = op(ptr, i)

    for dt in (T.int8, T.uint16, T.float16, T.float32, T.float64):
        ptx, _ = cuda.compile_ptx(f, (T.CPointer(dt), dt[:], T.intp), cc=(8, 0))
        assert f"ld.global.{modifier}.b{dt.bitwidth}" in ptx


def test_cache_hint_stores_through_a_pointer_and_bad_pointers():
    from cudalite import cuda
    from cudalite import types as T
    from cudalite.core.errors import TypingError

    def g(ptr, x, n):
        for i in range(n):
            cuda.stcs(ptr, i, x[i])

    ptx, _ = cuda.compile_ptx(g, (T.CPointer(T.uint64), T.uint64[:], T.intp), cc=(8, 0))
    assert "st.global.cs.b64" in ptx
    with pytest.raises(TypingError, match=r"stcs requires a pointer to an integer or float type"):
        cuda.compile_ptx(g, (T.CPointer(T.complex64), T.complex64[:], T.intp), cc=(8, 0))


def test_this_grid_and_cooperative_foreign_functions_mark_the_kernel_cooperative():
    """numba-cuda: a kernel that takes ``cg.this_grid()`` or calls a foreign function
    declared ``use_cooperative=True`` is launched cooperatively; others are not."""
    from cudalite import cuda
    from cudalite import types as T
    from cudalite.cuda._compiler.options import JitOptions
    from cudalite.cuda._compiler.compile_code import compile_code

    def grid_only(a):
        g = cuda.cg.this_grid()  # noqa: F841  (taken, not synced)
        a[0] = 1.0

    def plain(a):
        a[0] = 1.0

    coop = cuda.declare_device("coop_fn", "int32()", use_cooperative=True)
    other = cuda.declare_device("other_fn", "int32()")

    def calls_coop(a):
        a[0] = coop()

    def calls_other(a):
        a[0] = other()

    def cooperative(fn):
        return compile_code(fn, (T.float64[:],), JitOptions(), (8, 0), until="nvvm-ir").module.uses_grid_sync

    assert cooperative(grid_only) and cooperative(calls_coop)
    assert not cooperative(plain) and not cooperative(calls_other)
    assert coop.use_cooperative and not other.use_cooperative
