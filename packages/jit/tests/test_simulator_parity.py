"""One semantics for the simulator (GPU-less): every device-API callable the typing
registry knows has a simulator implementation or a reason in the one table of what is
not simulated, and the implementations agree with references (NumPy / Python) on a
shared sample of inputs per family; launch configurations and array layouts are
checked and classified by the compiled runtime's own code.

Tolerances (documented in docs/simulator.md): float64 math ``rtol=1e-12``; float32
math ``rtol=2e-6`` after rounding to float32 (the simulator computes in float64 and the
kernel's float32 store rounds); float16 ``rtol=1e-3`` (one float16 ulp); integer and bit
functions exactly.  Where Python's ``math`` raises (``math.sqrt(-1.0)``, ``math.log(0.0)``,
``math.floor(inf)``) the GPU returns NaN or an infinity: the test accepts the raise only
where the reference is not finite, the one documented divergence."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from cudalite.core import device_api
from cudalite.core.libdevice_table import FUNCTIONS as LIBDEVICE
from cudalite.core.typing.rules.mathfuncs import MATH_BINARY, MATH_PREDICATES
from cudalite.core.typing.rules.mathfuncs import MATH_UNARY as _ALL_UNARY

from cudalite.cuda import simulator as sim
from cudalite.cuda._launch import config as launch_config
from cudalite.cuda.simulator import device_table as dt

# The math functions this Python has (math.cbrt and math.exp2 are 3.11+: on 3.10 the
# typing registry has no entry for them, as a kernel cannot name them)
MATH_UNARY = tuple(n for n in _ALL_UNARY if hasattr(math, n))

# -- the table ----------------------------------------------------------------------------


def _table():
    return {e.qualname: e for e in dt.device_table()}


def test_every_device_function_has_a_simulator_implementation_or_a_reason():
    gaps = [e.qualname for e in dt.device_table() if e.implementation is None and not e.not_simulated]
    assert gaps == []


def test_the_walk_covers_every_family():
    table = _table()
    for name in ("math.sin", "math.atan2", "math.isnan", "cmath.exp", "cuda.popc", "cuda.brev", "cuda.atomic.add",
                 "cuda.atomic.compare_and_swap", "cuda.shfl_sync", "cuda.ballot_sync", "cuda.fp16.hadd",
                 "cuda.fp16.hsin", "cuda.threadIdx.x", "cuda.syncthreads", "cuda.shared.array",
                 "cuda.libdevice.sinf", "cuda.float32x4", "cuda.mma.ldmatrix", "cuda.inline_ptx"):
        assert name in table, name
    assert table["cuda.mma.ldmatrix"].not_simulated and table["cuda.mma.ldmatrix"].implementation is None
    assert table["cuda.inline_ptx"].not_simulated == "inline PTX"
    for name in ("cuda.bf16.hadd", "cuda.fp8.cvt_float_to_fp8", "cuda.cg.this_cluster", "cuda.libdevice.rsqrtf"):
        assert table[name].implementation is None and table[name].not_simulated, name
    assert table["cuda.popc"].implementation is sim.popc
    assert table["cuda.atomic.add"].implementation is sim.atomic.add
    assert table["math.sin"].implementation is math.sin
    for n in MATH_UNARY + MATH_BINARY + MATH_PREDICATES:
        assert table[f"math.{n}"].implementation is getattr(math, n)


def test_a_device_function_without_an_implementation_is_reported():
    entry = dt.simulator_entry(device_api.DeviceFunction("cuda.no_such_intrinsic"))
    assert entry.implementation is None and entry.not_simulated is None
    entry = dt.simulator_entry(device_api.DeviceFunction("cuda.libdevice.no_such_function"))
    assert entry.implementation is None and entry.not_simulated is None


def _reach(qualname):
    """What a simulated kernel reaches for ``cuda.a.b``: ``sim.a.b``, attribute by attribute."""
    obj = sim
    for part in qualname.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def test_not_simulated_functions_raise_their_reason():
    # the one table is what the simulator does: a kernel reaching a listed function gets
    # NotImplementedError with the table's reason (at the call, or at the name for libdevice)
    listed = [e for e in dt.device_table() if e.not_simulated]
    assert len(listed) > 300
    for e in listed:
        with pytest.raises(NotImplementedError) as info:
            _reach(e.qualname)()
        message = str(info.value)
        assert message.startswith(f"{e.qualname}: {e.not_simulated} cannot be simulated"), message


def test_the_walk_is_the_registry_s_keys():
    from cudalite.core.registry import registry

    keys = {id(k) for k in dt.device_api_keys()}
    stubs = [k for k in registry.call_objects() + registry.value_objects()
             if isinstance(k, (device_api.DeviceFunction, device_api.DeviceValue))]
    assert stubs and all(id(k) in keys for k in stubs)
    assert id(math.isqrt) not in keys  # typed only as a builtin method (no math typing): not a device function


def test_keys_are_the_registry_objects():
    from cudalite.core.registry import registry

    for e in dt.device_table():
        assert registry.lookup_call(e.key) is not None or registry.lookup_value(e.key) is not None, e.qualname
    keys = {id(e.key) for e in dt.device_table()}
    assert id(device_api.popc) in keys and id(device_api.atomic.add) in keys and id(math.sin) in keys


# -- math on float32/float64 edge cases ---------------------------------------------------------

_SAMPLE = (0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, 3.75, -7.25, 1e-30, 1e30, 100.0, math.pi, math.inf, -math.inf,
           math.nan)
_SAMPLE_PAIRS = tuple((a, b) for a in (0.0, -0.0, 1.5, -2.5, 3.0, math.inf, math.nan)
                      for b in (0.0, 1.0, -2.0, 0.75, math.inf, math.nan))
# reference of each math function: NumPy's ufunc in the argument's dtype, or Python's
# own math in float64 where NumPy has none (erf, gamma, lgamma, IEEE remainder)
_NP = {"acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh, "atan": np.arctan,
       "atanh": np.arctanh, "cos": np.cos, "cosh": np.cosh, "sin": np.sin, "sinh": np.sinh, "tan": np.tan,
       "tanh": np.tanh, "exp": np.exp, "expm1": np.expm1, "exp2": np.exp2, "log10": np.log10, "log1p": np.log1p,
       "log2": np.log2, "sqrt": np.sqrt, "cbrt": np.cbrt, "fabs": np.fabs, "degrees": np.degrees,
       "radians": np.radians, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "atan2": np.arctan2,
       "copysign": np.copysign, "fmod": np.fmod, "hypot": np.hypot, "pow": np.power, "nextafter": np.nextafter,
       "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}
_RTOL = {np.float32: 2e-6, np.float64: 1e-12}
_DIVERGES = {n.split(".", 1)[1] for n in dt.KNOWN_DIVERGENCES}  # the simulator's documented divergences


def _python_reference(name, args):
    try:
        return getattr(math, name)(*(float(a) for a in args))
    except (ValueError, OverflowError):
        return math.nan


def _reference(name, dtype, args):
    with np.errstate(all="ignore"):
        if name in _NP:
            return _NP[name](*(dtype(a) for a in args))
        return dtype(_python_reference(name, args))


def _agrees(name, dtype, args):
    """Whether the simulator's ``math.<name>`` agrees with the reference on ``args``."""
    try:
        _check(name, dtype, args)
    except (AssertionError, TypeError):
        return False
    return True


