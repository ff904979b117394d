"""The kernel ABI value (cudalite.core.abi): slots per argument kind, exact struct
formats, the JSON payload round trip and its strict rejection of malformed data."""

from __future__ import annotations

import copy
import json

import pytest

from cudalite.core.abi import (
    ABI_VERSION, ArgABI, KernelABI, ParamSlot, Role, array_values, kernel_abi, passes_strides,
)
from cudalite.core.errors import CompilerError
from cudalite.core.types import (
    Array, CPointer, Record, Tuple, UniTuple, boolean, complex64, complex128, float16, float32, float64,
    int8, int16, int32, int64, parse_signature, uint8, uint16, uint32, uint64,
)

REC = Record([("x", float32, 0), ("y", int32, 4)], 8)


def rows(t):
    """(role, path, dim, llvm_type, code) of each slot of a one-argument signature."""
    return [(s.role.value, s.path, s.dim, s.llvm_type, s.code) for s in kernel_abi((t,)).slots]


@pytest.mark.parametrize("t, llvm, code", [
    (int8, "i8", "b"), (uint8, "i8", "B"), (int16, "i16", "h"), (uint16, "i16", "H"),
    (int32, "i32", "i"), (uint32, "i32", "I"), (int64, "i64", "q"), (uint64, "i64", "Q"),
    (float16, "half", "e"), (float32, "float", "f"), (float64, "double", "d"),
])
def test_numbers_are_one_slot(t, llvm, code):
    assert rows(t) == [("scalar", (), None, llvm, code)]


def test_bool_is_one_byte():
    assert rows(boolean) == [("bool", (), None, "i8", "B")]


def test_complex_is_real_then_imaginary():
    assert rows(complex64) == [("real", (), None, "float", "f"), ("imag", (), None, "float", "f")]
    assert rows(complex128) == [("real", (), None, "double", "d"), ("imag", (), None, "double", "d")]


@pytest.mark.parametrize("ndim", [1, 2, 3, 5])
@pytest.mark.parametrize("layout", ["C", "F", "A"])
def test_arrays_pass_data_extents_and_only_A_strides(ndim, layout):
    t = Array(float32, ndim, layout)
    got = rows(t)
    expect = [("data", (), None, "float*", "Q")] + [("shape", (), d, "i64", "q") for d in range(ndim)]
    if layout == "A":
        expect += [("stride", (), d, "i64", "q") for d in range(ndim)]
    assert got == expect
    assert passes_strides(layout) == (layout == "A")


@pytest.mark.parametrize("dtype, pointee", [
    (boolean, "i8"), (float16, "half"), (float64, "double"), (uint16, "i16"),
    (complex64, "{float, float}"), (complex128, "{double, double}"), (REC, "[8 x i8]"),
])
def test_array_data_pointer_types(dtype, pointee):
    assert rows(Array(dtype, 1, "C"))[0] == ("data", (), None, pointee + "*", "Q")
    assert rows(Array(dtype, 2, "A", readonly=True))[0] == ("data", (), None, pointee + "*", "Q")


def test_pointers_and_records_are_one_pointer():
    assert rows(CPointer(float32)) == [("pointer", (), None, "float*", "Q")]
    assert rows(CPointer(float32, 1)) == [("pointer", (), None, "float addrspace(1)*", "Q")]
    assert rows(CPointer(boolean)) == [("pointer", (), None, "i8*", "Q")]
    assert rows(CPointer(CPointer(int32))) == [("pointer", (), None, "i32**", "Q")]
    assert rows(CPointer(REC)) == [("pointer", (), None, "[8 x i8]*", "Q")]
    assert rows(CPointer(UniTuple(boolean, 2))) == [("pointer", (), None, "{i1, i1}*", "Q")]
    assert rows(REC) == [("pointer", (), None, "i8*", "Q")]


