"""raise / assert in device code: free without debug, recorded for the host with debug."""

from __future__ import annotations

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
    assert res.exceptions == () and res.exc_symbol is None
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