def _check(name, dtype, args):
    impl = _table()[f"math.{name}"].implementation
    ref = _reference(name, dtype, args)
    try:
        got = impl(*(dtype(a) for a in args))
    except (ValueError, OverflowError):  # the general divergence: the GPU gives NaN/inf
        assert not np.isfinite(ref), f"math.{name}{args} raised in the simulator; reference {ref}"
        return
    if isinstance(ref, (bool, np.bool_)):
        assert bool(got) == bool(ref), (name, args)
        return
    got = dtype(got)  # the kernel's store into an array of the argument's type
    if np.isnan(ref):
        assert np.isnan(got), (name, args, got)
    else:
        np.testing.assert_allclose(got, ref, rtol=_RTOL[dtype], atol=0, err_msg=f"math.{name}{args}")
        if ref == 0:
            assert np.signbit(got) == np.signbit(ref), (name, args, got)


def _check_family(name, dtype, samples):
    if name in _DIVERGES:  # listed: it must still diverge somewhere, else the entry goes
        assert not all(_agrees(name, d, args) for d in (np.float32, np.float64) for args in samples), name
        return
    for args in samples:
        _check(name, dtype, args)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", MATH_UNARY + MATH_PREDICATES)
def test_math_unary_matches_reference(name, dtype):
    _check_family(name, dtype, [(x,) for x in _SAMPLE])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", MATH_BINARY)
def test_math_binary_matches_reference(name, dtype):
    _check_family(name, dtype, _SAMPLE_PAIRS + ((1.0, 2.0),))


