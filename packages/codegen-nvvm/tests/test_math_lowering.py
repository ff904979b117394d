"""math, cmath and builtins lowering (GPU-less): every function compiles to PTX
that nvJitLink assembles for sm_90, with numba's result types, and calls the
libdevice function of the right precision."""

from __future__ import annotations

import importlib.util
import itertools
import math

import pytest

from cudalite.core.errors import TypingError
from cudalite.nvvm import compile_stages

MATH_UNARY = [n for n in ("acos acosh asin asinh atan atanh cos cosh sin sinh tan tanh exp expm1 exp2 "
                           "log log10 log1p log2 sqrt cbrt erf erfc gamma lgamma fabs degrees radians").split()
              if hasattr(math, n)]  # math.exp2 and math.cbrt are Python 3.11+
MATH_BINARY = "atan2 copysign fmod hypot pow remainder nextafter".split()
LIBDEVICE = {"gamma": "tgamma"}
CMATH_UNARY = ("sqrt exp log log10 sin cos tan sinh cosh tanh asin acos atan asinh acosh "
               "atanh").split()

_counter = itertools.count()


@pytest.fixture
def make(tmp_path):
    """``make("math.sin(a0)", 1)`` -> a device function ``f(a0)`` returning the expression,
    defined in a real file so its source can be read."""

    def build(expr, nargs, body=None):
        params = ", ".join(f"a{i}" for i in range(nargs))
        src = "import math\nimport cmath\n\n\ndef f({}):\n{}".format(
            params, body if body is not None else f"    return {expr}\n")
        path = tmp_path / f"gen_{next(_counter)}.py"
        path.write_text(src)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod.f

    return build


def _sig(*args):
    return "(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"


def _nvvm_ir(fn, sig):
    return compile_stages(fn, sig, cc=(9, 0), output="ptx")["nvvm-ir"].data


# -- math: result types (numba's) and valid PTX ----------------------------------------------
@pytest.mark.parametrize("name", MATH_UNARY)
@pytest.mark.parametrize("arg,expected", [("float32", "float32"), ("float64", "float64"),
                                          ("int32", "float64"), ("boolean", "float64")])
def test_math_unary(make, compile_and_assemble, name, arg, expected):
    _, resty = compile_and_assemble(make(f"math.{name}(a0)", 1), _sig(arg), device=True)
    assert str(resty) == expected


@pytest.mark.parametrize("name", [n for n in MATH_UNARY if n not in ("degrees", "radians", "log")])
def test_math_unary_calls_libdevice_of_matching_precision(make, name):
    stem = LIBDEVICE.get(name, name)
    ir32 = _nvvm_ir(make(f"math.{name}(a0)", 1), "(float32,)")
    ir64 = _nvvm_ir(make(f"math.{name}(a0)", 1), "(float64,)")
    assert f'@"__nv_{stem}f"(float' in ir32 and f'@"__nv_{stem}"(' not in ir32
    assert f'@"__nv_{stem}"(double' in ir64 and f'@"__nv_{stem}f"(' not in ir64


@pytest.mark.parametrize("name", ["sin", "exp", "sqrt", "fabs", "gamma", "degrees", "log"])
def test_math_float16_goes_through_float32(make, compile_and_assemble, name):
    fn = make(f"math.{name}(a0)", 1)
    _, resty = compile_and_assemble(fn, "(float16,)", device=True)
    assert str(resty) == "float16"
    ir = _nvvm_ir(fn, "(float16,)")
    assert "fpext half" in ir and "fptrunc float" in ir


@pytest.mark.parametrize("name", MATH_BINARY + ["log"])
@pytest.mark.parametrize("args,expected", [
    (("float32", "float32"), "float32"), (("float64", "float64"), "float64"),
    (("float32", "float64"), "float64"), (("int64", "int32"), "float64"),
    (("int32", "float32"), "float64"),
])
def test_math_binary(make, compile_and_assemble, name, args, expected):
    _, resty = compile_and_assemble(make(f"math.{name}(a0, a1)", 2), _sig(*args), device=True)
    assert str(resty) == expected


