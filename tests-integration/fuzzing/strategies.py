"""Hypothesis strategies for the fuzzer's cases (plain data, picklable).

* :func:`mutated_sources`: a corpus program with one to three AST mutations
  (operators swapped, statements deleted or inserted, constants changed, names
  made unknown, call arities changed, expressions replaced, deep nesting inserted);
* :func:`signatures`: valid signature strings, mangled ones, and non-strings;
* :func:`compile_options`: every keyword of ``compile``/``compile_ptx`` with right
  and wrong types and values;
* :func:`linker_cases`: real PTX / cubin / fatbin / LTO-IR / object / archive bytes
  with bits flipped, cut short, overwritten with huge size fields, or random.
"""

from __future__ import annotations

import ast

from hypothesis import strategies as st

from .corpus import elf_size_fields, seed_sources

__all__ = ["mutated_sources", "signatures", "compile_options", "compile_cases", "cli_cases", "linker_cases"]

_BINOPS = [ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift,
           ast.BitOr, ast.BitXor, ast.BitAnd, ast.MatMult]
_CMPOPS = [ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn]
_CONSTANTS = [0, 1, -1, 2, 255, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30, 0.5, -0.0, 1e308,
              float("inf"), float("nan"), 1e-320, True, False, None, 1j, -2.5j, "s", "", b"b", ..., (),
              (1, 2), (1, 2.5), ((1,),), "é"]
_EXPRS = [
    "a[1:2:3]", "(1, 2)[5]", "(1, 2)[-3]", "cuda.threadIdx.w", "cuda.threadIdx", "math.sin()", "math.sin(1, 2)",
    "len(x)", "x.shape[9]", "x.real", "x.imag", "x.conjugate()", "x.T", "x.size", "x.ndim", "x[0, 0, 0]",
    "x[None]", "x[...]", "x[::0]", "lambda: 0", "[1, 2]", "{}", "{1}", "f'{x}'", "x @ x", "None",
    "print(x)", "cuda.shared.array(-1, np.float32)", "cuda.shared.array(0, np.float32)",
    "cuda.local.array((2, 'x'), np.int32)", "cuda.local.array(2**40, np.int8)", "cuda.local.array(3, 7)",
    "cuda.shared.array((1, 2, 3, 4, 5, 6, 7, 8, 9), np.float64)", "np.empty(3)", "range(10)", "int(x)",
    "float('x')", "complex(1, 2)", "complex(x)", "abs(x)", "min()", "max(x, x, x)", "divmod(x, 0)",
    "round(x, 2)", "round(x)", "pow(x, x, x)", "pow(x, -1)", "x ** -1", "2 ** -1", "0 ** -1", "1 // 0",
    "1 % 0", "1 / 0", "x // 0", "1 << 64", "1 << -1", "-1 >> 70", "x if x else (1, 2)", "(x, x) + (x,)",
    "(x, x) * 2", "(x,) == (1, 2)", "x < (1, 2)", "x in (1, 2)", "x is None", "not (1, 2)", "-(1, 2)",
    "~1.5", "cuda.atomic.add(x, 0, 1)", "cuda.atomic.cas(x, 0, 1, 2)", "cuda.atomic.max(x, (0, 1), x)",
    "cuda.grid(0)", "cuda.grid(4)", "cuda.grid(x)", "cuda.gridsize(3)", "cuda.syncthreads(1)",
    "cuda.shfl_sync(-1, x, 40)", "cuda.ballot_sync(x)", "cuda.fp16.hadd(x, x)", "cuda.brev(x)",
    "cuda.popc(1.5)", "cuda.selp(x, x, (1,))", "cuda.fma(x, x)", "cuda.cbrt('s')", "np.float32(x)",
    "np.int8(300)", "np.uint64(-1)", "np.float16(x) + np.float16(x)", "np.sqrt(x)", "np.arange(3)",
    "math.pi.real", "math.floor(x)", "math.isnan(1)", "math.copysign(x)", "math.ldexp(x, 1.5)",
    "bool(x)", "int(True)", "hash(x)", "type(x)", "isinstance(x, int)", "iter(x)", "next(x)",
    "x.shape", "x.strides", "x.dtype", "x.flat", "x.copy()", "x.sum()", "x[1:]", "x[:, 0]", "x[1:][0]",
    "undefined_name", "math.undefined", "cuda.undefined", "np.undefined", "__builtins__",
]
_STMTS = [
    "raise ValueError('x')", "raise ValueError", "raise", "raise KeyError(x, x)", "raise 5", "assert x",
    "assert x, (x, x)", "return", "return 1", "return (1, 2.5)", "return None", "return x, x",
    "while True:\n    break", "for i in range(1, 2, 0):\n    pass", "for i in range(1.5):\n    pass",
    "x, y = 1", "x, y = (1, 2, 3)", "(x, y), z = (1, 2), 3", "del x", "global g", "x[0] = x",
    "x.shape = 1", "x.real = 1", "import os", "with x:\n    pass", "try:\n    pass\nexcept Exception:\n    pass",
    "cuda.syncthreads()", "x = undefined_name", "x += (1,)", "x @= x", "x: int = 1", "x: int",
    "for v in 5:\n    pass", "for v in (1, 2.5, 'a'):\n    pass", "for v in ():\n    pass",
    "for i, j in enumerate(x):\n    pass", "for i in zip():\n    pass", "for q in range(3):\n    q = 1.5",
    "x = (1, 2)\nx = 3", "x = 1 if x else 'a'", "class C:\n    pass", "def inner():\n    return 1",
    "nonlocal_thing = [i for i in range(3)]", "x = x[0][0][0]", "print(x)", "pass", "...",
]
_NAMES = ["undefined_name", "len", "range", "print", "cuda", "np", "math", "int", "self", "__name__", "x", "True"]
_DEEP_NODES = 4000
_DEEP_OPS = [" + ", " - ", " * ", " and ", " or ", " < "]
_DEEP_PREFIX = ["-", "not ", "~"]