def test_known_divergences_name_registry_functions():
    table = _table()
    assert all(name in table and reason for name, reason in dt.KNOWN_DIVERGENCES.items())


# -- integer and bit intrinsics ----------------------------------------------------------------

_INTS = [np.int32(v) for v in (0, 1, -1, 2, 7, 0x40000000, -(2**31), 2**31 - 1, 12345678)] + \
        [np.uint32(v) for v in (0, 1, 0x80000000, 0xFFFFFFFF)] + \
        [np.int64(v) for v in (0, 1, -1, 2**40, -(2**63), 2**63 - 1)] + [np.uint64(2**64 - 1), np.uint64(2**63)]


def _bits(x):
    width = x.dtype.itemsize * 8
    return [(int(x) >> i) & 1 for i in range(width)]  # least significant first


@pytest.mark.parametrize("x", _INTS, ids=lambda x: f"{x.dtype}({int(x)})")
def test_bit_intrinsics_match_reference(x):
    table = _table()
    bits = _bits(x)
    ones = [i for i, b in enumerate(bits) if b]
    assert table["cuda.popc"].implementation(x) == sum(bits)
    assert table["cuda.clz"].implementation(x) == (len(bits) - 1 - ones[-1] if ones else len(bits))
    assert table["cuda.ffs"].implementation(x) == (ones[0] + 1 if ones else 0)
    reversed_value = sum(b << (len(bits) - 1 - i) for i, b in enumerate(bits))
    assert int(table["cuda.brev"].implementation(x)) == reversed_value
    suffix = "" if len(bits) == 32 else "ll"
    assert table[f"cuda.libdevice.popc{suffix}"].implementation(x) == sum(bits)
    signed = reversed_value - (1 << len(bits)) if reversed_value >> (len(bits) - 1) else reversed_value
    assert int(table[f"cuda.libdevice.brev{suffix}"].implementation(x)) == signed


def test_fma_cbrt_selp_match_reference():
    table = _table()
    for a, b, c in ((1.5, 2.0, -3.0), (0.0, -1.0, 0.0), (1e10, 1e10, -1e20)):
        assert table["cuda.fma"].implementation(a, b, c) == pytest.approx(a * b + c, rel=1e-15)
    for x in (np.float32(27.0), np.float64(-8.0), 0.001):
        got = table["cuda.cbrt"].implementation(x)
        np.testing.assert_allclose(got, np.cbrt(x), rtol=_RTOL.get(type(x), 1e-12))
        assert type(got) is (type(x) if isinstance(x, np.floating) else float)
    assert table["cuda.selp"].implementation(True, 1, 2) == 1
    assert table["cuda.selp"].implementation(False, 1, 2) == 2


# -- float16 -------------------------------------------------------------------------------------

_HALVES = tuple(np.float16(v) for v in (0.0, -0.0, 0.5, 1.0, -1.5, 3.0, 65504.0, 6e-5, np.inf, np.nan))
_FP16_REF = {
    "hadd": np.add, "hsub": np.subtract, "hmul": np.multiply, "hdiv": np.divide, "hmax": np.fmax, "hmin": np.fmin,
    "heq": np.equal, "hne": np.not_equal, "hgt": np.greater, "hge": np.greater_equal, "hlt": np.less,
    "hle": np.less_equal, "hneg": np.negative, "habs": np.abs, "hsin": np.sin, "hcos": np.cos, "hlog": np.log,
    "hlog10": np.log10, "hlog2": np.log2, "hexp": np.exp, "hexp2": np.exp2, "hexp10": lambda a: np.power(10.0, a),
    "hsqrt": np.sqrt, "hrsqrt": lambda a: 1 / np.sqrt(a), "hceil": np.ceil, "hfloor": np.floor, "hrint": np.rint,
    "htrunc": np.trunc, "hrcp": lambda a: 1 / a, "htanh": np.tanh, "htanh_approx": np.tanh,
    "hfma": lambda a, b, c: a * b + c,
}


def test_fp16_reference_covers_every_fp16_function():
    assert set(_FP16_REF) == set(device_api.FP16_OPS + device_api.FP16_MATH_OPS)