def test_math_log_with_base_divides_two_logs(make):
    ir = _nvvm_ir(make("math.log(a0, a1)", 2), "(float32, float32)")
    assert ir.count('call float @"__nv_logf"') == 2 and "fdiv float" in ir


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc"])
@pytest.mark.parametrize("arg,expected", [
    ("float32", "float32"), ("float64", "float64"), ("float16", "float16"), ("int32", "float64"),
    ("int64", "float64"), ("uint64", "float64"), ("boolean", "float64"),
])
def test_math_floor_ceil_trunc_return_a_float_as_numba_cuda(make, compile_and_assemble, name, arg,
                                                           expected):
    """numba-cuda types math.floor/ceil/trunc like math.sin (Math_unary_with_fp16): a float,
    so ``float(math.ceil(-0.5))`` is -0.0 there (issue 11's difffuzz)."""
    fn = make(f"math.{name}(a0)", 1)
    _, resty = compile_and_assemble(fn, _sig(arg), device=True)
    assert str(resty) == expected
    ir = _nvvm_ir(fn, _sig(arg))
    assert f'@"__nv_{name}' in ir and "fptosi" not in ir


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
@pytest.mark.parametrize("arg", ["float16", "float32", "float64", "int32", "uint8", "boolean"])
def test_math_predicates(make, compile_and_assemble, name, arg):
    fn = make(f"math.{name}(a0)", 1)
    _, resty = compile_and_assemble(fn, _sig(arg), device=True)
    assert str(resty) == "bool"
    if not arg.startswith("float"):
        expected = int(name == "isfinite")
        body = _nvvm_ir(fn, _sig(arg)).split("body:")[1].split("dead:")[0]
        assert f"ret i1 {expected}" in body


@pytest.mark.parametrize("arg,expected", [("float32", "float32"), ("float64", "float64"),
                                          ("int64", "float64"), ("float16", "float16")])
def test_math_ldexp(make, compile_and_assemble, arg, expected):
    fn = make("math.ldexp(a0, a1)", 2)
    _, resty = compile_and_assemble(fn, _sig(arg, "int64"), device=True)
    assert str(resty) == expected


@pytest.mark.parametrize("arg,expected", [("float32", "Tuple(float32, int32)"),
                                          ("float64", "Tuple(float64, int32)"),
                                          ("int32", "Tuple(float64, int32)")])
def test_math_frexp(make, compile_and_assemble, arg, expected):
    fn = make("math.frexp(a0)", 1)
    _, resty = compile_and_assemble(fn, _sig(arg), device=True)
    assert str(resty) == expected
    assert '@"__nv_frexp' in _nvvm_ir(fn, _sig(arg))


@pytest.mark.parametrize("arg,expected", [("float32", "UniTuple(float32 x 2)"),
                                          ("float64", "UniTuple(float64 x 2)"),
                                          ("int16", "UniTuple(float64 x 2)")])
def test_math_modf(make, compile_and_assemble, arg, expected):
    _, resty = compile_and_assemble(make("math.modf(a0)", 1), _sig(arg), device=True)
    assert str(resty) == expected


@pytest.mark.parametrize("args,expected", [(("int32", "int32"), "int64"),
                                           (("int64", "int64"), "int64"),
                                           (("uint64", "uint64"), "uint64"),
                                           (("int32", "int64", "int16"), "int64")])
def test_math_gcd(make, compile_and_assemble, args, expected):
    fn = make("math.gcd(" + ", ".join(f"a{i}" for i in range(len(args))) + ")", len(args))
    _, resty = compile_and_assemble(fn, _sig(*args), device=True)
    assert str(resty) == expected


def test_math_on_int_matches_numba_float64(make, compile_and_assemble):
    _, resty = compile_and_assemble(make("math.sin(a0)", 1), "(int32,)", device=True)
    assert str(resty) == "float64"
    assert '@"__nv_sin"(double' in _nvvm_ir(make("math.sin(a0)", 1), "(int32,)")


# -- math: typing errors ---------------------------------------------------------------------
def test_math_sin_of_tuple_is_a_typing_error(make):
    fn = make(None, 1, body="    y = a0 + 1\n    return math.sin((y, y))\n")
    with pytest.raises(TypingError) as ei:
        _nvvm_ir(fn, "(float64,)")
    msg = str(ei.value)
    assert "math.sin" in msg and "UniTuple(float64 x 2)" in msg
    assert "return math.sin((y, y))" in msg and "gen_" in msg and ":7:12" in msg  # line:col
    assert "^" in msg


@pytest.mark.parametrize("expr,nargs,sig", [
    ("math.gcd(a0, a1)", 2, "(float32, int32)"),
    ("math.floor(a0)", 1, "(complex128,)"),
    ("math.ldexp(a0, a1)", 2, "(float32, float32)"),
    ("math.sin(a0, a0)", 1, "(float32,)"),
    ("cmath.exp((a0, a0))", 1, "(complex128,)"),
])
def test_math_typing_errors(make, expr, nargs, sig):
    with pytest.raises(TypingError) as ei:
        _nvvm_ir(make(expr, nargs), sig)
    assert f"return {expr}" in str(ei.value)