def test_nested_tuples_flatten_in_order_with_paths():
    t = Tuple((int32, Tuple((complex64, Array(float64, 2, "A"))), boolean, Tuple(())))
    assert rows(t) == [
        ("scalar", (0,), None, "i32", "i"),
        ("real", (1, 0), None, "float", "f"), ("imag", (1, 0), None, "float", "f"),
        ("data", (1, 1), None, "double*", "Q"),
        ("shape", (1, 1), 0, "i64", "q"), ("shape", (1, 1), 1, "i64", "q"),
        ("stride", (1, 1), 0, "i64", "q"), ("stride", (1, 1), 1, "i64", "q"),
        ("bool", (2,), None, "i8", "B"),
    ]
    arg = kernel_abi((t,)).args[0]
    assert isinstance(arg, ArgABI) and arg.path == () and arg.count == 9
    assert [a.path for a in arg.items] == [(0,), (1,), (2,), (3,)]
    assert [a.count for a in arg.items] == [1, 7, 1, 0]
    assert [a.path for a in arg.items[1].items] == [(1, 0), (1, 1)]
    assert arg.items[1].items[1].type == Array(float64, 2, "A")


def test_param_format_exact_strings():
    sig = parse_signature("void(float32[::1], float64[:, :], float32)")[1]
    assert kernel_abi(sig).param_format == "QqQqqqqf"  # docs/abi.md's example
    mixed = (float32[::1], float64[:, :], float32, complex64, UniTuple(int32, 2), boolean, uint16,
             Array(int8, 3, "F"), CPointer(float64), REC, float16, complex128, uint64)
    assert kernel_abi(mixed).param_format == "Qq" + "Qqqqq" + "f" + "ff" + "ii" + "B" + "H" + "Qqqq" + "Q" + "Q" \
        + "e" + "dd" + "Q"
    assert kernel_abi(()).param_format == "" and kernel_abi(()).slots == ()


def test_per_argument_views():
    abi = kernel_abi((float32[::1], Tuple((int32, float64[:, :])), complex64))
    assert [abi.n_values(i) for i in range(3)] == [2, 6, 2]  # Tuple(int32, 2-d 'A'): 1 + 1 + 2 + 2
    assert [abi.slot_range(i) for i in range(3)] == [range(0, 2), range(2, 8), range(8, 10)]
    for i in range(3):
        assert abi.arg_slots(i) == abi.slots[abi.slot_range(i).start:abi.slot_range(i).stop]
        assert all(s.arg == i for s in abi.arg_slots(i))
    assert abi.llvm_types == tuple(s.llvm_type for s in abi.slots)


@pytest.mark.parametrize("ndim", [1, 2, 4])
@pytest.mark.parametrize("layout", ["C", "F", "A"])
def test_array_values_follow_the_slots(ndim, layout):
    ptr, shape, strides = 0x1000, tuple(range(10, 10 + ndim)), tuple(range(100, 100 + ndim))
    slots = kernel_abi((Array(float32, ndim, layout),)).slots
    pick = {Role.DATA: lambda s: ptr, Role.SHAPE: lambda s: shape[s.dim], Role.STRIDE: lambda s: strides[s.dim]}
    assert array_values(ptr, shape, strides, layout) == tuple(pick[s.role](s) for s in slots)


def test_unsupported_types_raise():
    from cudalite.core.types import SliceType, none

    for bad in (SliceType((True, True, False)), none, Tuple((int32, none))):
        with pytest.raises(CompilerError, match="cannot be passed as an argument of an entry point"):
            kernel_abi((float32, bad))


def test_value_semantics():
    sig = (float32[:, ::1], Tuple((int32, complex64)), REC)
    a, b = kernel_abi(sig), kernel_abi(list(sig))
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != kernel_abi((float32[:, :], Tuple((int32, complex64)), REC))
    with pytest.raises(AttributeError):
        a.slots = ()
    with pytest.raises(AttributeError):
        a.slots[0].code = "d"
    assert isinstance(a.slots[0], ParamSlot) and a.slots[0].role is Role.DATA


def test_construction_checks_the_rule():
    abi = kernel_abi((float32, int32))
    assert KernelABI(abi.argtypes, abi.slots) == abi
    with pytest.raises(ValueError, match="do not follow the kernel ABI"):
        KernelABI((float32, int32), abi.slots[:1])
    with pytest.raises(ValueError, match="do not follow the kernel ABI"):
        KernelABI((float64, int32), abi.slots)


