"""``@cuda.jit(boundscheck=True)`` GPU-less: the option and its environment override,
the checks in the NVVM IR / PTX (emitted for every kind of array index, absent and
the PTX byte-identical when off), the exception table entries and the host's
decoding of a record holding the runtime index and shape."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from cudalite import cuda
from cudalite import types as T
from cudalite.core.errors import NumbaInvalidConfigWarning
from cudalite.cuda._compiler.compile_code import compile_code
from cudalite.nvvm.artifacts import (
    EXC_RECORD_VALUES, EXC_RECORD_WORDS, EXC_VALUES_RECORD_WORDS, ExceptionInfo, ExceptionTable,
)

CC = (9, 0)
HERE = os.path.abspath(__file__)


@pytest.fixture(autouse=True)
def _no_env_override(monkeypatch):
    monkeypatch.delenv("CUDALITE_BOUNDSCHECK", raising=False)
    monkeypatch.delenv("NUMBA_BOUNDSCHECK", raising=False)


def _line(fn, text):
    """The line of ``fn``'s source holding ``text``."""
    import inspect

    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(lines) if text in s)


def store1(a, i):
    a[i] = 1.0  # STORE1


def load2(out, a, i, j):
    out[0] = a[i, j]  # LOAD2


def _compile(fn, sig, **kws):
    k = cuda.jit(**kws)(fn)
    return compile_code(k.py_func, sig, k.options, CC)


def _table(fn, sig, **kws) -> ExceptionTable:
    return _compile(fn, sig, **kws).state.module.exceptions


def _ptx(fn, sig, **kws) -> str:
    return _compile(fn, sig, **kws).stage("ptx")


# -- the option ---------------------------------------------------------------------------------
def test_option_and_environment(monkeypatch):
    assert cuda.jit(store1).options.boundscheck is False
    assert cuda.jit(boundscheck=True)(store1).options.boundscheck is True
    assert cuda.jit(boundscheck=None)(store1).options.boundscheck is False
    assert cuda.jit(boundscheck=np.bool_(True))(store1).options.boundscheck is True
    monkeypatch.setenv("CUDALITE_BOUNDSCHECK", "1")  # a global override, as numba's NUMBA_BOUNDSCHECK
    assert cuda.jit(store1).options.boundscheck is True
    assert cuda.jit(boundscheck=False)(store1).options.boundscheck is True
    monkeypatch.setenv("CUDALITE_BOUNDSCHECK", "0")
    assert cuda.jit(boundscheck=True)(store1).options.boundscheck is False
    monkeypatch.setenv("CUDALITE_BOUNDSCHECK", "")  # empty: unset, the decorator decides
    assert cuda.jit(boundscheck=True)(store1).options.boundscheck is True


def test_numba_alias_and_precedence(monkeypatch):
    monkeypatch.setenv("NUMBA_BOUNDSCHECK", "1")
    assert cuda.jit(store1).options.boundscheck is True
    monkeypatch.setenv("CUDALITE_BOUNDSCHECK", "0")  # CUDALITE_ wins over NUMBA_
    assert cuda.jit(store1).options.boundscheck is False


def test_bad_values_are_refused(monkeypatch):
    with pytest.raises(TypeError, match="boundscheck must be True, False or None, not 'yes'"):
        cuda.jit(boundscheck="yes")(store1)
    monkeypatch.setenv("CUDALITE_BOUNDSCHECK", "maybe")
    with pytest.raises(ValueError, match="CUDALITE_BOUNDSCHECK='maybe'"):
        cuda.jit(store1)
    monkeypatch.delenv("CUDALITE_BOUNDSCHECK")
    monkeypatch.setenv("NUMBA_BOUNDSCHECK", "maybe")  # numba's integer form ("2": on) is read as numba reads it
    with pytest.raises(ValueError, match="NUMBA_BOUNDSCHECK='maybe'"):
        cuda.jit(store1)


def test_boundscheck_on_a_device_function_warns():
    with pytest.warns(NumbaInvalidConfigWarning, match="no effect of its own") as rec:
        cuda.jit(device=True, boundscheck=True)(store1)
    assert rec[0].filename == HERE
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cuda.jit(device=True, boundscheck=False)(store1)
        cuda.jit(device=True)(store1)


def test_options_are_part_of_the_cache_key():
    from cudalite.cuda._compiler.cache import _options_fp

    assert _options_fp(cuda.jit(store1).options) != _options_fp(cuda.jit(boundscheck=True)(store1).options)


# -- zero cost when off ---------------------------------------------------------------------------
SIG1 = (T.float32[:], T.int64)