@pytest.mark.parametrize("name", sorted(_FP16_REF))
def test_fp16_matches_reference(name):
    impl = _table()[f"cuda.fp16.{name}"].implementation
    nargs = {"hneg": 1, "habs": 1, "hfma": 3}.get(name, 2 if name in device_api.FP16_OPS else 1)
    samples = [(a,) * nargs for a in _HALVES] + ([(a, b, a)[:nargs] for a in _HALVES[:6] for b in _HALVES[:6]]
                                                  if nargs > 1 else [])
    for args in samples:
        with np.errstate(all="ignore"):
            ref = _FP16_REF[name](*(np.float32(a) for a in args))
            got = impl(*args)
        if isinstance(ref, (bool, np.bool_)):
            assert bool(got) == bool(ref), (name, args)
            continue
        ref = np.float16(ref)
        assert isinstance(got, np.float16), (name, type(got))
        if np.isnan(ref):
            assert np.isnan(got), (name, args, got)
        else:
            np.testing.assert_allclose(np.float32(got), np.float32(ref), rtol=1e-3, err_msg=f"{name}{args}")


# -- atomics (single-threaded: the read-modify-write and the returned old value) ------------------


_ATOMIC_CASES = {"add": (5, 3, 8), "sub": (5, 3, 2), "and_": (6, 3, 2), "or_": (6, 3, 7), "xor": (6, 3, 5),
                 "max": (5, 9, 9), "min": (5, 9, 5), "exch": (5, 9, 9), "inc": (3, 3, 0), "dec": (0, 3, 3)}


def test_atomics_match_reference():
    table = _table()
    for name, (old, val, new) in _ATOMIC_CASES.items():
        a = np.array([old], dtype=np.int32)
        assert table[f"cuda.atomic.{name}"].implementation(a, 0, val) == old, name
        assert a[0] == new, name
    a = np.array([1.0, np.nan])  # nanmax/nanmin ignore a NaN operand (fmax/fmin)
    assert np.isnan(table["cuda.atomic.nanmax"].implementation(a, 1, 2.0)) and a[1] == 2.0
    assert table["cuda.atomic.nanmin"].implementation(a, 0, np.nan) == 1.0 and a[0] == 1.0
    a = np.array([7], dtype=np.int32)
    assert table["cuda.atomic.cas"].implementation(a, 0, 7, 1) == 7 and a[0] == 1
    assert table["cuda.atomic.compare_and_swap"].implementation(a, 5, 2) == 1 and a[0] == 1


# -- launch configurations: the compiled runtime's checks, same exception and message ---------------

_BAD_CONFIGS = [(1,), (1, 2, 0, 0, 5), (0, 1), (1, 0), (1, 2048), (1, (32, 32, 2)), (1, (1, 1, 65)),
                (2**31, 1), (1, 1, 0, -1), (1, 1, 0, 1.5), ("a", 1), (1, (1, 2, 3, 4)), (1, 1, "stream")]


@pytest.mark.parametrize("config", _BAD_CONFIGS, ids=repr)
def test_bad_launch_configurations_fail_as_compiled(config):
    @sim.jit
    def k(a):
        pass

    with pytest.raises((ValueError, TypeError)) as expected:
        launch_config.parse_config(config)
    with pytest.raises(type(expected.value)) as got:
        k[config if len(config) > 1 else config[0]](np.zeros(1))
    assert str(got.value) == str(expected.value)


def test_good_launch_configuration_is_the_compiled_one():
    @sim.jit
    def k(a):
        a[cuda_grid()] = 1

    def cuda_grid():
        return sim.grid(1)

    configured = k[(2,), 3, 0, 16]
    assert configured.config == launch_config.make_config((2,), 3, 0, 16)
    a = np.zeros(6)
    configured(a)
    assert a.tolist() == [1.0] * 6


# -- layout: the one classifier ---------------------------------------------------------------------


def test_simulator_and_typeof_use_the_one_layout_classifier():
    from cudalite.core.layout import layout_of
    from cudalite.core.types import typeof_constant
    from cudalite.cuda._memory.layout import layout_of as jit_layout_of

    assert jit_layout_of is layout_of
    base = np.zeros((4, 6), dtype=np.float32)
    for ary in (base, base.T, base[:, ::2], base[:1, :], base[:, :1], np.zeros((0, 3)), np.zeros((3, 1))[::2]):
        want = layout_of(ary.shape, ary.strides, ary.itemsize)
        dev = sim.DeviceNDArray(ary)
        assert dev._layout == want
        assert (dev.is_c_contiguous(), dev.is_f_contiguous()) == (bool(ary.flags.c_contiguous),
                                                                   bool(ary.flags.f_contiguous))
        assert typeof_constant(ary).layout == want


# -- one comparison for every family below -----------------------------------------------------------


