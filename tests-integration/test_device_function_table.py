"""GPU-less: the one device-function table, all three columns.

Every device function the typing registry knows (its keys that are stubs of
``cudalite.core.device_api`` or ``math``/``cmath`` functions; ``cuda.bf16`` and
``cuda.fp8`` included) has a lowering registered under the same key in the nvvm table,
and a simulator column: an implementation, or a reason in the simulator's one
not-simulated table.  Adding a device function in core without its lowering, or
without its simulator implementation or reason, fails here (the sample comparisons are
``packages/jit/tests/test_simulator_parity.py``)."""

from __future__ import annotations

import math

from cudalite.core import device_api
from cudalite.core.registry import registry
from cudalite.cuda.simulator import device_table as dt
from cudalite.nvvm.lower import lowerings


def _lowering(key):
    if isinstance(key, device_api.DeviceValue):
        return lowerings.lookup_value(key)
    return lowerings.lookup_call(key)


def test_every_device_function_has_typing_lowering_and_a_simulator_column():
    rows = dt.device_table()
    assert len(rows) > 600
    no_typing = [r.qualname for r in rows
                 if registry.lookup_call(r.key) is None and registry.lookup_value(r.key) is None]
    no_lowering = [r.qualname for r in rows if _lowering(r.key) is None]
    no_simulator = [r.qualname for r in rows if r.implementation is None and not r.not_simulated]
    assert (no_typing, no_lowering, no_simulator) == ([], [], [])


def test_the_table_spans_every_family():
    names = {r.qualname for r in dt.device_table()}
    for name in ("math.sin", "cmath.sqrt", "cuda.popc", "cuda.atomic.cas", "cuda.shfl_sync", "cuda.fp16.hsin",
                 "cuda.bf16.hadd", "cuda.fp8.cvt_float_to_fp8", "cuda.libdevice.sinf", "cuda.threadIdx.x",
                 "cuda.cg.this_grid", "cuda.float32x4", "cuda.mma.ldmatrix"):
        assert name in names, name


def test_a_stub_without_lowering_is_reported():
    stub = device_api.DeviceFunction("cuda.table_test_only")

    @registry.call(stub, name="cuda.table_test_only")
    def _typer(site):  # pragma: no cover - never called
        return None

    try:
        row = dt.simulator_entry(stub)
        assert stub in dt.device_api_keys()
        assert _lowering(stub) is None and row.implementation is None and row.not_simulated is None
    finally:
        registry._calls.pop(stub)  # the registry is process-wide: leave it as it was


def test_math_lowerings_are_the_typed_names():
    from cudalite.core.typing.rules.mathfuncs import MATH_BINARY, MATH_PREDICATES, MATH_UNARY

    for name in MATH_UNARY + MATH_BINARY + MATH_PREDICATES:
        if not hasattr(math, name):  # math.cbrt and math.exp2 are Python 3.11+
            continue
        fn = getattr(math, name)
        assert registry.lookup_call(fn) is not None and lowerings.lookup_call(fn) is not None, name