def _nodes(tree, cls):
    return [n for n in ast.walk(tree) if isinstance(n, cls)]


def _bodies(tree):
    """Every statement list: (owner, field)."""
    out = []
    for n in ast.walk(tree):
        for field in ("body", "orelse"):
            body = getattr(n, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                out.append(body)
    return out


class _Marker:
    """Deep nesting is spliced into the unparsed text (ast.unparse recurses)."""

    def __init__(self):
        self.texts = {}

    def node(self, text):
        key = f"__FUZZ_DEEP_{len(self.texts)}__"
        self.texts[key] = text
        return ast.Name(key, ast.Load())


def _replace_expr(draw, tree, new):
    """Replace one expression (not a call's function or an assignment target)."""
    parents = []
    for parent in ast.walk(tree):
        if isinstance(parent, (ast.JoinedStr, ast.FormattedValue)):  # f-string parts: Python cannot print others
            continue
        for field, value in ast.iter_fields(parent):
            if isinstance(value, ast.expr) and not isinstance(getattr(value, "ctx", None), ast.Store) \
                    and field != "func" and not isinstance(parent, (ast.keyword, ast.arg)):
                parents.append((parent, field, None))
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.expr) and not isinstance(getattr(item, "ctx", None), ast.Store):
                        parents.append((parent, field, i))
    if not parents:
        return
    parent, field, index = draw(st.sampled_from(parents))
    old = getattr(parent, field) if index is None else getattr(parent, field)[index]
    value = new(old)
    if index is None:
        setattr(parent, field, value)
    else:
        getattr(parent, field)[index] = value


def _function(tree):
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef))