def test_off_is_byte_identical_and_records_nothing():
    default = _compile(store1, SIG1)
    off = _compile(store1, SIG1, boundscheck=False)
    assert off.stage("ptx") == default.stage("ptx") and off.stage("nvvm-ir") == default.stage("nvvm-ir")
    assert "__cudalite_exc" not in default.stage("ptx") and "bounds." not in default.stage("nvvm-ir")
    assert off.state.module.exc_symbol is None and len(off.state.module.exceptions) == 0


def test_environment_off_overrides_the_decorator_to_the_default_code(monkeypatch):
    default = _ptx(store1, SIG1)
    monkeypatch.setenv("NUMBA_BOUNDSCHECK", "0")
    assert _ptx(store1, SIG1, boundscheck=True) == default


def test_debug_module_keeps_its_record_size():
    def raiser(a, i):
        if i > 3:
            raise ValueError("big")
        a[i] = 1.0

    text = _compile(raiser, SIG1, debug=True, opt=False).stage("nvvm-ir")
    assert f"[{EXC_RECORD_WORDS} x i32]" in text and "bounds." not in text


# -- what is checked --------------------------------------------------------------------------------
def test_store_emits_one_check_with_location():
    res = _compile(store1, SIG1, boundscheck=True)
    mod = res.state.module
    assert mod.exc_symbol and len(mod.exceptions) == 1
    (e,) = mod.exceptions
    assert (e.exc_module, e.exc_qualname, e.filename, e.line, e.function) == (
        "builtins", "IndexError", store1.__code__.co_filename, _line(store1, "# STORE1"), "store1")
    assert e.template == "index {0} is out of bounds for axis 0 with size {1} (array shape ({1},))"
    assert f"[{EXC_VALUES_RECORD_WORDS} x i32]" in res.stage("nvvm-ir")
    ptx = res.stage("ptx")
    assert "atom.global.cas.b32" in ptx and "__cudalite_exc" in ptx
    assert "trap" not in ptx  # the thread returns: the context stays usable


def test_every_axis_of_a_2d_index_is_checked():
    table = _table(load2, (T.float64[:], T.float64[:, :], T.int32, T.int32), boundscheck=True)
    assert [e.template for e in table] == [
        "index {0} is out of bounds for axis 0 with size {1} (array shape ({1}, {2}))",
        "index {0} is out of bounds for axis 1 with size {2} (array shape ({1}, {2}))",
        "index {0} is out of bounds for axis 0 with size {1} (array shape ({1},))",  # out[0]
    ]
    assert {e.line for e in table} == {_line(load2, "# LOAD2")}


def test_unsigned_index_is_shown_unsigned():
    table = _table(store1, (T.float32[:], T.uint64), boundscheck=True)
    assert table[0].template.startswith("index {0u} is out of bounds")


def _kinds(a, b, t, i, j):
    s = cuda.shared.array((4, 8), np.float32)
    loc = cuda.local.array(3, np.int32)
    s[i, j] = a[i]                         # shared store + 1-D load: 3 checks
    loc[j] = 1                             # local store: 1
    b[i, 1:3] = s[0, j]                    # integer item of a sliced store, shared load: 1 + 2
    row = b[i]                             # partial index: 1
    row[j] = t[i]                          # the view's store: 1 (+ the tuple index)
    cuda.atomic.add(b, (i, j), 1.0)        # atomics: 2
    b[i, j] = loc[i]                       # 2 + 1


def test_all_kinds_of_indexing_are_checked():
    sig = (T.float32[::1], T.float32[:, ::1], T.UniTuple(T.float32, 3), T.int64, T.int64)
    table = _table(_kinds, sig, boundscheck=True)
    index_checks = [e for e in table if e.template]
    assert len(index_checks) == 3 + 1 + 3 + 1 + 1 + 2 + 3
    tuple_checks = [e for e in table if not e.template]
    assert [(e.exc_qualname, e.args) for e in tuple_checks] == [("IndexError", ("tuple index out of range",))]
    assert len(_table(_kinds, sig)) == 0


def test_negative_constant_and_slices():
    def k(a, b):
        a[-1] = 1.0      # a check (wraps, then compared)
        b[1:] = 2.0      # slices are clamped, never checked
        a[:] = b[::2]

    table = _table(k, (T.float32[:], T.float32[:]), boundscheck=True)
    assert [e.exc_qualname for e in table] == ["IndexError", "ValueError"]
    assert table[1].template == "could not broadcast input array from shape ({0},) into shape ({1},)"
    assert table[1].line == _line(k, "a[:] = b[::2]")


def test_device_functions_inherit_the_kernel_setting():
    @cuda.jit(device=True)
    def dev(a, i):
        return a[i]  # DEV

    def kern(a, i):
        a[0] = dev(a, i)

    table = _table(kern, SIG1, boundscheck=True)
    by_fn = {e.function: e for e in table}
    assert set(by_fn) == {"dev", "kern"} and by_fn["dev"].line == _line(dev.py_func, "# DEV")
    assert len(_table(kern, SIG1)) == 0
    with pytest.warns(NumbaInvalidConfigWarning):
        checked_dev = cuda.jit(device=True, boundscheck=True)(dev.py_func)

    def kern2(a, i):
        a[0] = checked_dev(a, i)

    assert len(_table(kern2, SIG1)) == 0  # the kernel's setting decides