def _compare(label, got, ref):
    """``got`` (the simulator's result) against ``ref`` (NumPy/Python, in the result's
    type): tuples element by element, bools and integers exactly, floats after the
    kernel's store into the reference's dtype with its ``rtol`` (NaN for NaN, the sign of
    a zero exact), complex numbers part by part."""
    if isinstance(ref, tuple):
        assert isinstance(got, tuple) and len(got) == len(ref), (label, got, ref)
        for g, r in zip(got, ref):
            _compare(label, g, r)
        return
    if isinstance(ref, (bool, np.bool_)):
        assert bool(got) == bool(ref), (label, got, ref)
    elif isinstance(ref, (int, np.integer)):
        assert int(got) == int(ref), (label, got, ref)
    elif isinstance(ref, (complex, np.complexfloating)):
        _compare(label, (np.float64(np.real(got)), np.float64(np.imag(got))),
                 (np.float64(np.real(ref)), np.float64(np.imag(ref))))
    else:
        dtype = type(ref) if isinstance(ref, np.floating) else np.float64
        with np.errstate(over="ignore"):
            got = dtype(got)
        if np.isnan(ref):
            assert np.isnan(got), (label, got, ref)
        else:
            np.testing.assert_allclose(got, ref, rtol=_RTOL[dtype], atol=0, err_msg=label)
            assert ref != 0 or np.signbit(got) == np.signbit(ref), (label, got, ref)


def _sampled(label, impl, ref_fn, samples):
    for args in samples:
        with np.errstate(all="ignore"):
            ref = ref_fn(*args)
        try:
            got = impl(*args)
        except (ValueError, OverflowError):  # Python's math raises where the GPU gives NaN/inf
            assert not all(np.isfinite(np.asarray(ref, dtype=complex)).flat), f"{label}{args} raised; reference {ref}"
            continue
        _compare(f"{label}{args}", got, ref)


# -- the other math functions the registry types: log (one or two arguments), frexp, ldexp, modf, gcd --

_MATH_EXTRA = {
    "log": (np.log, [(x,) for x in _SAMPLE]),
    "frexp": (lambda x: (lambda m, e: (m, int(e)))(*np.frexp(x)), [(x,) for x in _SAMPLE if np.isfinite(x)]),
    "ldexp": (lambda x, n: np.ldexp(x, n), [(x, n) for x in _SAMPLE for n in (0, 3, -2, 60) if np.isfinite(x)]),
    "modf": (lambda x: tuple(np.modf(x)), [(x,) for x in _SAMPLE if np.isfinite(x)]),
    "gcd": (lambda a, b: int(np.gcd(a, b)), [(a, b) for a in (0, 12, -18, 7) for b in (0, 8, 27, -4)]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(_MATH_EXTRA))
def test_math_extras_match_reference(name, dtype):
    ref_fn, samples = _MATH_EXTRA[name]
    if name != "gcd":
        samples = [(dtype(args[0]), *args[1:]) for args in samples]
    _sampled(f"math.{name}", _table()[f"math.{name}"].implementation, ref_fn, samples)


def test_math_ldexp_divergence_is_still_there():
    # listed in KNOWN_DIVERGENCES: the entry goes once NumPy integer exponents work
    assert "math.ldexp" in dt.KNOWN_DIVERGENCES
    with pytest.raises(TypeError):
        _table()["math.ldexp"].implementation(1.5, np.int32(3))


def test_math_log_with_a_base():
    impl = _table()["math.log"].implementation
    _sampled("math.log", impl, lambda x, b: np.log(x) / np.log(b), [(8.0, 2.0), (1000.0, 10.0), (0.25, 0.5)])


# -- cmath on complex128 (NumPy's complex ufuncs as the reference) ----------------------------------------

_COMPLEX = (0.5 + 0.25j, -1.5 + 2j, 3 - 0.5j, -0.25 - 0.75j, 2 + 0j, 1j, 1e-3 + 1e3j, -7.5 + 1e-9j)
_NONFINITE = (complex(math.inf, 1.0), complex(1.0, math.nan), complex(-math.inf, math.inf))
_CMATH_REF = {
    "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "log10": np.log10, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "phase": np.angle,
    "polar": lambda z: (np.float64(np.abs(z)), np.float64(np.angle(z))),
    "rect": lambda r, phi: np.complex128(complex(r * np.cos(phi), r * np.sin(phi))),
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
}


@pytest.mark.parametrize("name", sorted(_CMATH_REF))
def test_cmath_matches_reference(name):
    impl = _table()[f"cmath.{name}"].implementation
    if name == "rect":
        samples = [(r, phi) for r in (0.0, 1.0, 2.5) for phi in (0.0, 0.5, -2.0, math.pi)]
    elif name.startswith("is"):
        samples = [(z,) for z in _COMPLEX + _NONFINITE]
    else:
        samples = [(np.complex128(z),) for z in _COMPLEX]
    _sampled(f"cmath.{name}", impl, _CMATH_REF[name], samples)


# -- cuda.libdevice: every simulated function on the sample of its signature's types -------------------

_LIBDEVICE_REF = {  # the reference of a libdevice stem whose math counterpart is not _NP's
    "log": np.log,
    "sincos": lambda x: (np.sin(x), np.cos(x)),
    "frexp": _MATH_EXTRA["frexp"][0], "modf": _MATH_EXTRA["modf"][0], "ldexp": _MATH_EXTRA["ldexp"][0],
    "remquo": lambda x, y: (type(x)(math.remainder(x, y)),
                            round(Fraction(float(x)) / Fraction(float(y)))),  # the exact quotient, rounded to even
    "abs": np.abs, "llabs": np.abs,
    "popc": lambda x: sum(_bits(x)),
    "clz": lambda x: len(_bits(x)) - (max(i for i, b in enumerate(_bits(x)) if b) + 1 if any(_bits(x)) else 0),
    "ffs": lambda x: (_bits(x).index(1) + 1) if 1 in _bits(x) else 0,
    "brev": lambda x: _signed_brev_ref(x),
}
_LD_TYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64}