def _mutate(draw, tree, marker):
    """One mutation of the function in ``tree`` (never of module-level code, which
    runs at import)."""
    tree = _function(tree)
    kind = draw(st.sampled_from([
        "binop", "cmpop", "delete", "constant", "deep", "name", "arity", "expr", "stmt", "params", "keyword",
    ]))
    if kind == "binop" and _nodes(tree, (ast.BinOp, ast.AugAssign)):
        n = draw(st.sampled_from(_nodes(tree, (ast.BinOp, ast.AugAssign))))
        n.op = draw(st.sampled_from(_BINOPS))()
    elif kind == "cmpop" and _nodes(tree, ast.Compare):
        n = draw(st.sampled_from(_nodes(tree, ast.Compare)))
        n.ops = [draw(st.sampled_from(_CMPOPS))() for _ in n.ops]
    elif kind == "delete":
        body = draw(st.sampled_from(_bodies(tree)))
        del body[draw(st.integers(0, len(body) - 1))]
        if not body:
            body.append(ast.Pass())
    elif kind == "constant":
        value = draw(st.sampled_from(_CONSTANTS) | st.integers() | st.floats())
        consts = _nodes(tree, ast.Constant)
        if consts and draw(st.booleans()):
            draw(st.sampled_from(consts)).value = value
        else:
            _replace_expr(draw, tree, lambda old: ast.Constant(value))
    elif kind == "deep":
        depth = draw(st.sampled_from([2, 10, 100, 600, 1200, 2000]))

        def scaled(old):  # at most ~4,000 nodes: deep, not huge (libNVVM is superlinear in size)
            return max(2, min(depth, _DEEP_NODES // sum(1 for _ in ast.walk(old))))

        if draw(st.booleans()):
            op = draw(st.sampled_from(_DEEP_OPS))
            _replace_expr(draw, tree, lambda old: marker.node(op.join([f"({ast.unparse(old)})"] * scaled(old))))
        else:
            prefix = draw(st.sampled_from(_DEEP_PREFIX))
            _replace_expr(draw, tree, lambda old: marker.node(prefix * scaled(old) + f"({ast.unparse(old)})"))
    elif kind == "name" and _nodes(tree, ast.Name):
        n = draw(st.sampled_from(_nodes(tree, ast.Name)))
        n.id = draw(st.sampled_from(_NAMES) | st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True))
    elif kind == "arity" and _nodes(tree, ast.Call):
        n = draw(st.sampled_from(_nodes(tree, ast.Call)))
        if n.args and draw(st.booleans()):
            del n.args[draw(st.integers(0, len(n.args) - 1))]
        else:
            n.args.append(ast.Constant(draw(st.sampled_from(_CONSTANTS))))
    elif kind == "keyword" and _nodes(tree, ast.Call):
        n = draw(st.sampled_from(_nodes(tree, ast.Call)))
        name = draw(st.sampled_from(["x", "start", "dtype", "shape", "ndim", "value"]))
        n.keywords.append(ast.keyword(name, ast.Constant(draw(st.sampled_from(_CONSTANTS)))))
    elif kind == "expr":
        text = draw(st.sampled_from(_EXPRS))
        _replace_expr(draw, tree, lambda old: ast.parse(text, mode="eval").body)
    elif kind == "stmt":
        body = draw(st.sampled_from(_bodies(tree)))
        new = ast.parse(draw(st.sampled_from(_STMTS))).body
        at = draw(st.integers(0, len(body)))
        body[at:at] = new
    elif kind == "params":
        fn = tree
        choice = draw(st.sampled_from(["drop", "add", "default", "star"]))
        if choice == "drop" and fn.args.args:
            del fn.args.args[draw(st.integers(0, len(fn.args.args) - 1))]
        elif choice == "add":
            fn.args.args.append(ast.arg(draw(st.sampled_from(["extra", "x", "cuda"]))))
        elif choice == "default" and fn.args.args:
            fn.args.defaults = [ast.Constant(draw(st.sampled_from(_CONSTANTS)))]
        elif choice == "star":
            fn.args.vararg = ast.arg("rest")


@st.composite
def mutated_sources(draw, seeds=None):
    """``(source, name, signature, device)``: a corpus program, mutated 0-3 times
    (the seed's own signature: the mutation is the source)."""
    seeds = seeds or seed_sources()
    source, name, sig, device = draw(st.sampled_from(seeds))
    tree = ast.parse(source)
    marker = _Marker()
    for _ in range(draw(st.integers(0, 3))):
        _mutate(draw, tree, marker)
    ast.fix_missing_locations(tree)
    try:
        text = ast.unparse(tree)
    except (ValueError, RecursionError):  # an AST Python cannot print: keep the seed
        text = source
    for key, deep in marker.texts.items():
        text = text.replace(key, f"({deep})")
    if draw(st.integers(0, 9)) == 0:  # token-level damage: cut a slice out of the text
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 12)))
        text = text[:i] + text[j:]
    return text, name, sig, device


_SCALARS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
            "float64", "complex64", "complex128", "boolean", "bool_", "intp", "uintp"]
_ARRAY_SUFFIX = ["[:]", "[::1]", "[:, :]", "[:, ::1]", "[::1, :]", "[:, :, :]", "[::2]", "[:,]", "[]", "[1]"]
_SIG_TOKENS = ["(", ")", "[", "]", ":", "::", "::1", ",", " ", "void", "none", "float32", "int64", "x",
               "UniTuple", "Tuple", "CPointer", "Array", "->", "1", "-1", "'", "\\", "\x00", "é", "complex128"]


