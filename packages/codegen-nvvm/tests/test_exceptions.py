"""raise / assert in device code: free without debug, recorded for the host with debug."""

from __future__ import annotations

import os

import pytest

from cudalite.nvvm.api import make_options
from cudalite.nvvm.pipeline import EntrySpec, run_pipeline


def check(x):
    if x < 0:
        raise ValueError("negative", 3)
    return x * 2


def kernel(a):
    for i in range(a.shape[0]):
        assert a[i] != 7, "seven"
        a[i] = check(a[i])


def _run(debug):
    return run_pipeline(kernel, "void(int64[:])", EntrySpec(device=False), make_options(debug=debug, cc=(9, 0)))


def test_without_debug_nothing_is_recorded_and_no_global_exists():
    res = _run(False)
    assert len(res.exceptions) == 0 and res.exc_symbol is None
    assert "__cudalite_exc" not in res["ptx"].data


def test_debug_records_each_raise_site_with_its_location(assemble):
    res = _run(True)
    kinds = [(e.exc_class, e.args) for e in res.exceptions]
    assert kinds == [(AssertionError, ("seven",)), (ValueError, ("negative", 3))]
    assert res.exceptions[1].loc.line == check.__code__.co_firstlineno + 2
    ptx = res["ptx"].data
    assert f".visible .global .align 4 .b8 {res.exc_symbol}[28]" in ptx
    assert "atom.global.cas.b32" in ptx or "atom.cas.b32" in ptx
    assert assemble(ptx)[:4] == b"\x7fELF"


class MyError(Exception):
    pass


def raises_mine(a):
    if a[0] < 0:
        raise MyError("mine", 1.5)


def test_exception_table_decodes_its_own_records():
    from cudalite.nvvm.artifacts import EXC_RECORD_WORDS, ExceptionTable

    table = _run(True).exceptions
    assert table.decode([0] * EXC_RECORD_WORDS) is None
    exc = table.decode([2, 1, 2, 3, 4, 5, 6])
    assert type(exc) is ValueError
    line = check.__code__.co_firstlineno + 2  # numba's prefix: the raise site's function, file and line
    assert exc.args == (f"In function 'check', file {os.path.abspath(__file__)}, line {line}, "
                        "tid=[1, 2, 3] ctaid=[4, 5, 6]: negative", 3)
    assert isinstance(table.decode([99, 0, 0, 0, 0, 0, 0]), RuntimeError)
    # the stored form is plain data and decodes the same records without the class objects
    back = ExceptionTable.from_payload(table.to_payload())
    assert back == table and all(e.exc_class is None for e in back)
    again = back.decode([1, 0, 0, 0, 1, 0, 0])
    line = kernel.__code__.co_firstlineno + 2
    assert type(again) is AssertionError and again.args == (
        f"In function 'kernel', file {os.path.abspath(__file__)}, line {line}, tid=[0, 0, 0] ctaid=[1, 0, 0]: seven",)
    # a record stored before the function name was kept (6 fields) decodes without the location
    old = ExceptionTable.from_payload([e[:6] for e in table.to_payload()])
    assert old.decode([1, 0, 0, 0, 1, 0, 0]).args == ("tid=[0, 0, 0] ctaid=[1, 0, 0]: seven",)


def test_exception_table_resolves_user_classes_without_importing():
    from cudalite.nvvm.artifacts import ExceptionTable

    res = run_pipeline(raises_mine, "void(int64[:])", EntrySpec(device=False), make_options(debug=True, cc=(9, 0)))
    back = ExceptionTable.from_payload(res.exceptions.to_payload())
    exc = back.decode([1, 0, 0, 0, 0, 0, 0])
    assert type(exc) is MyError and exc.args[1:] == (1.5,)
    assert exc.args[0].startswith("In function 'raises_mine', file ") and exc.args[0].endswith(
        f"test_exceptions.py, line {raises_mine.__code__.co_firstlineno + 2}, tid=[0, 0, 0] ctaid=[0, 0, 0]: mine")
    # a class in a module that is not imported is never imported: the record names it instead
    payload = [["no_such_module_xyz", "Boom", ["x"], "f.py", 3, 0]]
    exc = ExceptionTable.from_payload(payload).decode([1, 0, 0, 0, 0, 0, 0])
    assert type(exc) is RuntimeError and "no_such_module_xyz.Boom" in exc.args[0]
    import sys

    assert "no_such_module_xyz" not in sys.modules


@pytest.mark.parametrize("payload", [
    {"a": 1}, [["m", "q", ["x"], "f", 1]], [["m", "q", [object], "f", 1, 0]], [[1, "q", [], "f", 1, 0]],
    [["m", "q", [], "f", -1, 0]], [["m", "q", [], "f", True, 0]],
])
def test_exception_table_rejects_malformed_payloads(payload):
    from cudalite.nvvm.artifacts import ExceptionTable, PayloadError

    with pytest.raises(PayloadError):
        ExceptionTable.from_payload(payload)