# -- cmath -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", CMATH_UNARY)
@pytest.mark.parametrize("arg,expected", [("complex64", "complex64"), ("complex128", "complex128"),
                                          ("float64", "complex128"), ("float32", "complex64")])
def test_cmath_unary(make, compile_and_assemble, name, arg, expected):
    _, resty = compile_and_assemble(make(f"cmath.{name}(a0)", 1), _sig(arg), device=True)
    assert str(resty) == expected


def test_cmath_complex64_computes_in_float32(make):
    ir = _nvvm_ir(make("cmath.sqrt(a0)", 1), "(complex64,)")
    assert '@"__nv_hypotf"' in ir and '@"__nv_sqrtf"' in ir and "double" not in ir


@pytest.mark.parametrize("expr,nargs,args,expected", [
    ("cmath.phase(a0)", 1, ("complex64",), "float32"),
    ("cmath.phase(a0)", 1, ("complex128",), "float64"),
    ("cmath.polar(a0)", 1, ("complex128",), "UniTuple(float64 x 2)"),
    ("cmath.rect(a0, a1)", 2, ("float64", "float64"), "complex128"),
    ("cmath.rect(a0, a1)", 2, ("float32", "float32"), "complex64"),
    ("cmath.isnan(a0)", 1, ("complex64",), "bool"),
    ("cmath.isinf(a0)", 1, ("complex128",), "bool"),
    ("cmath.isfinite(a0)", 1, ("complex128",), "bool"),
    ("cmath.log(a0, a1)", 2, ("complex128", "complex128"), "complex128"),
    ("cmath.log(a0, a1)", 2, ("complex64", "float64"), "complex128"),
    ("a0 ** a1", 2, ("complex64", "complex64"), "complex64"),
    ("a0 ** a1", 2, ("complex128", "float64"), "complex128"),
    ("a0 ** a1", 2, ("complex128", "int64"), "complex128"),
])
def test_cmath_other(make, compile_and_assemble, expr, nargs, args, expected):
    _, resty = compile_and_assemble(make(expr, nargs), _sig(*args), device=True)
    assert str(resty) == expected


# -- builtins --------------------------------------------------------------------------------
@pytest.mark.parametrize("expr,nargs,args,expected", [
    ("int(a0)", 1, ("float32",), "int64"),
    ("int(a0)", 1, ("float64",), "int64"),
    ("float(a0)", 1, ("int32",), "float64"),
    ("bool(a0)", 1, ("float64",), "bool"),
    ("bool(a0)", 1, ("complex64",), "bool"),
    ("complex(a0)", 1, ("float32",), "complex64"),  # numba: complex(float32) is complex64
    ("abs(a0)", 1, ("int32",), "int32"),
    ("abs(a0)", 1, ("int64",), "int64"),
    ("abs(a0)", 1, ("uint32",), "uint32"),
    ("abs(a0)", 1, ("float32",), "float32"),
    ("abs(a0)", 1, ("float16",), "float16"),
    ("abs(a0)", 1, ("complex64",), "float32"),
    ("abs(a0)", 1, ("complex128",), "float64"),
    ("abs(a0)", 1, ("boolean",), "int8"),  # numba: bool converts to int8 first
    ("min(a0, a1)", 2, ("int32", "int64"), "int64"),
    ("min(a0, a1)", 2, ("float32", "float32"), "float32"),
    ("max(a0, a1)", 2, ("float64", "int32"), "float64"),
    ("max(a0, a1, a0)", 2, ("float32", "float32"), "float32"),
    ("max(a0, a1)", 2, ("boolean", "boolean"), "bool"),
    ("min((a0, a1, a0))", 2, ("int32", "int32"), "int32"),
    ("max((a0, a1))", 2, ("float64", "float64"), "float64"),
    ("round(a0)", 1, ("float32",), "int64"),
    ("round(a0)", 1, ("float64",), "int64"),
    ("round(a0)", 1, ("int32",), "int64"),
    ("round(a0, a1)", 2, ("float32", "int64"), "float32"),
    ("round(a0, a1)", 2, ("float64", "int32"), "float64"),
    ("round(a0, a1)", 2, ("int64", "int64"), "float64"),  # numba: round(x, n) is a float
    ("round(a0, -2)", 1, ("int32",), "float64"),
    ("pow(a0, a1)", 2, ("int64", "int64"), "int64"),
    ("pow(a0, a1)", 2, ("float32", "int64"), "float32"),
    ("pow(a0, a1)", 2, ("float64", "float64"), "float64"),
    ("pow(a0, a1)", 2, ("complex128", "complex128"), "complex128"),
    ("divmod(a0, a1)", 2, ("int64", "int32"), "UniTuple(int64 x 2)"),
    ("divmod(a0, a1)", 2, ("float64", "float64"), "UniTuple(float64 x 2)"),
    ("divmod(a0, a1)", 2, ("float32", "float32"), "UniTuple(float32 x 2)"),
    ("a0.real", 1, ("complex64",), "float32"),
    ("a0.imag", 1, ("complex128",), "float64"),
    ("a0.real", 1, ("float32",), "float32"),
    ("a0.imag", 1, ("int32",), "int32"),
    ("a0.imag", 1, ("boolean",), "int64"),
    ("a0.conjugate()", 1, ("complex64",), "complex64"),
    ("a0.conjugate()", 1, ("float64",), "float64"),
    ("a0.conjugate()", 1, ("int16",), "int16"),
])
def test_builtins(make, compile_and_assemble, expr, nargs, args, expected):
    _, resty = compile_and_assemble(make(expr, nargs), _sig(*args), device=True)
    assert str(resty) == expected


