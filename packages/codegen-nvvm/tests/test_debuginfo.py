"""Debug metadata in NVVM IR and what libNVVM makes of it in the PTX: ``lineinfo``
(``.loc``/``.file``, no DWARF sections, no ``debug`` target) and ``debug`` (-g:
DWARF sections, subprogram types, parameters declared on their stack slots, scalar
locals by ``llvm.dbg.value``, numba's type names, the poly union)."""

from __future__ import annotations

import re

from llvmlite import ir

from cudalite import types as T
from cudalite.nvvm import compile_ptx
from cudalite.nvvm.api import make_options
from cudalite.nvvm.lower._ditypes import DITypes, bits_of
from cudalite.nvvm.pipeline import EntrySpec, run_pipeline


def _ir(fn, sig, **kw):
    res = run_pipeline(fn, tuple(sig), EntrySpec(device=False), make_options(**kw), until="nvvm-ir")
    return res.artifacts["nvvm-ir"].data


def _md(ir_text, ident):
    """The text of metadata node ``!ident``."""
    m = re.search(rf"^!{ident} = (.*)$", ir_text, re.MULTILINE)
    assert m, ident
    return m.group(1)


def store_one(x):
    x[0] = 1


def add_pair(x, y):
    z = x == y  # noqa: F841
    w = x + y  # noqa: F841


def poly(x, y):
    foo = 100  # noqa: F841
    foo = 2.34  # noqa: F841
    foo = True  # noqa: F841


# -- lineinfo ----------------------------------------------------------------------------------
def test_lineinfo_emits_directives_only():
    text = _ir(store_one, (T.int32[:],), lineinfo=True)
    assert re.search(r"!DICompileUnit\(.*emissionKind:\s+DebugDirectivesOnly", text)
    assert "FullDebug" not in text and "llvm.dbg.declare" not in text
    ptx, _ = compile_ptx(store_one, "void(int32[:])", lineinfo=True, cc=(7, 5))
    assert re.search(r'\.file\s+\d+\s+".*test_debuginfo.py"', ptx)
    assert re.search(r"\.loc\s+\d+\s+\d+\s+\d+", ptx)
    assert ".target sm_75\n" in ptx and ".target sm_75, debug" not in ptx
    assert ".debug_info" not in ptx


def test_no_line_information_by_default():
    ptx, _ = compile_ptx(store_one, "void(int32[:])", cc=(7, 5))
    assert ".loc" not in ptx and ".file" not in ptx
    assert "DICompileUnit" not in _ir(store_one, (T.int32[:],))


# -- debug=True --------------------------------------------------------------------------------
def test_debug_emits_dwarf_and_debug_target():
    ptx, _ = compile_ptx(store_one, "void(int32[:])", debug=True, opt=False, cc=(7, 5))
    assert ".target sm_75, debug" in ptx
    assert re.search(r"\.section\s+\.debug_info\s+{", ptx)
    text = _ir(store_one, (T.int32[:],), debug=True, opt=False)
    assert re.search(r"!DICompileUnit\(.*emissionKind:\s+FullDebug", text)
    assert 'producer: "clang (cudalite)"' in text  # cuda-gdb skips prologues the clang way


def test_kernel_parameters_are_named_after_the_arguments():
    text = _ir(add_pair, (T.int32, T.int32), debug=True, opt=False)
    assert re.search(r'define void @.*\(i32 %"x", i32 %"y"\)', text)
    text = _ir(store_one, (T.int32[:],))
    assert re.search(r'define void @.*\(i32\* %"x\.0", i64 %"x\.1", i64 %"x\.2"\)', text)


def test_subroutine_type_lists_void_and_the_argument_types():
    text = _ir(add_pair, (T.int32, T.int32), debug=True, opt=False)
    types_id = re.search(r"!DISubroutineType\(types:\s+!(\d+)\)", text).group(1)
    m = re.fullmatch(r"!{ null, !(\d+), !(\d+) }", _md(text, types_id))
    assert m
    for ident in m.groups():
        assert _md(text, ident) == '!DIBasicType(encoding: DW_ATE_signed, name: "int32", size: 32)'


def test_parameters_are_declared_on_their_slots():
    text = _ir(add_pair, (T.int32, T.int32), debug=True, opt=False)
    for argno, name in ((1, "x"), (2, "y")):
        ident = re.search(rf'^!(\d+) = !DILocalVariable\(arg: {argno},.*name: "{name}"', text, re.MULTILINE).group(1)
        # the slot is named after the parameter (uniquified: the kernel's own parameter is "x")
        assert re.search(rf'call void @"llvm\.dbg\.declare"\(metadata i32\* %"{name}(\.\d+)?", metadata !{ident}\b',
                         text)


def test_scalar_locals_use_dbg_value_with_numba_types():
    text = _ir(add_pair, (T.int32, T.int32), debug=True, opt=False)
    for name, expect in (("z", '!DIBasicType(encoding: DW_ATE_boolean, name: "bool", size: 8)'),
                         ("w", '!DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)')):
        m = re.search(rf'^!(\d+) = !DILocalVariable\(arg: 0,.*name: "{name}".*type: !(\d+)\)', text, re.MULTILINE)
        assert m, name
        assert _md(text, m.group(2)) == expect
        assert re.search(rf'call void @"llvm\.dbg\.value"\(metadata [^,]+, metadata !{m.group(1)}\b', text)
        assert not re.search(rf'llvm\.dbg\.declare"\([^)]*metadata !{m.group(1)}\b', text)


def test_variable_of_several_types_is_a_poly_union():
    text = _ir(poly, (T.int32, T.int32), debug=True, opt=False)
    var = re.search(r'!DILocalVariable\(.*name: "foo".*type: !(\d+)\)', text).group(1)
    m = re.fullmatch(r"distinct !DICompositeType\(elements: !(\d+), file: !\d+, name: \"dbg_poly_union\", "
                     r"size: 64, tag: DW_TAG_union_type\)", _md(text, var))
    assert m
    members = re.findall(r"!(\d+)", _md(text, m.group(1)))
    names = [re.search(r'name: "(\w+)"', _md(text, i)).group(1) for i in members]
    assert names == ["_bool", "_float64", "_int64"]


def test_debug_module_passes_libnvvm_verification():
    def k(a, n):
        acc = 0.0
        t = (n, 1.5)
        for i in range(n):
            acc += a[i] * t[1]
        c = 1j * acc
        a[0] = c.real

    ptx, _ = compile_ptx(k, "void(float64[::1], int32)", debug=True, opt=False, cc=(8, 0))
    assert re.search(r"\.section\s+\.debug_info", ptx) and ".target sm_80, debug" in ptx


# -- DI types ----------------------------------------------------------------------------------
def test_bits_of_follows_the_nvptx_layout():
    assert bits_of(ir.IntType(1)) == (8, 8)
    assert bits_of(ir.IntType(32)) == (32, 32)
    assert bits_of(ir.LiteralStructType([ir.IntType(8), ir.DoubleType()])) == (128, 64)
    assert bits_of(ir.ArrayType(ir.IntType(64), 3)) == (192, 64)


def test_array_type_has_data_shape_strides_members():
    m = ir.Module()
    dit = DITypes(m)
    md = dit.of(T.float32[:, ::1])
    assert dit.of(T.float32[:, ::1]) is md  # described once per module
    text = str(m)
    assert 'name: "array(float32, 2d, C)"' in text and "size: 320" in text
    for field in ("data", "shape", "strides"):
        assert f'name: "{field}"' in text