def _signed_brev_ref(x):
    bits = _bits(x)
    r = sum(b << (len(bits) - 1 - i) for i, b in enumerate(bits))
    return r - (1 << len(bits)) if r >> (len(bits) - 1) else r


def _libdevice_stem(name):
    inputs = LIBDEVICE[name][1]
    stem = name[len("fast_"):] if name.startswith("fast_") else name
    if inputs[0] == "float32" and stem.endswith("f"):
        stem = stem[:-1]
    stem = {"popcll": "popc", "clzll": "clz", "ffsll": "ffs", "brevll": "brev"}.get(stem, stem)
    return stem


def _libdevice_reference(name):
    stem = _libdevice_stem(name)
    ref = _LIBDEVICE_REF.get(stem)
    if ref is not None:
        return ref
    dtype = _LD_TYPES[LIBDEVICE[name][1][0]]
    return lambda *args: _reference(stem, dtype, args)


def _libdevice_samples(name):
    _result, inputs, _outputs = LIBDEVICE[name]
    types = [_LD_TYPES[t] for t in inputs]
    if types[0] in (np.int32, np.int64):
        return [(types[0](x),) for x in _INTS if x.dtype.itemsize == np.dtype(types[0]).itemsize]
    if _libdevice_stem(name) == "ldexp":
        return [(types[0](x), np.int32(n)) for x, n in _MATH_EXTRA["ldexp"][1]]
    if _libdevice_stem(name) == "remquo":
        return [(types[0](a), types[0](b)) for a, b in _SAMPLE_PAIRS + ((7.0, 3.0), (-7.5, 2.0), (10.0, 4.0))
                if np.isfinite(a) and np.isfinite(b) and b != 0]
    if len(types) == 1:
        return [(types[0](x),) for x in _SAMPLE]
    return [(types[0](a), types[1](b)) for a, b in _SAMPLE_PAIRS + ((1.0, 2.0),)]


_SIMULATED_LIBDEVICE = sorted(e.qualname.rsplit(".", 1)[1] for e in dt.device_table()
                              if e.qualname.startswith("cuda.libdevice.") and e.implementation is not None)


@pytest.mark.parametrize("name", _SIMULATED_LIBDEVICE)
def test_libdevice_matches_reference(name):
    result, _inputs, outputs = LIBDEVICE[name]
    impl = _table()[f"cuda.libdevice.{name}"].implementation
    for args in _libdevice_samples(name):
        try:
            got = impl(*args)
        except (ValueError, OverflowError):  # compared below
            continue
        # numba's shape: the result, then the output parameters; a void result gives only the outputs
        expected_len = (result != "void") + len(outputs)
        assert (isinstance(got, tuple) and len(got) == expected_len) if expected_len > 1 else \
            not isinstance(got, tuple), (name, got)
    _sampled(f"cuda.libdevice.{name}", impl, _libdevice_reference(name), _libdevice_samples(name))


# -- thread state, barriers, warps and memory: simulated launches against NumPy references ---------------

_FULL = 0xFFFFFFFF