def test_round_is_half_even_via_rint(make):
    ir = _nvvm_ir(make("round(a0)", 1), "(float64,)")
    assert '@"__nv_rint"(double' in ir and "fptosi double" in ir
    assert '@"__nv_rintf"(float' in _nvvm_ir(make("round(a0)", 1), "(float32,)")


def test_int_of_float_truncates(make):
    ir = _nvvm_ir(make("int(a0)", 1), "(float64,)")
    assert "fptosi double" in ir and "__nv_floor" not in ir


@pytest.mark.parametrize("fn, stem", [("min", "fmin"), ("max", "fmax")])
@pytest.mark.parametrize("sig, suffix", [("(float64, float64)", ""), ("(float32, float32)", "f"),
                                         ("(float32, float64)", ""), ("(float64, float32)", "")])
def test_two_float_min_max_are_libdevice_fmin_fmax(make, fn, stem, sig, suffix):
    """numba-cuda lowers min/max of exactly two float32/float64 to __nv_fmin/__nv_fmax (a
    NaN operand loses: max(nan, -2.25) == -2.25), in float32 only when both are float32."""
    ir = _nvvm_ir(make(f"{fn}(a0, a1)", 2), sig)
    assert f'call {"float" if suffix else "double"} @"__nv_{stem}{suffix}"' in ir and "fcmp" not in ir


@pytest.mark.parametrize("expr, nargs, sig", [
    ("min(a0, a1)", 2, "(float64, int64)"), ("min(a0, a1, a2)", 3, "(float64, float64, float64)"),
    ("min((a0, a1))", 2, "(float64, float64)"), ("min(a0, a1)", 2, "(float16, float16)"),
])
def test_other_min_use_python_comparison_order(make, expr, nargs, sig):
    """Mixed int/float, three or more arguments and tuples take numba's do_minmax: ``b if
    b < a else a`` left to right (an ordered compare of the new item first)."""
    ir = _nvvm_ir(make(expr, nargs), sig)
    assert "fcmp olt" in ir and "__nv_fmin" not in ir


def test_abs_complex_is_hypot(make):
    assert '@"__nv_hypotf"' in _nvvm_ir(make("abs(a0)", 1), "(complex64,)")


def test_builtin_typing_errors(make):
    with pytest.raises(TypingError) as ei:
        _nvvm_ir(make("min(a0, a1)", 2), "(complex128, complex128)")
    assert "complex128" in str(ei.value) and "return min(a0, a1)" in str(ei.value)


def test_complex_of_two_numbers(make, compile_and_assemble):
    _, resty = compile_and_assemble(make("complex(a0, a1)", 2), "(float32, int32)", device=True)
    assert str(resty) == "complex128"


@pytest.mark.parametrize("expr,nargs,sig", [
    ("math.sin(a0)", 1, "(float32,)"), ("math.sqrt(a0)", 1, "(float64,)"),
    ("math.floor(a0)", 1, "(float32,)"), ("cmath.sqrt(a0)", 1, "(complex64,)"),
    ("cmath.atanh(a0)", 1, "(complex128,)"), ("round(a0, 3)", 1, "(float32,)"),
    ("a0 ** a1", 2, "(complex64, complex64)"),
])
def test_fastmath(make, compile_and_assemble, expr, nargs, sig):
    compile_and_assemble(make(expr, nargs), sig, device=True, fastmath=True)