@st.composite
def _valid_signature(draw):
    def argtype():
        base = draw(st.sampled_from(_SCALARS))
        shape = draw(st.integers(0, 4))
        if shape == 1:
            return base + draw(st.sampled_from(_ARRAY_SUFFIX))
        if shape == 2:
            return f"UniTuple({base}, {draw(st.integers(-1, 4))})"
        if shape == 3:
            return f"Tuple({base}, {draw(st.sampled_from(_SCALARS))})"
        return base

    args = [argtype() for _ in range(draw(st.integers(0, 5)))]
    ret = draw(st.sampled_from(["void", "none", ""] + _SCALARS))
    return f"{ret}({', '.join(args)})" if ret else f"({', '.join(args)})"


def signatures():
    """Signature strings: valid, mangled (tokens, slices cut), and garbage objects."""
    mangled = st.lists(st.sampled_from(_SIG_TOKENS), max_size=12).map("".join)
    return st.one_of(
        _valid_signature(), _valid_signature(), mangled, st.text(max_size=30),
        st.sampled_from([None, 3, 1.5, b"float32(float32)", ("float32",), ["int32"], {"a": 1}, "()", "(",
                         "float32(", "float32(float32", "float32)float32(", "int32[:::](int32)",
                         "float32(float32)" * 50, "(" * 300 + ")" * 300, "float32(" + "float32, " * 2000 + ")"]),
    )


_CCS = [(7, 5), (8, 0), (8, 6), (9, 0), (10, 0), (12, 0), "sm_90", "sm_90a", "compute_80", "90", 90, "9.0", 75]
_BAD = [None, -1, 0, 1.5, float("nan"), "", "x", "sm_", (9,), (9, 0, 1), (-1, 0), (9, "0"), [9, 0], {"a": 1},
        b"90", 2**64, True, object.__name__, "sm_999", (99, 9), (1, 0)]


def compile_options():
    """Keyword arguments of the compile API, each with right and wrong values."""
    anything = st.sampled_from(_BAD) | st.integers() | st.text(max_size=8)
    return st.fixed_dictionaries({}, optional={
        "cc": st.sampled_from(_CCS) | anything,
        "opt": st.sampled_from([None, True, False, 0, 1, 2, 3]) | anything,
        "fastmath": st.booleans() | anything,
        "debug": st.booleans() | anything,
        "lineinfo": st.booleans() | anything,
        "device": st.booleans() | anything,
        "abi": st.sampled_from(["c", "numba"]) | anything,
        "abi_info": st.sampled_from([None, {}, {"abi_name": "fn"}, {"abi_name": "1bad"}, {"abi_name": ""},
                                     {"abi_name": 5}, {"abi_name": "a" * 5000}, {"other": 1}, "fn", ["fn"]]),
        "output": st.sampled_from(["ptx", "ltoir"]) | anything,
        "forceinline": st.booleans() | anything,
        "launch_bounds": st.sampled_from([None, 128, (128,), (128, 2), (128, 2, 1), (0,), (-1,), (2**40,),
                                          (1, 2, 3, 4), (), "128", 1.5, [64], (64, "x")]) | anything,
    })


@st.composite
def compile_cases(draw):
    """A case for the compile API: a mutated program, maybe another signature,
    maybe options, and which entry point to call."""
    source, name, sig, device = draw(mutated_sources())
    if draw(st.integers(0, 3)) == 0:
        sig = draw(signatures())
    opts = draw(compile_options()) if draw(st.integers(0, 2)) == 0 else {}
    opts.setdefault("device", device)
    if opts["device"] is not True and "abi" not in opts:
        opts["abi"] = "numba"
    opts.setdefault("cc", (9, 0))
    api = draw(st.sampled_from(["compile_ptx", "compile", "compile_stages"]))
    if api == "compile_ptx":
        opts.pop("output", None)
    return {"kind": "compile", "api": api, "source": source, "name": name, "sig": sig, "options": opts}


_CLI_FLAGS = ["--output", "--emit", "-o", "--device", "--kernel", "--abi", "--abi-name", "--cc", "--opt",
              "--fastmath", "--lineinfo", "--debug", "--forceinline"]
_CLI_VALUES = ["ptx", "ltoir", "all", "nvvm-ir", "typed-ir", "ast", "source", "c", "numba", "90", "sm_90",
               "nine", "3", "-1", "x", "", "-", "OUT", "OUTDIR", "OUT/missing/x", "@", "--"]


