"""Validation with helpful messages (issue 10): ``opt``, ``abi_info['abi_name']``,
``debug``/``lineinfo`` combinations, array sizes against the target's limits
(checked with nvJitLink), constant-folded shapes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cudalite import nvvm as cuda
from cudalite import types
from cudalite.core.errors import TypingError
from cudalite.nvvm import compile, compile_ptx
from cudalite.nvvm import make_options
from cudalite.nvvm._options import nvvm_flags
from cudalite.nvvm.lower import is_symbol_name

TPB = 16


def kernel(a):
    a[0] = 1.0


def dev(x):
    return x + 1


KSIG = "void(float32[::1])"


# -- opt ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("opt, level", [(None, 3), (True, 3), (False, 0), (0, 0), (1, 1), (2, 2), (3, 3),
                                        (np.int64(2), 2)])
def test_opt_accepts_bools_and_levels(opt, level):
    o = make_options(opt=opt)
    assert o.opt == level and type(o.opt) is int
    assert f"-opt={level}" in nvvm_flags(o)


@pytest.mark.parametrize("opt", [99, 4, -1, "3", 1.5, "O3"])
def test_opt_refuses_others_naming_the_levels(opt):
    with pytest.raises(ValueError, match=r"opt must be True, False or an optimization level 0, 1, 2 or 3, "
                                         rf"not {opt!r}"):
        compile_ptx(kernel, KSIG, opt=opt)


# -- debug / lineinfo ----------------------------------------------------------------------------
def _warnings(**kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        compile_ptx(kernel, KSIG, **kw)
    return [str(x.message) for x in w]


def test_debug_with_opt_warns_that_opt_is_ignored():
    (msg,) = _warnings(debug=True, opt=True)
    assert msg.startswith("debug=True with opt=True: debug builds are compiled without optimization")
    (msg,) = _warnings(debug=True, opt=2)
    assert "opt=2" in msg


def test_debug_with_lineinfo_warns():
    (msg,) = _warnings(debug=True, lineinfo=True, opt=False)
    assert msg.startswith("debug and lineinfo are mutually exclusive")


def test_no_warning_for_consistent_options():
    assert _warnings(debug=True) == [] and _warnings(debug=True, opt=False) == []
    assert _warnings(lineinfo=True, opt=3) == [] and _warnings() == []


def test_the_warning_points_at_the_caller():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        compile(dev, "float32(float32)", debug=True, opt=3)
    assert w[0].filename == __file__


# -- abi_name --------------------------------------------------------------------------------------
@pytest.mark.parametrize("abi", ["c", "numba"])
def test_abi_name_must_be_a_str(abi):
    with pytest.raises(TypeError, match=r"abi_info\['abi_name'\] must be a str, not int \(123\)"):
        compile(dev, "float32(float32)", abi=abi, abi_info={"abi_name": 123})


@pytest.mark.parametrize("abi", ["c", "numba"])
@pytest.mark.parametrize("name, why", [
    ("my fn", "it contains ' '"), ("a.b", "it contains '.'"), ("%r1", "it contains '%'"),
    ("é", "it contains 'é'"), ("", "it is empty"), ("1abc", "must not start with a digit"),
    ("_", "needs at least one more character"), ("$", "needs at least one more character"),
    ("WARP_SZ", "a name PTX reserves"),
])
def test_abi_name_must_be_a_ptx_symbol(abi, name, why):
    with pytest.raises(ValueError) as info:
        compile(dev, "float32(float32)", abi=abi, abi_info={"abi_name": name})
    msg = str(info.value)
    assert msg.startswith(f"abi_info['abi_name'] {name!r} is not a valid symbol name for abi={abi!r}: ")
    assert why in msg and msg.endswith("use letters, digits, '_' and '$', not starting with a digit")


@pytest.mark.parametrize("abi", ["c", "numba"])
@pytest.mark.parametrize("name", ["$a", "a$b", "_1", "my_fn", "__x"])
def test_valid_abi_names_compile_and_link(abi, name, assemble):
    ptx, _ = compile(dev, "float32(float32)", abi=abi, abi_info={"abi_name": name}, cc=(9, 0))
    assert f".func  (.param .b32 func_retval0) {name}(" in ptx or f" {name}(" in ptx
    assemble(ptx)


def test_abi_info_must_be_a_dict():
    with pytest.raises(TypeError, match="abi_info must be a dict"):
        compile(dev, "float32(float32)", abi_info="name")


def test_symbol_rule():
    assert all(map(is_symbol_name, ["a", "A1", "_a", "$1", "a$", "_ZN8__main__3fooEf"]))
    assert not any(map(is_symbol_name, ["", "_", "$", "9a", "a-b", "WARP_SZ", None, 5]))


# -- shared / local array sizes, checked before libNVVM ---------------------------------------------
def _shared(n):
    def k(a):
        s = cuda.shared.array(n, types.float32)
        s[cuda.threadIdx.x] = a[cuda.threadIdx.x]
        cuda.syncthreads()
        a[cuda.threadIdx.x] = s[n - 1 - cuda.threadIdx.x]

    return k


def test_shared_array_just_under_the_limit_links_for_sm_90(assemble):
    ptx, _ = compile_ptx(_shared(12288), KSIG, cc=(9, 0))  # 48 KiB
    assert ".shared .align" in ptx and "[49152]" in ptx
    assemble(ptx)


def test_shared_array_over_the_limit_is_refused_before_libnvvm(monkeypatch):
    from cudalite.nvvm import libnvvm

    def no_nvvm(*a, **k):
        raise AssertionError("libNVVM must not be reached")

    for name in ("compile_ir", "verify_ir"):
        monkeypatch.setattr(libnvvm, name, no_nvvm)
    with pytest.raises(TypingError) as info:
        compile_ptx(_shared(12289), KSIG, cc=(9, 0))
    assert ("takes 49156 bytes, more than the 49152 bytes (48 KiB) of static shared memory a block may "
            "have on sm_90") in str(info.value)


def test_nvjitlink_itself_refuses_one_word_more(assemble):
    """The limit cudalite checks is ptxas's: 0xc000 bytes of static shared data."""
    ptx, _ = compile_ptx(_shared(12288), KSIG, cc=(9, 0))
    with pytest.raises(AssertionError, match=r"too much shared data \(0xc004 bytes, 0xc000 max\)"):
        assemble(ptx.replace("[49152]", "[49156]"))


def test_huge_local_array_is_refused():
    def k(a):
        s = cuda.local.array(2**40, types.float32)
        s[cuda.threadIdx.x] = 1.0
        a[0] = s[a.size]

    with pytest.raises(TypingError, match=r"local array of 1099511627776 float32 takes 4398046511104 bytes, "
                                          r"more than the 524288 bytes \(512 KiB\)"):
        compile_ptx(k, KSIG, cc=(9, 0))


# -- constant-folded shapes compile and link ---------------------------------------------------------
def test_folded_shapes_compile_and_link(assemble):
    def k(a):
        s = cuda.shared.array(2**10, types.float32)
        t = cuda.shared.array((TPB, TPB // 2), types.float32)
        u = cuda.local.array(-(-TPB // 3), types.int32)
        i = cuda.threadIdx.x
        s[i] = a[i]
        t[i % TPB, i % (TPB // 2)] = a[i]
        u[i % 6] = 1
        cuda.syncthreads()
        a[i] = s[1023 - i] + t[0, 0] + u[0]

    ptx, _ = compile_ptx(k, KSIG, cc=(9, 0))
    assert "[4096]" in ptx and "[512]" in ptx  # 1024 and 16 x 8 float32
    assemble(ptx)