def _index_kernel(out):
    t = sim.threadIdx.x + sim.threadIdx.y * sim.blockDim.x + sim.threadIdx.z * sim.blockDim.x * sim.blockDim.y
    b = sim.blockIdx.x + sim.blockIdx.y * sim.gridDim.x + sim.blockIdx.z * sim.gridDim.x * sim.gridDim.y
    row = out[b * sim.blockDim.x * sim.blockDim.y * sim.blockDim.z + t]
    row[0], row[1], row[2] = sim.threadIdx.x, sim.threadIdx.y, sim.threadIdx.z
    row[3], row[4], row[5] = sim.blockIdx.x, sim.blockIdx.y, sim.blockIdx.z
    row[6], row[7], row[8] = sim.blockDim.x, sim.blockDim.y, sim.blockDim.z
    row[9], row[10], row[11] = sim.gridDim.x, sim.gridDim.y, sim.gridDim.z
    row[12], row[13], row[14] = sim.grid(3)
    row[15], row[16], row[17] = sim.gridsize(3)
    row[18], row[19] = sim.grid(1), sim.gridsize(1)
    row[20], row[21] = sim.laneid, sim.warpsize


def test_thread_indexing_matches_reference():
    grid, block = (2, 3, 1), (4, 2, 5)
    out = np.zeros((6 * 40, 22), dtype=np.int64)
    sim.jit(_index_kernel)[grid, block](out)
    expect = []
    for bz, by, bx in np.ndindex(*grid[::-1]):
        for tz, ty, tx in np.ndindex(*block[::-1]):
            g = (tx + bx * block[0], ty + by * block[1], tz + bz * block[2])
            size = tuple(b * n for b, n in zip(block, grid))
            linear = tx + ty * block[0] + tz * block[0] * block[1]
            expect.append([tx, ty, tz, bx, by, bz, *block, *grid, *g, *size, g[0], size[0], linear % 32, 32])
    np.testing.assert_array_equal(out, expect)


