"""GPU-less checks of the differential fuzzer: the generator and the comparator."""

import importlib.util
import math
import struct

import numpy as np
import pytest

import difffuzz

SIG = "void(int64[:,:], float64[:,:], float32[:,:], int64[:], float64[:])"


def f64(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def test_generator_is_deterministic_and_varied():
    assert difffuzz.generate(5, 1) == difffuzz.generate(5, 1)
    assert difffuzz.generate(5, 1) != difffuzz.generate(5, 2)
    assert difffuzz.generate(5, 1) != difffuzz.generate(6, 1)


def test_generated_programs_cover_the_advertised_features():
    text = "\n".join(difffuzz.generate(11, i) for i in range(200))
    for needle in ("//", "%", "**", "<<", ">>", "^", "~", "types.int8(", "types.uint32(", "math.", "for ",
                   "while ", "if ", "cuda.local.array", "tp", "min(", "abs("):
        assert needle in text, needle


@pytest.mark.parametrize("index", range(6))
def test_generated_programs_compile_with_cudalite(tmp_path, index):
    from cudalite import nvvm

    path = tmp_path / f"prog{index}.py"
    path.write_text(difffuzz.generate(2024, index).replace("{package}", "cudalite"))
    spec = importlib.util.spec_from_file_location(f"difffuzz_prog{index}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ptx, _ = nvvm.compile_ptx(mod.kern.py_func, SIG, cc=(9, 0))
    assert ".entry" in ptx


def test_inputs_are_identical_for_both_sides_and_hold_edge_values():
    xi1, xf1 = difffuzz.inputs(np, 3, 9)
    xi2, xf2 = difffuzz.inputs(np, 3, 9)
    assert (xi1 == xi2).all() and np.array_equal(xf1, xf2, equal_nan=True)
    assert -2**63 in xi1 and 2**63 - 1 in xi1
    assert np.isnan(xf1).any() and np.isinf(xf1).any()
    assert xi1.shape == xf1.shape == (difffuzz.N_THREADS,)


def test_floats_agree_ulp_bound_nan_inf_and_zero():
    one = f64(1.0)
    assert difffuzz.floats_agree(one, one + 2, 64, 2)
    assert not difffuzz.floats_agree(one, one + 3, 64, 2)
    assert difffuzz.floats_agree(f64(-1.0), f64(-1.0) + 1, 64, 2)  # negative side, 1 ulp
    # NaN equals NaN, whatever the payload; NaN never equals a number
    assert difffuzz.floats_agree(f64(math.nan), 0x7FF0000000000001, 64, 0)
    assert not difffuzz.floats_agree(f64(math.nan), one, 64, 10**6)
    # infinities exactly; signed zeros differ
    assert not difffuzz.floats_agree(f64(math.inf), f64(1.7976931348623157e308), 64, 2)
    assert not difffuzz.floats_agree(f64(0.0), f64(-0.0), 64, 2)
    # the smallest denormals on either side of zero are 2 ulps apart (ulps count across zero)
    assert difffuzz.floats_agree(f64(5e-324), f64(-5e-324), 64, 2)
    assert not difffuzz.floats_agree(f64(5e-324), f64(-5e-324), 64, 1)
    # float32 width
    assert difffuzz.floats_agree(f32(1.0), f32(1.0) + 2, 32, 2)
    assert not difffuzz.floats_agree(f32(1.0), f32(1.0) + 3, 32, 2)


def test_low_precision_float64_uses_float32_ulps():
    a = 1.0
    b = 1.0 + 2 * 2.0 ** -23  # 2 float32 ulps, ~2**30 float64 ulps
    assert difffuzz.floats_agree(f64(a), f64(b), 64, 2, low_f64=True)
    assert not difffuzz.floats_agree(f64(a), f64(b), 64, 2, low_f64=False)
    assert not difffuzz.floats_agree(f64(a), f64(1.0 + 3 * 2.0 ** -23), 64, 2, low_f64=True)


def test_compare_reports_integer_bit_differences_and_float_mismatches():
    base = {"oi": [[1, -2**63]], "of": [[f64(0.5)]], "of32": [[f32(2.0)]]}
    same = {"oi": [[1, -2**63]], "of": [[f64(0.5) + 1]], "of32": [[f32(2.0)]]}
    assert difffuzz.compare(base, same, 2) == []
    off = {"oi": [[1, -2**63 + 1]], "of": [[f64(0.75)]], "of32": [[f32(2.0)]]}
    diffs = difffuzz.compare(base, off, 2)
    assert diffs[0] == f"oi[0,1]: numba {-2**63} cudalite {-2**63 + 1}"
    assert diffs[1] == "of[0,0]: numba 0.5 cudalite 0.75"
    assert len(diffs) == 2


def test_a_mismatch_is_numba_poison_only_when_cudalite_equals_numba_without_nsw():
    def res(*ints, ok=True):
        return {"ok": ok, "oi": [list(ints)], "of": [[f64(0.5)]], "of32": [[f32(2.0)]]}

    numba, cudalite = res(7, 99), res(7, -2**63)
    # numba-wrap (numba's lowering without nsw) computes what cudalite computed: poison
    assert difffuzz.classify_mismatch(numba, cudalite, res(7, -2**63), 2) == "numba-poison"
    # numba-wrap agrees with numba-cuda: cudalite is wrong
    assert difffuzz.classify_mismatch(numba, cudalite, res(7, 99), 2) == "mismatch"
    # numba-wrap differs from both: a wrong result too
    assert difffuzz.classify_mismatch(numba, cudalite, res(7, 5), 2) == "mismatch"
    # no third run, or a failed one, proves nothing
    assert difffuzz.classify_mismatch(numba, cudalite, None, 2) == "mismatch"
    assert difffuzz.classify_mismatch(numba, cudalite, res(ok=False), 2) == "mismatch"


def test_numba_without_nsw_patches_both_arith_modules(monkeypatch):
    import sys
    import types

    mods = {}
    for name in ("numba", "numba.cuda", "numba.cuda.cpython", "numba.cuda.cpython.numbers", "numba.cuda.np",
                 "numba.cuda.np.math", "numba.cuda.np.math.numbers"):
        mods[name] = types.ModuleType(name)
        monkeypatch.setitem(sys.modules, name, mods[name])
    for name in ("numba.cuda.cpython.numbers", "numba.cuda.np.math.numbers"):
        mods[name]._int_arith_flags = lambda rettype: ["nsw"]
    difffuzz.numba_without_nsw()
    assert all(mods[n]._int_arith_flags("int64") == [] for n in ("numba.cuda.cpython.numbers",
                                                                  "numba.cuda.np.math.numbers"))
    del mods["numba.cuda.np.math.numbers"]._int_arith_flags
    with pytest.raises(RuntimeError, match="no _int_arith_flags"):
        difffuzz.numba_without_nsw()


def test_refusal_parity_classifies_each_program():
    import importlib.util
    import os

    spec = importlib.util.spec_from_file_location(
        "refusal_parity", os.path.join(os.path.dirname(__file__), "refusal_parity.py"))
    rp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rp)
    numba = {0: "ok", 1: "ok", 2: "TypingError: x", 3: "TypingError: y"}
    cudalite = {0: "ok", 1: "TypingError: z", 2: "ok", 3: "TypingError: w"}
    assert rp.classify(numba, cudalite) == {0: "both-ok", 1: "cudalite-refuses", 2: "numba-refuses",
                                            3: "both-refuse"}