# -- payload ---------------------------------------------------------------------------------
SIGS = [
    (),
    (float32[::1], float64[:, :], float32),
    (boolean, complex128, Tuple((Tuple((int8,)), Array(complex64, 3, "F"))), CPointer(float32, 3), REC, float16),
]


@pytest.mark.parametrize("sig", SIGS)
def test_payload_round_trip_through_json(sig):
    abi = kernel_abi(sig)
    data = abi.to_payload()
    assert data["version"] == ABI_VERSION == 1
    text = json.dumps(data)
    back = KernelABI.from_payload(json.loads(text), sig)
    assert back == abi and back.param_format == abi.param_format
    assert [a.count for a in back.args] == [a.count for a in abi.args]


def test_payload_shape_is_plain_data():
    data = kernel_abi((Tuple((complex64,)), float32[:, :])).to_payload()
    assert data == {"version": 1, "slots": [
        ["real", 0, [0], None, "float", "f"], ["imag", 0, [0], None, "float", "f"],
        ["data", 1, [], None, "float*", "Q"], ["shape", 1, [], 0, "i64", "q"], ["shape", 1, [], 1, "i64", "q"],
        ["stride", 1, [], 0, "i64", "q"], ["stride", 1, [], 1, "i64", "q"],
    ]}


def _good():
    return kernel_abi((Tuple((int32,)), float32[:, :])).to_payload()


def _mutate(fn):
    data = copy.deepcopy(_good())
    fn(data)
    return data


BAD = {
    "not a dict": lambda d: None,  # replaced below
    "extra key": lambda d: d.update(extra=1),
    "missing key": lambda d: d.pop("slots"),
    "version 2": lambda d: d.update(version=2),
    "version bool": lambda d: d.update(version=True),
    "version str": lambda d: d.update(version="1"),
    "slots not a list": lambda d: d.update(slots="Qq"),
    "short row": lambda d: d["slots"][0].pop(),
    "row not a list": lambda d: d["slots"].__setitem__(0, "scalar"),
    "unknown role": lambda d: d["slots"][0].__setitem__(0, "float"),
    "role not str": lambda d: d["slots"][0].__setitem__(0, 3),
    "negative arg": lambda d: d["slots"][0].__setitem__(1, -1),
    "bool arg": lambda d: d["slots"][1].__setitem__(1, True),
    "path of str": lambda d: d["slots"][0].__setitem__(2, ["0"]),
    "path not list": lambda d: d["slots"][0].__setitem__(2, 0),
    "float dim": lambda d: d["slots"][2].__setitem__(3, 0.0),
    "llvm type not str": lambda d: d["slots"][0].__setitem__(4, None),
    "code not str": lambda d: d["slots"][0].__setitem__(5, 105),
    "wrong llvm type": lambda d: d["slots"][0].__setitem__(4, "i64"),
    "wrong code": lambda d: d["slots"][0].__setitem__(5, "q"),
    "wrong dim": lambda d: d["slots"][2].__setitem__(3, 1),
    "wrong role": lambda d: d["slots"][5].__setitem__(0, "shape"),
    "wrong path": lambda d: d["slots"][0].__setitem__(2, [1]),
    "missing slot": lambda d: d["slots"].pop(),
    "extra slot": lambda d: d["slots"].append(["stride", 1, [], 2, "i64", "q"]),
    "swapped slots": lambda d: d["slots"].insert(2, d["slots"].pop(3)),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_malformed_payloads_are_rejected(name):
    data = [1, 2] if name == "not a dict" else _mutate(BAD[name])
    with pytest.raises(ValueError):
        KernelABI.from_payload(data, (Tuple((int32,)), float32[:, :]))


def test_payload_of_other_argtypes_is_rejected():
    data = kernel_abi((float32, float32[::1])).to_payload()
    with pytest.raises(ValueError, match="do not follow the kernel ABI"):
        KernelABI.from_payload(data, (float64, float32[::1]))
    with pytest.raises(ValueError, match="do not follow the kernel ABI"):
        KernelABI.from_payload(data, (float32, float32[:]))
    assert KernelABI.from_payload(data, [float32, float32[::1]]) == kernel_abi((float32, float32[::1]))