def _warp_kernel(a, out):
    i = sim.threadIdx.x
    v = a[i]
    out[i, 0] = sim.shfl_sync(_FULL, v, 5)
    out[i, 1] = sim.shfl_up_sync(_FULL, v, 3)
    out[i, 2] = sim.shfl_down_sync(_FULL, v, 3)
    out[i, 3] = sim.shfl_xor_sync(_FULL, v, 6)
    out[i, 4] = sim.all_sync(_FULL, v >= 0)
    out[i, 5] = sim.all_sync(_FULL, v > 3)
    out[i, 6] = sim.any_sync(_FULL, v == 10)
    out[i, 7] = sim.eq_sync(_FULL, v % 2 == 0)
    out[i, 8] = sim.ballot_sync(_FULL, v % 2 == 1)
    out[i, 9] = sim.match_any_sync(_FULL, v % 3)
    out[i, 10], out[i, 11] = sim.match_all_sync(_FULL, v // 100)
    out[i, 12] = sim.activemask()
    out[i, 13] = sim.lanemask_lt()
    sim.syncwarp(_FULL)


def test_warp_functions_match_reference():
    a = (np.arange(64) * 7 % 11).astype(np.int64)
    out = np.zeros((64, 14), dtype=np.int64)
    sim.jit(_warp_kernel)[1, 64](a, out)
    for w in range(2):
        lanes = a[w * 32:(w + 1) * 32]
        for lane in range(32):
            v = lanes[lane]
            expect = [
                lanes[5], lanes[lane - 3] if lane >= 3 else v, lanes[lane + 3] if lane + 3 < 32 else v,
                lanes[lane ^ 6], int((lanes >= 0).all()), int((lanes > 3).all()), int((lanes == 10).any()),
                int(len(set(lanes % 2 == 0)) == 1), sum(1 << j for j in range(32) if lanes[j] % 2 == 1),
                sum(1 << j for j in range(32) if lanes[j] % 3 == v % 3), _FULL, 1, _FULL, (1 << lane) - 1,
            ]
            assert out[w * 32 + lane].tolist() == expect, (w, lane)


def _block_kernel(a, consts, out, counts):
    i = sim.threadIdx.x
    n = sim.blockDim.x
    s = sim.shared.array(64, np.int64)
    loc = sim.local.array(2, np.float64)
    c = sim.const.array_like(consts)
    s[i] = a[i]
    sim.threadfence_block()
    sim.syncthreads()
    loc[0] = s[n - 1 - i] + c[i % 4]
    sim.threadfence()
    sim.nanosleep(10)
    out[i] = loc[0]
    counts[0, i] = sim.syncthreads_count(a[i] % 3 == 0)
    counts[1, i] = sim.syncthreads_and(a[i] >= 0)
    counts[2, i] = sim.syncthreads_or(a[i] > 1000)
    sim.threadfence_system()
    sim.cg.this_grid().sync()


def test_block_functions_match_reference():
    a = (np.arange(48) * 5 % 13).astype(np.int64)
    consts = np.array([0.5, 1.5, 2.5, 3.5])
    out, counts = np.zeros(48), np.zeros((3, 48), dtype=np.int64)
    sim.jit(_block_kernel)[1, 48](a, consts, out, counts)
    np.testing.assert_array_equal(out, a[::-1] + consts[np.arange(48) % 4])
    assert counts[0].tolist() == [int((a % 3 == 0).sum())] * 48
    assert counts[1].tolist() == [1] * 48 and counts[2].tolist() == [0] * 48


def test_vectors_cache_operators_and_unroll_match_reference():
    from cudalite.core.types import vector_types

    table = _table()
    for name, vt in vector_types.items():
        values = list(range(1, vt.count + 1))
        v = table[f"cuda.{name}"].implementation(*values)
        assert [getattr(v, c) for c in "xyzw"[:vt.count]] == values, name
        assert all(type(getattr(v, c)) is np.dtype(str(vt.base_type)).type for c in "xyzw"[:vt.count]), name
    a = np.arange(5, dtype=np.float32)
    for name in device_api.CACHE_LOADS:
        assert table[f"cuda.{name}"].implementation(a, 3) == a[3], name
    for k, name in enumerate(device_api.CACHE_STORES):
        table[f"cuda.{name}"].implementation(a, k, 10.0 + k)
    assert a.tolist() == [10.0, 11.0, 12.0, 13.0, 4.0]
    assert table["cuda.literal_unroll"].implementation((1, 2.5, "x")) == (1, 2.5, "x")


# -- coverage: every simulated device function is compared on one of the samples above -------------------

_LAUNCHED = {  # qualname -> the kernel whose launch compares it (the thread-state families)
    **{f"cuda.{d}.{c}": "_index_kernel" for d in ("threadIdx", "blockIdx", "blockDim", "gridDim") for c in "xyz"},
    **dict.fromkeys(("cuda.grid", "cuda.gridsize", "cuda.laneid", "cuda.warpsize"), "_index_kernel"),
    **dict.fromkeys(("cuda.shfl_sync", "cuda.shfl_up_sync", "cuda.shfl_down_sync", "cuda.shfl_xor_sync",
                     "cuda.all_sync", "cuda.any_sync", "cuda.eq_sync", "cuda.ballot_sync", "cuda.match_any_sync",
                     "cuda.match_all_sync", "cuda.activemask", "cuda.lanemask_lt", "cuda.syncwarp"), "_warp_kernel"),
    **dict.fromkeys(("cuda.shared.array", "cuda.local.array", "cuda.const.array_like", "cuda.syncthreads",
                     "cuda.syncthreads_count", "cuda.syncthreads_and", "cuda.syncthreads_or", "cuda.threadfence",
                     "cuda.threadfence_block", "cuda.threadfence_system", "cuda.nanosleep", "cuda.cg.this_grid"),
                    "_block_kernel"),
}


def _compared() -> set:
    from cudalite.core.types import vector_types

    names = {f"math.{n}" for n in MATH_UNARY + MATH_BINARY + MATH_PREDICATES + tuple(_MATH_EXTRA)}
    names |= {f"cmath.{n}" for n in _CMATH_REF}
    names |= {f"cuda.{n}" for n in ("popc", "clz", "ffs", "brev", "fma", "cbrt", "selp", "literal_unroll")}
    names |= {f"cuda.{n}" for n in (*vector_types, *device_api.CACHE_LOADS, *device_api.CACHE_STORES)}
    names |= {f"cuda.fp16.{n}" for n in _FP16_REF}
    names |= {f"cuda.atomic.{n}" for n in _ATOMIC_CASES} | {"cuda.atomic.nanmax", "cuda.atomic.nanmin",
                                                             "cuda.atomic.cas", "cuda.atomic.compare_and_swap"}
    names |= {f"cuda.libdevice.{n}" for n in _SIMULATED_LIBDEVICE}
    return names | set(_LAUNCHED)


def test_every_simulated_device_function_is_compared_on_a_sample():
    simulated = {e.qualname for e in dt.device_table() if e.implementation is not None}
    assert sorted(simulated - _compared()) == []
    assert sorted(_compared() - simulated) == []  # and no sample for a function that is gone
