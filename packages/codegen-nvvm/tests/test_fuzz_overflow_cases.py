"""Signed overflow: the differential fuzzer's remaining mismatches (seed 1, 1000 programs,
docs/compat.md "Known differences found by the differential fuzzer").

numba-cuda emits signed ``+ - *`` (and the multiplications of its ``int ** int`` loop)
with ``nsw``, so a wrapping result is LLVM poison there and the optimizer folds it
freely (``abs(a + 1000)`` returns a negative number, ``a ** 4`` is assumed >= 0,
``31 > 65535 + a`` becomes ``a < -65504``).  cudalite wraps (two's complement) and
keeps doing so.  GPU-less: each distilled case is compiled by cudalite, its NVVM IR is
optimized at O3 by the host LLVM and run on the CPU; it must give the wrapped result.
The same IR with ``nsw`` added to every i64 ``add``/``sub``/``mul`` (numba's flags)
reproduces numba's value: the proof that poison, not typing or lowering, is the cause.
"""

from __future__ import annotations

import ctypes
import re

import llvmlite.binding as llvm
import pytest

from cudalite import nvvm as cuda

INT64_MAX = 2**63 - 1


def _wrap(x: int) -> int:
    return (x + 2**63) % 2**64 - 2**63


def _host(fn, nargs: int, nsw: bool):
    """``fn`` (int64 arguments, int64 result) compiled by cudalite, optimized at O3 by the
    host LLVM and JIT-compiled for the CPU; with ``nsw`` numba's overflow flags are added."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    sig = "int64(" + ", ".join(["int64"] * nargs) + ")"
    text = cuda.compile_stages(fn, sig, device=True, cc=(9, 0))["nvvm-ir"].data
    text = re.sub(r"^(target (triple|datalayout) = .*|!.*)$", "", text, flags=re.M)
    if nsw:
        text = re.sub(r"= (add|sub|mul) i64", r"= \1 nsw i64", text)
    name = re.search(r'define internal i64 @"([^"]*\$impl)"', text).group(1)
    text = text.replace("define internal i64", "define i64")
    tm = llvm.Target.from_default_triple().create_target_machine(opt=3)
    mod = llvm.parse_assembly(text)
    mod.triple, mod.data_layout = tm.triple, str(tm.target_data)
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=3))
    pb.getModulePassManager().run(mod, pb)
    ee = llvm.create_mcjit_compiler(mod, tm)
    ee.finalize_object()
    cfn = ctypes.CFUNCTYPE(ctypes.c_int64, *[ctypes.c_int64] * nargs)(ee.get_function_address(name))

    def call(*args):
        return cfn(*args)

    call.keep = (ee, mod)
    return call


# The fuzz programs' expressions, distilled (program number: the variable).
def abs_of_sum(a):  # 814: v10 = abs(tp5[0] + tp5[1]), tp5 = (a1, 1000, b1)
    return abs(a + 1000)


def abs_of_power(a):  # 867: v5 = abs(a0 ** 4)
    return abs(a**4)


def compare_sum(a):  # 88: if 31 > v6 (v6 = 65535 + a0)
    return 1 if 31 > 65535 + a else 2


def compare_product(a):  # 192: if 0 > v3 (v3 = a0 * 1099511627779)
    return 1 if 0 > a * 1099511627779 else 2


def compare_double(a):  # 201: if 127 < v5 (v5 = a0 + a0)
    return 1 if 127 < a + a else 2


def power_mod(u):  # 472: v16 = (int64(u0) ** 3) % 65
    return (u**3) % 65


def max_of_power(a):  # 531: v12 = max(a0 ** 4, 255)
    return max(a**4, 255)


# (function, argument, cudalite's wrapped value, numba's value from the fuzz repro)
CASES = [
    (abs_of_sum, INT64_MAX, 9223372036854774809, -9223372036854774809),
    (abs_of_power, -4677078925977241581, 2157719784416895727, -2157719784416895727),
    (compare_sum, INT64_MAX, 1, 2),
    (compare_product, 3248494526909988585, 1, 2),
    (compare_double, 7412262147772079320, 2, 1),
    (power_mod, 1257754021, None, None),
    (max_of_power, 7233224380846093752, None, None),
]


def _reference(fn, arg):
    """CPython with every intermediate wrapped to int64: cudalite's contract."""
    if fn is abs_of_sum:
        return abs(_wrap(arg + 1000))
    if fn is abs_of_power:
        return _wrap(abs(_wrap(arg**4)))
    if fn is compare_sum:
        return 1 if 31 > _wrap(65535 + arg) else 2
    if fn is compare_product:
        return 1 if 0 > _wrap(arg * 1099511627779) else 2
    if fn is compare_double:
        return 1 if 127 < _wrap(arg + arg) else 2
    if fn is power_mod:
        return _wrap(arg**3) % 65
    if fn is max_of_power:
        return max(_wrap(arg**4), 255)
    raise AssertionError(fn)


@pytest.mark.parametrize("fn,arg,wrapped,numba", CASES, ids=[c[0].__name__ for c in CASES])
def test_overflow_wraps_after_optimization(fn, arg, wrapped, numba):
    expect = _reference(fn, arg)
    if wrapped is not None:
        assert expect == wrapped
    assert _host(fn, 1, nsw=False)(arg) == expect


@pytest.mark.parametrize(
    "fn,arg,numba",
    [(f, a, n) for f, a, _, n in CASES if n is not None],
    ids=[c[0].__name__ for c in CASES if c[3] is not None],
)
def test_numbas_nsw_flags_reproduce_its_value(fn, arg, numba):
    """numba's result is what poison folding gives: the cause of the fuzz mismatch."""
    assert _host(fn, 1, nsw=True)(arg) == numba