_CLI_GOOD = [[], ["--output", "ltoir", "-o", "OUT"], ["--emit", "all", "-o", "OUTDIR"], ["--emit", "nvvm-ir"],
             ["--emit", "typed-ir"], ["--emit", "ast"], ["--emit", "source"], ["--cc", "90"], ["--opt", "0"],
             ["--fastmath"], ["--lineinfo"], ["--debug"], ["--abi", "numba"], ["--abi-name", "my_fn"],
             ["-o", "OUT"], ["--output", "ltoir", "--forceinline", "-o", "OUT"], ["-o", "-"]]


@st.composite
def cli_cases(draw):
    """A case for ``cudalite-compile``: a mutated program and a command line, mostly
    well formed, sometimes mangled (OUT / OUTDIR become paths in the child's
    scratch directory)."""
    source, name, sig, device = draw(mutated_sources())
    target = name if draw(st.integers(0, 5)) else draw(st.sampled_from([name + ".x", "missing", "", "1"]))
    if draw(st.integers(0, 3)) == 0:
        sig = draw(signatures().filter(lambda s: isinstance(s, str) and "\x00" not in s))
    argv = [f"FILE:{target}", sig] + ([] if device else ["--kernel"])
    for _ in range(draw(st.integers(0, 2))):
        argv += draw(st.sampled_from(_CLI_GOOD))
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
        argv.append(draw(st.sampled_from(_CLI_FLAGS)))
        if draw(st.booleans()):
            argv.append(draw(st.sampled_from(_CLI_VALUES)))
    return {"kind": "cli", "source": source, "name": name, "argv": argv}


@st.composite
def _corrupt(draw, data: bytes) -> bytes:
    how = draw(st.sampled_from(["flip", "truncate", "random", "fields", "splice", "zero", "same"]))
    buf = bytearray(data)
    if how == "flip" and buf:
        for _ in range(draw(st.integers(1, 16))):
            i = draw(st.integers(0, len(buf) - 1))
            buf[i] ^= 1 << draw(st.integers(0, 7))
    elif how == "truncate":
        buf = buf[:draw(st.integers(0, len(buf)))]
    elif how == "random":
        buf = bytearray(draw(st.binary(max_size=512)))
        if draw(st.booleans()):  # keep a valid magic number in front of the noise
            buf = bytearray(data[:draw(st.sampled_from([4, 8, 16, 64]))]) + buf
    elif how == "fields" and len(buf) >= 0x40:
        for off in draw(st.lists(st.sampled_from(elf_size_fields()), min_size=1, max_size=4)):
            width = 2 if off >= 0x34 else 8
            buf[off:off + width] = draw(st.sampled_from([b"\xff" * width, b"\x00" * width,
                                                         (len(buf) - 1).to_bytes(8, "little")[:width]]))
    elif how == "splice" and len(buf) > 8:
        i = draw(st.integers(0, len(buf)))
        buf = buf[:i] + bytearray(draw(st.binary(min_size=1, max_size=64))) + buf[i:]
    elif how == "zero" and buf:
        i = draw(st.integers(0, len(buf) - 1))
        j = draw(st.integers(i, len(buf)))
        buf[i:j] = bytes(j - i)
    return bytes(buf)


@st.composite
def linker_cases(draw, seeds: dict):
    """A case for cudalite.linker: one to three (kind, corrupted bytes) inputs, an
    arch, and the operation (link, link_ptx, inspect, from_path)."""
    kinds = sorted(seeds)
    inputs = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(kinds))
        as_kind = kind if draw(st.integers(0, 4)) else draw(st.sampled_from(kinds))  # sometimes mislabelled
        data = seeds[kind] if draw(st.integers(0, 5)) == 0 else draw(_corrupt(seeds[kind]))
        inputs.append((as_kind, data))
    arch = draw(st.sampled_from(["sm_90", "sm_90", "sm_75", (9, 0), "sm_9", "compute_90", "", "sm_1000", 90]))
    op = draw(st.sampled_from(["link", "link", "link_ptx", "inspect", "from_path"]))
    options = draw(st.sampled_from([{}, {}, {"lto": True}, {"max_registers": 32}, {"verbose": True},
                                    {"max_registers": -1}, {"lineinfo": True, "debug": True}]))
    return {"kind": "link", "inputs": inputs, "arch": arch, "op": op, "options": options}