def test_cache_hinted_loads_are_checked():
    def k(out, a, i):
        out[0] = cuda.ldcg(a, i)
        cuda.stcs(a, i, 1.0)

    assert len(_table(k, (T.float32[:], T.float32[:], T.int32), boundscheck=True)) == 3


# -- the host side: decoding a record -------------------------------------------------------------
def _record(index, *values):
    words = [index, 5, 0, 0, 2, 0, 0]
    for v in values:  # Python ints: NumPy < 2 refuses uint64 & int
        u = int(v) & 0xFFFFFFFFFFFFFFFF
        words += [u & 0xFFFFFFFF, u >> 32]
    words += [0] * (EXC_VALUES_RECORD_WORDS - len(words))
    return np.array(words, dtype=np.uint64).astype(np.uint32).view(np.int32)


def test_decode_names_kernel_location_index_and_shape():
    table = _table(load2, (T.float64[:], T.float64[:, :], T.int32, T.int32), boundscheck=True)
    exc = table.decode(_record(2, -7, 3, 4), kernel="my_kernel")
    assert type(exc) is IndexError
    line = _line(load2, "# LOAD2")
    assert str(exc) == (f"index -7 is out of bounds for axis 1 with size 4 (array shape (3, 4)) in kernel "
                        f"'my_kernel' at {HERE}:{line} (in device function 'load2'), tid=[5, 0, 0] ctaid=[2, 0, 0]")
    exc = table.decode(_record(1, 3, 3, 4), kernel="load2")
    assert str(exc).startswith(f"index 3 is out of bounds for axis 0 with size 3 (array shape (3, 4)) in kernel "
                               f"'load2' at {HERE}:{line}, tid=")
    assert table.decode(_record(0)) is None


def test_decode_large_and_unsigned_values():
    info = ExceptionInfo.of(IndexError, (), None, "k", "index {0u} / {0} of {1}")
    table = ExceptionTable((info,))
    msg = str(table.decode(_record(1, -1, 1 << 40)))
    assert msg.startswith(f"index {(1 << 64) - 1} / -1 of {1 << 40} in kernel 'k'")


def test_decode_refuses_records_of_another_length():
    with pytest.raises(ValueError, match=f"{EXC_RECORD_WORDS} or {EXC_VALUES_RECORD_WORDS} words"):
        ExceptionTable(()).decode([1, 0, 0])


def test_many_dimensions_report_the_axis_size_only():
    ndim = EXC_RECORD_VALUES  # index + shape would not fit
    sig = (getattr(T.float32, "__getitem__")((slice(None),) * ndim), T.UniTuple(T.int64, ndim))

    def k(a, idx):
        a[idx] = 0

    table = _table(k, sig, boundscheck=True)
    assert len(table) == ndim
    assert table[ndim - 1].template == f"index {{0}} is out of bounds for axis {ndim - 1} with size {{1}}"


def test_table_payload_round_trip_keeps_templates():
    table = _table(load2, (T.float64[:], T.float64[:, :], T.int32, T.int32), boundscheck=True)
    again = ExceptionTable.from_payload(table.to_payload())
    assert again == table and [e.template for e in again] == [e.template for e in table]
    old = [["builtins", "ValueError", ["x"], "f.py", 1, 0, "f"]]  # stored before templates
    assert ExceptionTable.from_payload(old)[0].template == ""


def test_cached_artifact_keeps_the_checks(tmp_path):
    from cudalite.cuda._compiler import cache as _cache
    from cudalite.cuda._compiler.kernel import build_kernel

    k = cuda.jit(boundscheck=True)(load2)
    sig = (T.float64[:], T.float64[:, :], T.int32, T.int32)

    def build(cache_dir=None):
        if cache_dir is not None:
            _cache.enable(cache_dir)
        try:
            return build_kernel(k.py_func, sig, k.options, CC)
        finally:
            _cache._settings.update(enabled=None, dir=None)

    fresh = build()
    assert build(tmp_path).status == "miss"
    hit = build(tmp_path)
    assert hit.status == "hit" and hit.artifact == fresh.artifact
    exc = hit.artifact.exceptions.decode(_record(1, 9, 3, 4), kernel="load2")
    assert type(exc) is IndexError and str(exc).startswith("index 9 is out of bounds for axis 0 with size 3 (array "
                                                           "shape (3, 4)) in kernel 'load2'")
    unchecked = cuda.jit(load2)
    other = build_kernel(unchecked.py_func, sig, unchecked.options, CC)
    assert other.artifact.exc_symbol is None
