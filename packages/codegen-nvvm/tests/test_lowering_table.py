"""The lowering table is an argument of the ModuleBuilder: every lookup (calls,
methods, statement hooks) goes through the table it was given, and the typed
records typing recorded are what the lowerings read."""

from __future__ import annotations

import math

import pytest

from cudalite import types as T
from cudalite.core import ir as cir
from cudalite.core.errors import LoweringError
from cudalite.core.registry import registry
from cudalite.core.typing import ArraySpec, AtomicOp, CallKind, GridDims, TypingContext
from cudalite import nvvm as cuda
from cudalite.nvvm.lower import LowerOptions, Lowerings, ModuleBuilder, emit_kernel, lowerings


def _typed(fn, *argtypes):
    return TypingContext(registry).type_function(fn, argtypes)


def _lower(fn, argtypes, table, **options):
    tf = _typed(fn, *argtypes)
    mb = ModuleBuilder("m", LowerOptions(**options), lowerings=table)
    emit_kernel(mb, tf, "k")
    return mb.finalize("k").text


def _copy_of_default_table():
    """A fresh table holding every default entry (a test double: same entries, other object)."""
    t = Lowerings()
    for name in ("_calls", "_class_calls", "_values", "_attrs", "_methods", "_stmts"):
        getattr(t, name).update(getattr(lowerings, name))
    return t


def test_the_module_builder_needs_a_lowering_table():
    with pytest.raises(TypeError, match="lowerings"):
        ModuleBuilder("m", LowerOptions())


def test_calls_dispatch_through_the_given_table():
    def k(out, x):
        out[0] = math.sin(x)

    table = _copy_of_default_table()

    @table.call(math.sin)
    def _my_sin(lc, node, args, info):
        assert info.kind is CallKind.REGISTRY and info.key is math.sin and info.name == "math.sin"
        return lc.call_libdevice("my_sin_impl", args[0].type, args)

    text = _lower(k, (T.float64[::1], T.float64), table)
    assert 'call double @"my_sin_impl"(double' in text and "__nv_sin" not in text
    assert "__nv_sin" in _lower(k, (T.float64[::1], T.float64), lowerings)  # the default table: libdevice


def test_a_missing_entry_in_the_given_table_is_a_lowering_error():
    def k(out, x):
        out[0] = cuda.popc(x)

    table = _copy_of_default_table()
    del table._calls[cuda.popc]
    with pytest.raises(LoweringError, match=r"no lowering for cuda\.popc\(\)"):
        _lower(k, (T.int32[::1], T.int32), table)
    _lower(k, (T.int32[::1], T.int32), lowerings)  # the default table has it


def test_statement_hooks_are_keyed_by_the_ir_class():
    assert lowerings.lookup_stmt(cir.Raise) is not None and lowerings.lookup_stmt(cir.Assert) is not None

    def k(out, x):
        assert x > 0, "x must be positive"
        if x > 10:
            raise ValueError("too big")
        out[0] = x

    seen = []
    table = _copy_of_default_table()

    @table.stmt(cir.Raise, cir.Assert)
    def _hook(lc, stmt):
        seen.append(type(stmt).__name__)

    _lower(k, (T.float64[::1], T.float64), table, debug=True)
    assert seen == ["Assert", "Raise"]


def test_without_a_raise_hook_a_raise_returns_from_the_function():
    def k(out, x):
        if x > 10:
            raise ValueError("too big")
        out[0] = x

    table = _copy_of_default_table()
    table._stmts.clear()
    text = _lower(k, (T.float64[::1], T.float64), table, debug=True)
    assert "cudalite_exc" not in text  # nothing recorded: the default table's hook was not used
    assert "cudalite_exc" in _lower(k, (T.float64[::1], T.float64), lowerings, debug=True)


def test_typing_records_the_payloads_lowering_reads():
    def k(out):
        buf = cuda.shared.array((4, 8), T.float32)
        i = cuda.grid(1)
        cuda.atomic.max(out, 0, buf[0, i])

    tf = _typed(k, T.float32[::1])
    by_name = {info.name: info for info in tf.calls.values() if info.kind is CallKind.REGISTRY}
    assert by_name["cuda.shared.array"].payload == ArraySpec((4, 8), T.float32)
    assert by_name["cuda.grid"].payload == GridDims(1)
    assert by_name["cuda.atomic.max"].payload == AtomicOp("max")
    with pytest.raises(AttributeError):  # records are frozen
        by_name["cuda.grid"].payload.ndim = 2


class _FastExp:
    """A library's device function, typed and lowered by an extension (registry docstring)."""

    __module__ = "mylib"

    def __call__(self, x):
        raise RuntimeError("device only")


fast_exp = _FastExp()


def test_an_extension_registers_a_typer_with_a_payload_and_its_lowering():
    from dataclasses import dataclass

    from llvmlite import ir as llir

    from cudalite.core.typing import Resolved

    @dataclass(frozen=True, slots=True)
    class Scale:
        factor: float

    @registry.call(fast_exp, params=("x",), name="mylib.fast_exp")
    def _type_fast_exp(site):
        (x,) = site.args
        return Resolved(T.float32(T.float32), Scale(2.0)) if x == T.float32 else None

    @lowerings.call(fast_exp)
    def _lower_fast_exp(lc, node, args, info):
        x = lc.builder.fmul(args[0], llir.Constant(args[0].type, info.payload.factor))
        return lc.call_libdevice("__nv_expf", x.type, [x])

    def k(out, x):
        out[0] = fast_exp(x=x)

    text = _lower(k, (T.float32[::1], T.float32), lowerings)
    assert "fmul float" in text and "0x4000000000000000" in text and '@"__nv_expf"(float' in text
    with pytest.raises(Exception, match=r"no implementation of mylib\.fast_exp\(\) for argument types \(int32\)"):
        _typed(k, T.float32[::1], T.int32)
