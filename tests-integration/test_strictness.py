"""Strictness where numba is strict, and no internal exception from the compiler.

A table of small malformed programs (each refused with a located CompilerError
whose message says what is wrong), the kernel/device-function mix-ups (messages
that say what to do), and a sweep of every table entry plus Hypothesis mutations
of them through ``compile_ptx`` and the jit's compile path (``cuda.jit(sig)``
without a GPU type-checks, launching nothing): whatever the program, only a
documented error type may come out (docs/errors.md), never AttributeError,
KeyError, IndexError, TypeError, RecursionError, AssertionError... from our code.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
import warnings

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from cudalite import nvvm
from cudalite.core.errors import CompilerError, CudaliteError, InternalCompilerError, TypingError, UnsupportedError

HEADER = "import math\nimport numpy as np\nfrom cudalite import nvvm as cuda\n\n"
SIG = "void(float64[::1], int64)"
_COUNTER = itertools.count()

# (name, body of ``def f(a, n):``, expected error class, fragment of the message)
STRICT = [
    ("raise_int", "raise 5", TypingError, "exceptions must derive from BaseException: cannot raise 5"),
    ("raise_str", "raise 'boom'", TypingError, "cannot raise 'boom'"),
    ("raise_float", "raise 1.5", TypingError, "cannot raise 1.5"),
    ("raise_none", "raise None", TypingError, "cannot raise None"),
    ("raise_tuple", "raise (1, 2)", TypingError, "cannot raise the value of this expression"),
    ("raise_int_class", "raise int", TypingError, "cannot raise int"),
    ("raise_int_call", "raise int(3)", TypingError, "the value returned by int"),
    ("raise_math_fn", "raise math.sqrt(2.0)", TypingError, "the value returned by sqrt"),
    ("raise_local", "x = 5\n    raise x", TypingError, "cannot raise the local variable 'x'"),
    ("raise_param", "raise n", TypingError, "cannot raise the local variable 'n'"),
    ("raise_expr", "raise n + 1", TypingError, "cannot raise the value of this expression"),
    ("raise_index", "raise a[0]", TypingError, "cannot raise the value of this expression"),
    ("kw_sqrt", "a[0] = math.sqrt(x=a[1])", TypingError, "math.sqrt() does not take keyword arguments"),
    ("kw_sin", "a[0] = math.sin(x=a[1])", TypingError, "math.sin() does not take keyword arguments"),
    ("kw_exp", "a[0] = math.exp(x=1.0)", TypingError, "does not take keyword arguments"),
    ("kw_pow", "a[0] = math.pow(x=1.0, y=2.0)", TypingError, "does not take keyword arguments"),
    ("kw_atan2", "a[0] = math.atan2(1.0, x=2.0)", TypingError, "does not take keyword arguments"),
    ("kw_log", "a[0] = math.log(x=2.0)", TypingError, "does not take keyword arguments"),
    ("kw_abs", "a[0] = abs(x=a[1])", TypingError, "abs() does not take keyword arguments"),
    ("kw_len", "a[0] = len(obj=a)", TypingError, "len() does not take keyword arguments"),
    ("kw_float", "a[0] = float(x=n)", TypingError, None),
    ("kw_int", "a[0] = int(x=a[0])", TypingError, None),
    ("kw_bool", "a[0] = bool(x=n)", TypingError, None),
    ("kw_min", "a[0] = min(a[0], a[1], key=1)", TypingError, "min() does not take keyword arguments"),
    ("kw_max", "a[0] = max(a[0], a[1], default=1)", TypingError, None),
    ("kw_print", "print(n, end='')", TypingError, None),
    ("kw_range", "for i in range(stop=n):\n        a[i] = 0", TypingError, None),
    ("kw_unknown", "a[0] = math.copysign(1.0, 2.0, z=3)", TypingError, None),
    ("kw_floor", "a[0] = math.floor(x=a[0])", TypingError, "does not take keyword arguments"),
    ("yield_stmt", "yield 1", UnsupportedError, "generator function"),
    ("yield_from", "yield from a", UnsupportedError, "generator function"),
    ("yield_expr", "x = yield", UnsupportedError, "generator function"),
    ("yield_late", "a[0] = 1\n    if n > 100:\n        yield n", UnsupportedError, "generator function"),
    ("global", "global g\n    a[0] = 1", UnsupportedError, "'global'"),
    ("del", "x = 1\n    del x", UnsupportedError, "'del'"),
    ("try", "try:\n        a[0] = 1\n    except Exception:\n        pass", UnsupportedError, "try"),
    ("with", "with a:\n        pass", UnsupportedError, "'with'"),
    ("class", "class C:\n        pass", UnsupportedError, "class"),
    ("nested_def", "def g():\n        return n + 1\n    h = g\n    a[0] = h()", TypingError,
     "Cannot capture the non-constant value associated with variable 'n'"),
    ("import", "import os", UnsupportedError, "import"),
    ("lambda", "g = lambda x: x\n    a[0] = g(1)", UnsupportedError, "lambda"),
    ("list", "x = [1, 2]", UnsupportedError, "list"),
    ("dict", "x = {1: 2}", UnsupportedError, "dict"),
    ("set", "x = {1, 2}", UnsupportedError, "set"),
    ("listcomp", "x = [i for i in range(3)]", UnsupportedError, "comprehension"),
    ("genexp", "a[0] = sum(i for i in range(3))", UnsupportedError, "generator"),
    ("fstring", "x = f'{n}'", UnsupportedError, "f-string"),
    ("walrus", "if (m := n) > 0:\n        a[0] = m", UnsupportedError, None),
    ("match", "match n:\n        case 1:\n            a[0] = 1", UnsupportedError, None),
    ("star_call", "a[0] = max(*a)", TypingError, "must be a tuple"),
    ("kwargs_call", "a[0] = max(**a)", UnsupportedError, "**kwargs"),
    ("star_assign", "x, *y = (1, 2, 3)", UnsupportedError, "starred"),
    ("raise_from", "raise ValueError('x') from None", UnsupportedError, "from"),
    ("ellipsis", "a[...] = 1", UnsupportedError, None),
    ("str_index", "a['x'] = 1", TypingError, None),
    ("str_add", "x = 'a' + 1", TypingError, None),
    ("none_add", "a[0] = None + 1", TypingError, None),
    ("tuple_float", "a[0] = (1, 2) + 1.5", TypingError, None),
    ("tuple_oob", "t = (1, 2)\n    a[0] = t[5]", TypingError, "out of range"),
    ("in_number", "a[0] = 1 in 2", TypingError, "tuple on its right"),
    ("matmul", "a[0] = a @ a", TypingError, None),
    ("call_array", "a[0] = a()", TypingError, "not callable"),
    ("attr_unknown", "a[0] = a.foo", TypingError, "no attribute 'foo'"),
    ("method_unknown", "a[0] = a.foo()", TypingError, None),
    ("unknown_name", "a[0] = undefined_name_xyz", TypingError, None),
    ("unknown_math", "a[0] = math.undefined", TypingError, None),
    ("unknown_cuda", "a[0] = cuda.undefined", TypingError, None),
    ("grid_4", "i = cuda.grid(4)", TypingError, "1, 2 or 3"),
    ("grid_var", "i = cuda.grid(n)", TypingError, None),
    ("sqrt_2args", "a[0] = math.sqrt(1.0, 2.0)", TypingError, None),
    ("sqrt_0args", "a[0] = math.sqrt()", TypingError, None),
    ("cmp_complex", "a[0] = 1j < 2j", TypingError, None),
    ("invert_float", "a[0] = ~a[1]", TypingError, None),
    ("shift_float", "a[0] = a[1] << 2", TypingError, None),
    ("range_float", "for i in range(1.5):\n        pass", TypingError, None),
    ("range_step0", "for i in range(0, n, 0):\n        pass", CompilerError, None),
    ("shared_neg", "s = cuda.shared.array(-1, np.float32)", TypingError, None),
    ("shared_huge", "s = cuda.shared.array(2**40, np.float32)", TypingError, None),
    ("shared_dtype", "s = cuda.shared.array(4, 7)", TypingError, None),
    ("shared_kw", "s = cuda.shared.array(shape=4, dtype=np.float32, foo=1)", TypingError, "unexpected keyword"),
    ("local_str_shape", "s = cuda.local.array((2, 'x'), np.int32)", TypingError, None),
    ("atomic_float_idx", "cuda.atomic.add(a, 1.5, 1.0)", TypingError, None),
    ("atomic_arity", "cuda.atomic.add(a, 0)", TypingError, None),
    ("syncthreads_arg", "cuda.syncthreads(1)", TypingError, None),
    ("store_tuple", "a[0] = (1, 2)", TypingError, None),
    ("store_shape", "a.shape = 1", CompilerError, None),
    ("unpack_int", "x, y = 1", TypingError, None),
    ("unpack_len", "x, y = (1, 2, 3)", TypingError, None),
    ("for_int", "for v in 5:\n        pass", TypingError, None),
    ("for_mixed", "for v in (1, 2.5, 'a'):\n        pass", TypingError, None),
    ("cond_tuple", "if (a, n):\n        pass", TypingError, None),
    ("assert_tuple", "assert (a, n)", TypingError, None),
    ("return_value", "return 1", TypingError, None),
    ("return_tuple", "return (1, 2.5)", TypingError, None),
    ("fold_huge", "a[0] = 2 ** 64", TypingError, None),
    ("shift_huge", "a[0] = 1 << 64", TypingError, None),
    ("type_call", "a[0] = type(n)", TypingError, None),
    ("isinstance_str", "a[0] = isinstance(n, str)", TypingError, "is not a class that device code has a type for"),
    ("hash", "a[0] = hash(n)", TypingError, None),
    ("np_alloc", "x = np.empty(3)", TypingError, None),
    ("np_arange", "x = np.arange(3)", TypingError, None),
]

# whole modules: (name, source, function, expected error class, fragment)
MODULES = [
    ("async_def", "async def f(a, n):\n    a[0] = 1\n", "f", UnsupportedError, "f is a coroutine (async def)"),
    ("async_await", "async def g():\n    return 1\n\nasync def f(a, n):\n    await g()\n", "f",
     UnsupportedError, "coroutine"),
    ("async_for", "async def f(a, n):\n    async for x in a:\n        pass\n", "f", UnsupportedError, "coroutine"),
    ("async_gen", "async def f(a, n):\n    yield 1\n", "f", UnsupportedError, "async generator"),
    ("call_async", "async def g(x):\n    return x\n\ndef f(a, n):\n    a[0] = g(1)\n", "f",
     UnsupportedError, "g is a coroutine"),
    ("call_generator", "def g(x):\n    yield x\n\ndef f(a, n):\n    a[0] = g(1)\n", "f",
     UnsupportedError, "g is a generator function"),
    ("kwonly", "def g(*, x):\n    return x\n\ndef f(a, n):\n    a[0] = g(x=1)\n", "f", UnsupportedError, None),
    ("mutual_recursion", "def g(x):\n    return h(x)\n\ndef h(x):\n    return g(x)\n\ndef f(a, n):\n    a[0] = g(1)\n",
     "f", TypingError, "every return path calls it again"),
]


def _load(tmp_path, source, modname=None):
    """Import ``source`` from a real file (so its source can be read)."""
    modname = modname or f"strict_case_{next(_COUNTER)}"
    path = tmp_path / f"{modname}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(modname, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    spec.loader.exec_module(module)
    return module, path


def _src(body):
    return HEADER + "def f(a, n):\n    " + body + "\n"


@pytest.mark.parametrize("name, body, cls, fragment", STRICT, ids=[e[0] for e in STRICT])
def test_malformed_program_is_refused_with_a_located_error(tmp_path, name, body, cls, fragment):
    module, path = _load(tmp_path, _src(body))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(cls) as info:
            nvvm.compile_ptx(module.f, SIG, cc=(9, 0))
    err = info.value
    assert not isinstance(err, InternalCompilerError)
    assert err.loc is not None and err.loc.filename == str(path), str(err)
    assert err.loc.line >= 5, str(err)  # in the function (the header is 4 lines)
    if fragment is not None:
        assert fragment in err.msg, err.msg


@pytest.mark.parametrize("name, source, fn, cls, fragment", MODULES, ids=[m[0] for m in MODULES])
def test_malformed_module_is_refused_with_a_located_error(tmp_path, name, source, fn, cls, fragment):
    module, path = _load(tmp_path, HEADER + source)
    with pytest.raises(cls) as info:
        nvvm.compile_ptx(getattr(module, fn), SIG, cc=(9, 0))
    err = info.value
    assert err.loc is not None and err.loc.filename == str(path), str(err)
    if fragment is not None:
        assert fragment in err.msg, err.msg


def test_raise_5_points_at_the_value(tmp_path):
    module, path = _load(tmp_path, HEADER + "def f(a, n):\n    if n > 0:\n        raise 5\n")
    with pytest.raises(TypingError) as info:
        nvvm.compile_ptx(module.f, SIG, cc=(9, 0))
    assert (info.value.loc.line, info.value.loc.col) == (7, 14)
    assert str(info.value).splitlines()[1:3] == ["    raise 5", "          ^"]


def test_async_def_is_located_at_its_def(tmp_path):
    module, path = _load(tmp_path, HEADER + "\nasync def f(a, n):\n    a[0] = 1\n")
    with pytest.raises(UnsupportedError) as info:
        nvvm.compile_ptx(module.f, SIG, cc=(9, 0))
    assert info.value.loc.line == 6
    assert "write it as a plain def" in info.value.msg


def test_keyword_arguments_still_work_where_python_takes_them(tmp_path):
    src = HEADER + ("def g(x, y=2.0):\n    return x * y\n\n"
                    "def f(a, n):\n    a[0] = g(y=3.0, x=a[1]) + round(number=a[2], ndigits=1)"
                    " + pow(base=a[3], exp=2)\n")
    module, _ = _load(tmp_path, src)
    ptx, _ = nvvm.compile_ptx(module.f, SIG, cc=(9, 0))
    assert ".entry" in ptx


# -- kernels and device functions mixed up --------------------------------------------------------
def test_kernel_launched_from_a_kernel_says_what_to_do(tmp_path):
    src = ("from cudalite import cuda\n\n@cuda.jit\ndef k(a):\n    a[0] = 1\n\n"
           "def g(a, n):\n    k[1, 1](a)\n\ndef h(a, n):\n    x = k\n")
    module, path = _load(tmp_path, src)
    for fn, line in ((module.g, 8), (module.h, 11)):
        with pytest.raises(TypingError) as info:
            nvvm.compile_ptx(fn, SIG, cc=(9, 0))
        assert info.value.loc.line == line
        assert "k is a CUDA kernel (@cuda.jit without device=True): device code cannot launch a kernel" \
            in info.value.msg
        assert "Call it as k(args) to run it as a device function" in info.value.msg


def test_kernel_called_from_a_kernel_runs_as_a_device_function(tmp_path):
    """numba-cuda's rule: a @cuda.jit kernel *called* (not launched) from device code is
    compiled into the caller as a device function (value-returning ones too)."""
    src = ("from cudalite import cuda\n\n@cuda.jit\ndef k(a):\n    a[0] = 1.5\n\n"
           "@cuda.jit\ndef twice(x):\n    return x * 2\n\n"
           "def f(a, n):\n    k(a)\n    a[1] = twice(a[1])\n")
    module, path = _load(tmp_path, src)
    ptx, _ = nvvm.compile_ptx(module.f, SIG, cc=(9, 0))
    assert ptx.count(".entry") == 1 and "1.5" not in ptx  # one kernel; the constant is a bit pattern
    bits = 0x3FF8000000000000  # 1.5, stored by k's body (inlined or called) as f64 or u64
    assert "0d3FF8000000000000" in ptx or str(bits) in ptx
    assert "add.f64" in ptx  # twice's body


def test_launching_a_device_function_says_what_to_do(tmp_path):
    from cudalite import cuda

    src = "def dev(x):\n    return x + 1\n"
    module, _ = _load(tmp_path, src)
    d = cuda.jit(device=True)(module.dev)
    with pytest.raises(TypeError, match=r"dev is a CUDA device function \(@cuda.jit\(device=True\)\) and cannot be "
                                        r"launched \(dev\[\.\.\.\]\): call it from a kernel, or drop device=True"):
        d[1, 1]


def test_kernel_returning_a_value_says_device_true(tmp_path):
    from cudalite import cuda

    module, _ = _load(tmp_path, "def f(a, n):\n    return a[0] * n\n")
    with pytest.raises(TypingError, match=r"kernels must return None \(to return a value, make it a device "
                                          r"function: @cuda.jit\(device=True\)"):
        cuda.jit("(float64[::1], int64)")(module.f)
    with pytest.raises(CompilerError, match=r"make it a device function"):
        cuda.jit("float64(float64[::1], int64)")(module.f)


# -- the sweep: no internal exception type ---------------------------------------------------------
def _outcome(fn, sig, device, jit):
    """None when it compiled, else the exception (a documented one is fine)."""
    from cudalite import cuda

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if jit:
                cuda.jit(sig, device=device)(fn)
            else:
                nvvm.compile_ptx(fn, sig, device=device, cc=(9, 0))
    except CudaliteError as e:
        if isinstance(e, InternalCompilerError):
            return e
        if not str(e).strip():
            return AssertionError(f"{type(e).__name__} without a message")
        return None
    except BaseException as e:  # noqa: BLE001 - anything else is the finding
        return e
    return None


def _sweep(tmp_path, sources):
    bad = []
    for i, (source, name, sig, device) in enumerate(sources):
        try:
            module, _ = _load(tmp_path, source, f"strict_sweep_{next(_COUNTER)}")
            fn = getattr(module, name)
        except BaseException:  # noqa: BLE001 - Python itself rejects it: nothing to compile
            continue
        for jit in (False, True):
            exc = _outcome(fn, sig, device, jit)
            if exc is not None:
                bad.append(f"{'cuda.jit' if jit else 'compile_ptx'}: {type(exc).__name__}: {str(exc)[:300]}\n"
                           f"{source}")
    return bad


def _table_sources():
    out = [(_src(body), "f", SIG, False) for _, body, _, _ in STRICT]
    out += [(HEADER + src, fn, SIG, False) for _, src, fn, _, _ in MODULES]
    return out


def test_sweep_of_the_table_raises_only_documented_errors(tmp_path):
    bad = _sweep(tmp_path, _table_sources())
    assert not bad, "\n\n".join(bad)


def test_sweep_of_mutated_programs_raises_only_documented_errors(tmp_path):
    from fuzzing.strategies import mutated_sources

    cases = []

    seeds = [c for c in _table_sources() if "\ndef " in c[0]]  # the mutator edits a plain def

    @settings(max_examples=150, database=None, deadline=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(mutated_sources(seeds=seeds))
    def collect(case):
        cases.append(case)

    collect()
    bad = _sweep(tmp_path, cases)
    assert not bad, "\n\n".join(bad)
    assert len(cases) == 150
