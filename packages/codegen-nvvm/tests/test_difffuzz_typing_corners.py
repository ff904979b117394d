"""Programs of the differential fuzzer (tests-compat/difffuzz.py) that numba-cuda compiles
and cudalite refused, compiled GPU-less to PTX; and ``int()`` of an unsigned or narrow
integer lowered without a sign-extension surprise (the value is ``x`` itself, in x's
type, as numba types it), checked by running the NVVM IR on the CPU.
"""

from __future__ import annotations

import ctypes
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

from cudalite import nvvm as cuda
from cudalite import types

from host_jit import host_function as _host

ROOT = pathlib.Path(__file__).resolve().parents[3]
KERNEL_SIG = "void(int64[:,:], float64[:,:], float32[:,:], int64[:], float64[:])"

# (seed, index): refused before with "the constant expression ... does not fit in 64 bits"
# although the operands were a constant tuple's items (or variables), which numba-cuda
# computes at run time.  The programs whose too-big constant is an operation of two
# literals stay refused: CPython folds those into one literal that numba refuses too.
REFUSED_BEFORE = [(4, 188), (2, 148), (3, 296)]


def _difffuzz():
    spec = importlib.util.spec_from_file_location("difffuzz_for_tests", ROOT / "tests-compat" / "difffuzz.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, mod)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("seed, index", REFUSED_BEFORE)
def test_generated_program_compiles(seed, index, tmp_path):
    src = _difffuzz().generate(seed, index).replace("{package}", "cudalite")
    path = tmp_path / f"difffuzz_{seed}_{index}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"difffuzz_prog_{seed}_{index}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ptx, resty = cuda.compile_ptx(mod.kern.py_func, KERNEL_SIG, cc=(9, 0))
    assert ".visible .entry" in ptx and resty == types.void


def shifted_max(v):
    return max(np.uint64(1), int(np.uint32(v)) << 3)


def inverted(v):
    w = max(np.uint64(1), int(np.uint32(v)) << 3)
    return ~w | (w & 7)


def narrow_signed(v):
    return int(np.int8(v)) >> 1


def test_int_of_uint32_is_the_unsigned_value():
    assert cuda.compile_ptx(shifted_max, "(int64,)", device=True, cc=(9, 0))[1] == types.uint64
    f = _host(shifted_max, "uint64(int64)")
    for v in (-1, 0, 1, 2**31, -2**31, 2**32 + 7, 2**63 - 1):
        assert f(v) == max(1, ((v % 2**32) << 3) % 2**64), v


def test_invert_of_the_unsigned_max_compiles_and_is_numpys():
    f = _host(inverted, "uint64(int64)")
    for v in (-1, 0, 5, 2**31 + 3):
        w = np.uint64(max(1, ((v % 2**32) << 3) % 2**64))
        assert f(v) == int(~w | (w & np.uint64(7))), v


def test_int_of_int8_keeps_its_sign():
    assert cuda.compile_ptx(narrow_signed, "(int64,)", device=True, cc=(9, 0))[1] == types.int64
    f = _host(narrow_signed, "int64(int64)")
    for v in (-1, 255, 128, 127, -129):
        wrapped = (v + 128) % 256 - 128
        assert ctypes.c_int64(f(v)).value == wrapped >> 1, v
