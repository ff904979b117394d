"""A PTX input with one huge function (issue 28, finding 15).

ptxas's time grows faster than linearly with one function's size, so such a link
is named before it starts (a warning on ``cudalite.linker``), runs in the isolated
child under the time bound, and its ``LinkTimeout`` says why.  Also: every
``optimization_level`` links (nvJitLink itself rejects ``-O1``/``-O2``).
"""

from __future__ import annotations

import logging
import pickle

import pytest

import cudalite.linker as L
from cudalite.linker import LinkTimeout
from cudalite.linker._ptxsize import SLOW_FUNCTION_BYTES, largest_function, slow_link_reason

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"


def function(name: str, statements: int, entry: bool = False) -> str:
    head = (f".visible .entry {name}(.param .u32 p)\n{{\n .reg .b32 t;\n ld.param.u32 t, [p];\n" if entry
            else f".visible .func (.reg .b32 r) {name}(.reg .b32 a)\n{{\n .reg .b32 t;\n mov.b32 t, a;\n")
    body = "".join(f" add.s32 t, t, {i};\n mul.lo.s32 t, t, 3;\n" for i in range(statements))
    tail = " ret;\n}\n" if entry else " mov.b32 r, t;\n ret;\n}\n"
    return head + body + tail


def huge_ptx() -> tuple[bytes, str]:
    """One function just over the threshold after one small entry; and its size as
    the message spells it (measured from ``.func``, after ``.visible ``)."""
    huge = function("huge_fn", SLOW_FUNCTION_BYTES // 40 + 1000)
    size = len(huge) - len(".visible ")
    assert size >= SLOW_FUNCTION_BYTES
    return (HEADER + function("small", 3, entry=True) + huge).encode(), f"{size / 1e6:.1f} MB"


def test_largest_function_names_and_measures():
    small, big = function("k", 3, entry=True), function("big", 200)
    ptx = (HEADER + small + big).encode()
    size = len(big) - len(".visible ")  # a function's text starts at ``.func``/``.entry``
    assert largest_function(ptx) == ("big", size)
    ptx = (HEADER + big + small).encode()
    assert largest_function(ptx) == ("big", size + len(".visible "))  # up to the next ``.entry``
    assert largest_function(HEADER.encode()) is None


def test_slow_link_reason_only_for_a_huge_ptx_function():
    ptx, size = huge_ptx()
    reason = slow_link_reason([("PTX", ptx, "big.ptx")], None)
    assert reason.startswith(f"big.ptx: function 'huge_fn' is {size} of PTX")
    assert "optimization_level=0" in reason
    assert slow_link_reason([("PTX", ptx, "big.ptx")], 0) == ""       # ptxas -O0 is linear
    assert slow_link_reason([("CUBIN", ptx, "x.cubin")], None) == ""  # ptxas runs on PTX only
    many = (HEADER + "".join(function(f"f{i}", 2000) for i in range(60))).encode()
    assert len(many) > SLOW_FUNCTION_BYTES
    assert slow_link_reason([("PTX", many, "many.ptx")], 3) == ""     # many small functions: linear


def test_huge_function_is_named_before_the_link_and_in_its_timeout(caplog):
    ptx, size = huge_ptx()
    linker = L.Linker("sm_90", timeout=0.5).add(L.PTXSource(ptx, name="big.ptx"))
    with caplog.at_level(logging.WARNING, logger="cudalite.linker"):
        with pytest.raises(LinkTimeout) as e:
            linker.link()  # ~2 s of ptxas: past the bound, so it ran in the child
    warned = [r.getMessage() for r in caplog.records if r.name == "cudalite.linker"]
    assert warned == ["slow link ahead: " + e.value.reason]
    assert f"function 'huge_fn' is {size} of PTX" in e.value.reason
    assert "nvJitLink linking big.ptx ran past the 0.5 s bound" in str(e.value)
    assert e.value.reason in str(e.value)
    copy = pickle.loads(pickle.dumps(e.value))
    assert (copy.reason, str(copy)) == (e.value.reason, str(e.value))


def test_small_ptx_links_without_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="cudalite.linker"):
        cubin = L.Linker("sm_90").add(L.PTXSource((HEADER + function("k", 3, entry=True)).encode())).link()
    assert cubin.data[:4] == b"\x7fELF"
    assert [r for r in caplog.records if r.name == "cudalite.linker"] == []


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_every_optimization_level_links(level):
    ptx = (HEADER + function("k", 50, entry=True)).encode()
    cubin = L.Linker("sm_90", options=L.LinkerOptions(optimization_level=level)).add(L.PTXSource(ptx)).link()
    assert cubin.data[:4] == b"\x7fELF"
