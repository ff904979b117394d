"""Differential fuzzer: random kernels run under numba-cuda and under cudalite, compared.

    python tests-compat/difffuzz.py --n 1000 --seed 1 [--jobs 4] [--time-budget 600]
        [--numba-path DIR] [--out-dir difffuzz-out] [--ulps 2]

A seeded generator (``generate(seed, index)``) writes each program as a module
``from <package> import cuda, types`` + one ``@cuda.jit`` kernel: integer arithmetic that
overflows (int64/int32/int16/int8/uint*), casts, ``//``, ``%``, ``**``, bit operations,
shifts, comparisons, conditional expressions, ``min``/``max``/``abs``, ``math``
functions, if/else, ``for``/``while`` loops, local arrays, tuples.  Each thread reads
``xi[t]``/``xf[t]`` (edge values: 0, -1, INT64_MIN, NaN, inf, -0.0, denormals...) and
stores chosen variables into ``oi`` (int64), ``of`` (float64) and ``of32`` (float32).

The programs run in batches (compile cost dominates) in worker processes, numba-cuda's
with ``--numba-path`` first on its sys.path (numpy<2.5), cudalite's in another process;
a crash marks that program and the worker resumes after it.  Agreement: integers bit for
bit; floats equal, or both NaN (any payload), or within ``--ulps`` (default 2) units in
the last place of the value's precision (float32's when a float32 value took part in
computing it); an infinity must match exactly, and +0.0 differs from -0.0.  Reported:
programs, both-ok-equal, mismatches (repro files in ``--out-dir``),
numba-ok-cudalite-rejects (with the error), cudalite-ok-numba-rejects, both-reject,
crashes, not run (time budget).

numba-cuda marks signed ``+ - *`` with LLVM's ``nsw`` (``_int_arith_flags`` in its
``cpython/numbers.py`` and ``np/math/numbers.py``), so a program whose signed arithmetic
overflows has *poison*, not a value, in numba-cuda; cudalite wraps (docs/language.md).
Each mismatching program is therefore run a third time under ``numba-wrap``: numba-cuda
with ``_int_arith_flags`` returning no flags, i.e. numba's own lowering with defined
wrapping.  A mismatch where cudalite agrees with numba-wrap bit for bit (and numba-cuda
does not) is counted ``numba-poison`` (numba-cuda's result is undefined there), not a
wrong result; every other mismatch is a ``mismatch`` (a wrong result to investigate).
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import time

N_THREADS = 32
N_INT_OUT, N_F64_OUT, N_F32_OUT = 6, 4, 3
INT_CONSTS = [0, 1, -1, 2, 3, 5, 7, 31, 127, 255, 1000, 65535, 2**31 - 1, -2**31, 2**32 + 5, 2**40 + 3,
              2**62, -2**62, 2**63 - 1, -2**63 + 1, 0x5DEECE66D, 6364136223846793005]
FLOAT_CONSTS = ["0.0", "-0.0", "0.5", "1.5", "-2.25", "3.141592653589793", "1e-300", "1e300", "1e10", "-7.0",
                "2.5e-8", "math.inf", "math.nan"]
SIGNED = ["int64", "int32", "int16", "int8"]
UNSIGNED = ["uint64", "uint32", "uint16", "uint8"]
INT_BINOPS = ["+", "-", "*", "&", "|", "^", "+", "*"]
FLOAT_BINOPS = ["+", "-", "*", "/"]
CMPS = ["<", "<=", ">", ">=", "==", "!="]
MATH1 = ["sin", "cos", "tanh", "atan", "fabs", "sqrt_abs", "log_abs", "exp_min", "floor", "ceil", "trunc"]
MATH2 = ["atan2", "hypot", "copysign", "fmod_safe", "pow_safe"]


# -- the generator ----------------------------------------------------------------------
class _Var:
    __slots__ = ("name", "kind", "low")

    def __init__(self, name, kind, low=False):
        self.name, self.kind, self.low = name, kind, low  # kind: "i" signed, "u" unsigned, "f", "f32"


class _Gen:
    """One random program (see generate())."""

    def __init__(self, rng: random.Random):
        self.r = rng
        self.lines: list[str] = []
        self.vars: list[_Var] = []
        self.n = 0
        self.loop_depth = 0

    def new(self, kind, low=False):
        self.n += 1
        v = _Var(f"v{self.n}", kind, low)
        return v

    def pick(self, kinds):
        cands = [v for v in self.vars if v.kind in kinds]
        return self.r.choice(cands) if cands else None

    # operands: a variable name or a constant, with its kind
    def int_operand(self, signed_only=False):
        if self.r.random() < 0.25:
            c = self.r.choice(INT_CONSTS)
            return (f"({c})" if c < 0 else str(c)), "i"
        v = self.pick(("i",) if signed_only else ("i", "u"))
        if v is None:
            return "a0", "i"
        return v.name, v.kind

    def float_operand(self, f32=False):
        if self.r.random() < 0.2:
            c = self.r.choice(FLOAT_CONSTS)
            return (f"types.float32({c})" if f32 else c), False
        v = self.pick(("f32",) if f32 else ("f",))
        if v is None:
            return ("types.float32(b0)" if f32 else "b0"), f32
        return v.name, v.low or f32

    @staticmethod
    def as_signed(src, kind):
        return src if kind == "i" else f"types.int64({src})"

    def int_expr(self):
        """(source, kind) of a random integer expression over existing operands."""
        r = self.r.random()
        a, ka = self.int_operand()
        b, kb = self.int_operand()
        if ka != kb:  # numba: uint64 op int64 is float64; keep integer results integer
            a, b, ka = self.as_signed(a, ka), self.as_signed(b, kb), "i"
        if r < 0.40:
            return f"{a} {self.r.choice(INT_BINOPS)} {b}", ka
        if r < 0.50:
            sign = self.r.choice(["", "-"])
            b = self.as_signed(b, kb)
            return f"{self.as_signed(a, ka)} {self.r.choice(['//', '%'])} ({sign}(({b} & 63) + 2))", "i"
        if r < 0.58:
            return f"{self.as_signed(a, ka)} {self.r.choice(['<<', '>>'])} ({self.as_signed(b, kb)} & 15)", "i"
        if r < 0.64:
            return f"{self.as_signed(a, ka)} ** {self.r.randint(0, 4)}", "i"
        if r < 0.72:
            t = self.r.choice(SIGNED + UNSIGNED)
            return f"types.{t}({a})", "u" if t in UNSIGNED else "i"
        if r < 0.78:
            f, _ = self.float_operand()
            return f"types.int64({self.clamp(f)})", "i"
        if r < 0.84:
            return f"{self.r.choice(['min', 'max'])}({a}, {b})", ka
        if r < 0.88:
            return f"abs({self.as_signed(a, ka)})", "i"
        if r < 0.92:
            return f"-{self.as_signed(a, ka)}", "i"
        if r < 0.96:
            return f"~{a}", ka
        return f"({a} if {self.cmp()} else {b})", ka

    def clamp(self, f):
        """A finite float in [-1e15, 1e15] from any float (NaN -> 0): safe to convert to int."""
        return f"min(max(({f} if {f} == {f} else 0.0), -1e15), 1e15)"

    def cmp(self):
        if self.r.random() < 0.6:
            a, ka = self.int_operand()
            b, kb = self.int_operand()
            if ka != kb:
                a, b = self.as_signed(a, ka), self.as_signed(b, kb)
        else:
            a, _ = self.float_operand()
            b, _ = self.float_operand()
        return f"({a} {self.r.choice(CMPS)} {b})"

    def float_expr(self, f32=False):
        """(source, low-precision flag) of a random float expression."""
        r = self.r.random()
        a, la = self.float_operand(f32)
        b, lb = self.float_operand(f32)
        low = la or lb or f32
        if r < 0.40:
            op = self.r.choice(FLOAT_BINOPS)
            if op == "/":
                one = "types.float32(0.5)" if f32 else "0.5"
                return f"{a} / (abs({b}) + {one})", low
            return f"{a} {op} {b}", low
        if r < 0.62:
            fn = self.r.choice(MATH1)
            if fn == "sqrt_abs":
                return f"math.sqrt(abs({a}))", low
            if fn == "log_abs":
                one = "types.float32(1.0)" if f32 else "1.0"
                return f"math.log(abs({a}) + {one})", low
            if fn == "exp_min":
                lim = "types.float32(30.0)" if f32 else "300.0"
                return f"math.exp(min({a}, {lim}))", low
            if fn in ("floor", "ceil", "trunc"):  # int64 results in numba: back to float
                conv = "types.float32" if f32 else "types.float64"
                return f"{conv}(math.{fn}({self.clamp(a)}))", low
            return f"math.{fn}({a})", low
        if r < 0.74:
            fn = self.r.choice(MATH2)
            if fn == "fmod_safe":
                one = "types.float32(1.0)" if f32 else "1.0"
                return f"math.fmod({a}, abs({b}) + {one})", low
            if fn == "pow_safe":
                return f"abs({a}) ** {self.r.choice(['0.5', '2.0', '3.0', '-1.5'])}", low or False
            return f"math.{fn}({a}, {b})", low
        if r < 0.84:
            i, ki = self.int_operand()
            conv = "types.float32" if f32 else "types.float64"
            return f"{conv}({i})", f32
        if r < 0.92:
            return f"{self.r.choice(['min', 'max'])}({a}, {b})", low
        return f"({a} if {self.cmp()} else {b})", low

    def emit(self, line, ind):
        self.lines.append("    " * ind + line)

    def stmt(self, ind):
        r = self.r.random()
        if r < 0.45:
            if self.r.random() < 0.6:
                src, kind = self.int_expr()
                v = self.new(kind)
            else:
                f32 = self.r.random() < 0.3
                src, low = self.float_expr(f32)
                v = self.new("f32" if f32 else "f", low)
            self.emit(f"{v.name} = {src}", ind)
            self.vars.append(v)
        elif r < 0.60:  # if/else defining one variable on both paths
            self.emit(f"if {self.cmp()}:", ind)
            if self.r.random() < 0.6:
                s1, k1 = self.int_expr()
                s2, k2 = self.int_expr()
                if k1 != k2:
                    s1, s2, k1 = self.as_signed(f"({s1})", k1), self.as_signed(f"({s2})", k2), "i"
                v = self.new(k1)
            else:
                s1, l1 = self.float_expr()
                s2, l2 = self.float_expr()
                v = self.new("f", l1 or l2)
            self.emit(f"    {v.name} = {s1}", ind)
            self.emit("else:", ind)
            self.emit(f"    {v.name} = {s2}", ind)
            self.vars.append(v)
        elif r < 0.72 and self.loop_depth < 2:  # for loop with a wrapping accumulator
            k = self.r.randint(1, 9)
            a, ka = self.int_operand(signed_only=True)
            acc = self.new("i")
            j = f"j{self.n}"
            self.emit(f"{acc.name} = {a}", ind)
            self.emit(f"for {j} in range({k}):", ind)
            b, kb = self.int_operand(signed_only=True)
            self.emit(f"    {acc.name} = {acc.name} * {self.r.choice([31, 1099511628211, -3])} + ({b} ^ {j})", ind)
            if self.r.random() < 0.4:
                self.emit(f"    if {acc.name} & 7 == 3:", ind)
                self.emit("        " + self.r.choice(["break", "continue"]), ind)
            self.vars.append(acc)
        elif r < 0.80:  # while loop
            f = self.new("f", False)
            c = f"c{self.n}"
            a, low = self.float_operand()
            f.low = low
            self.emit(f"{f.name} = {a}", ind)
            self.emit(f"{c} = 0", ind)
            self.emit(f"while {c} < {self.r.randint(1, 6)}:", ind)
            self.emit(f"    {f.name} = {f.name} * 0.5 + math.sin({f.name} + {c})", ind)
            self.emit(f"    {c} += 1", ind)
            self.vars.append(f)
        elif r < 0.90:  # local array
            la = f"la{self.n}"
            size = self.r.choice([2, 4, 8])
            a, ka = self.int_operand(signed_only=True)
            self.emit(f"{la} = cuda.local.array({size}, types.int64)", ind)
            self.emit(f"for q in range({size}):", ind)
            self.emit(f"    {la}[q] = {a} * (q + 1) - q", ind)
            b, kb = self.int_operand(signed_only=True)
            v = self.new("i")
            self.emit(f"{v.name} = {la}[{b} & {size - 1}] + {la}[{size - 1}]", ind)
            self.vars.append(v)
        else:  # tuples: build, index, unpack
            a, ka = self.int_operand(signed_only=True)
            b, kb = self.int_operand(signed_only=True)
            fa, lf = self.float_operand()
            t = f"tp{self.n}"
            self.emit(f"{t} = ({a}, {b}, {fa})", ind)
            v = self.new("i")
            w = self.new("f", lf)
            self.emit(f"{v.name} = {t}[0] {self.r.choice(INT_BINOPS)} {t}[1]", ind)
            self.emit(f"_p{self.n}, _q{self.n}, {w.name} = {t}", ind)
            self.vars += [v, w]


def generate(seed: int, index: int, n_stmts: int | None = None) -> str:
    """The source of program *index* of run *seed* ('{package}' stands for numba/cudalite)."""
    rng = random.Random(seed * 1_000_003 + index)
    g = _Gen(rng)
    g.vars = [_Var("a0", "i"), _Var("a1", "i"), _Var("a2", "i"), _Var("u0", "u"), _Var("b0", "f"),
              _Var("b1", "f"), _Var("h0", "f32", True)]
    for _ in range(n_stmts or rng.randint(4, 14)):
        g.stmt(2)
    ints = [v for v in g.vars if v.kind in ("i", "u")]
    f64s = [v for v in g.vars if v.kind == "f"]
    f32s = [v for v in g.vars if v.kind == "f32"]
    outs = []
    for i, v in enumerate(ints[-N_INT_OUT:]):
        outs.append(f"oi[t, {i}] = {v.name}")
    for i, v in enumerate(f64s[-N_F64_OUT:]):
        outs.append(f"of[t, {i}] = {v.name}")
    for i, v in enumerate(f32s[-N_F32_OUT:]):
        outs.append(f"of32[t, {i}] = {v.name}")
    low = [v.low for v in f64s[-N_F64_OUT:]]
    body = "\n".join(g.lines + ["        " + o for o in outs])
    return PROGRAM.format(index=index, seed=seed, body=body, low=low)


PROGRAM = '''# difffuzz program {index} of seed {seed}
import math
from {{package}} import cuda, types

LOW_PRECISION_F64 = {low}  # float64 outputs computed from a float32 value


@cuda.jit
def kern(oi, of, of32, xi, xf):
    t = cuda.grid(1)
    if t < xi.shape[0]:
        n = xi.shape[0]
        a0 = xi[t]
        a1 = xi[(t + 7) % n]
        a2 = types.int32(xi[(t + 3) % n])
        u0 = types.uint32(xi[(t + 5) % n])
        b0 = xf[t]
        b1 = xf[(t + 11) % n]
        h0 = types.float32(xf[(t + 2) % n])
{body}
'''


def inputs(np, seed: int, index: int):
    """The same (xi, xf) for both implementations: edge values then random ones."""
    rng = np.random.default_rng([seed, index])
    edge_i = [0, 1, -1, 2, 2**31 - 1, -2**31, 2**32, 2**63 - 1, -2**63, 255, -256, 65537]
    edge_f = [0.0, -0.0, 1.0, -1.5, math.nan, math.inf, -math.inf, 1e308, 5e-324, 0.1, -3e9, 2.5]
    xi = np.array(edge_i + list(rng.integers(-2**63, 2**63 - 1, N_THREADS - len(edge_i), dtype=np.int64)),
                  dtype=np.int64)
    xf = np.array(edge_f + list(rng.standard_normal(N_THREADS - len(edge_f)) * 10.0 ** rng.integers(-3, 6)),
                  dtype=np.float64)
    rng.shuffle(xi)
    rng.shuffle(xf)
    return xi, xf


# -- comparison -----------------------------------------------------------------------
def _ordered(bits: int, width: int) -> int:
    """Float bit pattern -> integer whose order is the float order (+0 and -0 both 0)."""
    sign = 1 << (width - 1)
    return -(bits & (sign - 1)) if bits & sign else bits


def _unpack(bits: int, width: int) -> float:
    return struct.unpack("<d" if width == 64 else "<f", bits.to_bytes(width // 8, "little"))[0]


def floats_agree(a_bits: int, b_bits: int, width: int, ulps: int, low_f64: bool = False) -> bool:
    """Equal bits; or both NaN; or both finite, same sign of zero rules aside, within *ulps*
    units in the last place (float32 units for a float64 computed from a float32)."""
    if a_bits == b_bits:
        return True
    a, b = _unpack(a_bits, width), _unpack(b_bits, width)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b) or a == b == 0.0:  # inf vs finite, or +0 vs -0
        return False
    if low_f64:
        scale = max(abs(a), abs(b))
        spacing = 2.0 ** (math.frexp(scale)[1] - 24) if scale else 2.0 ** -149
        return abs(a - b) <= ulps * spacing
    return abs(_ordered(a_bits, width) - _ordered(b_bits, width)) <= ulps


def compare(numba_res: dict, cudalite_res: dict, ulps: int, low_f64=()) -> list[str]:
    """Differences between two ok results (empty: they agree)."""
    diffs = []
    for t, (x, y) in enumerate(zip(numba_res["oi"], cudalite_res["oi"])):
        for s, (p, q) in enumerate(zip(x, y)):
            if p != q:
                diffs.append(f"oi[{t},{s}]: numba {p} cudalite {q}")
    for key, width in (("of", 64), ("of32", 32)):
        for t, (x, y) in enumerate(zip(numba_res[key], cudalite_res[key])):
            for s, (p, q) in enumerate(zip(x, y)):
                low = key == "of" and s < len(low_f64) and low_f64[s]
                if not floats_agree(p, q, width, ulps, low):
                    diffs.append(f"{key}[{t},{s}]: numba {_unpack(p, width)!r} cudalite {_unpack(q, width)!r}")
    return diffs


# -- workers ---------------------------------------------------------------------------------
def run_program(np, cuda, path, seed, index):
    spec = importlib.util.spec_from_file_location(f"difffuzz_{seed}_{index}", path)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
        xi, xf = inputs(np, seed, index)
        oi = np.zeros((N_THREADS, N_INT_OUT), np.int64)
        of = np.zeros((N_THREADS, N_F64_OUT), np.float64)
        of32 = np.zeros((N_THREADS, N_F32_OUT), np.float32)
        d = [cuda.to_device(a) for a in (oi, of, of32, xi, xf)]
        mod.kern[1, N_THREADS](*d)
        cuda.synchronize()
        oi, of, of32 = (x.copy_to_host() for x in d[:3])
    except Exception as exc:
        text = str(exc).strip()
        return {"ok": False, "error": f"{type(exc).__name__}: {text.splitlines()[-1] if text else ''}"[:400]}
    return {"ok": True, "oi": oi.tolist(), "of": of.view(np.uint64).tolist(), "of32": of32.view(np.uint32).tolist(),
            "low": list(getattr(mod, "LOW_PRECISION_F64", []))}


def numba_without_nsw():
    """Make this process's numba-cuda lower signed ``+ - *`` without ``nsw`` (wrapping):
    the reference for programs whose signed arithmetic overflows."""
    import importlib

    for name in ("numba.cuda.cpython.numbers", "numba.cuda.np.math.numbers"):
        mod = importlib.import_module(name)
        if not hasattr(mod, "_int_arith_flags"):
            raise RuntimeError(f"{name} has no _int_arith_flags: this numba-cuda version cannot run numba-wrap")
        mod._int_arith_flags = lambda rettype: []


def classify_mismatch(numba_res, cudalite_res, wrap_res, ulps, low_f64=()) -> str:
    """``numba-poison`` when cudalite agrees with numba-wrap and numba-cuda does not (the
    difference is numba's nsw poison), else ``mismatch``."""
    if wrap_res is None or not wrap_res.get("ok"):
        return "mismatch"
    if compare(wrap_res, cudalite_res, ulps, low_f64) or not compare(numba_res, wrap_res, ulps, low_f64):
        return "mismatch"
    return "numba-poison"


def worker(impl, folder, seed, ids, out, deadline):
    import warnings

    import numpy as np

    warnings.simplefilter("ignore")
    cuda = __import__("cudalite" if impl == "cudalite" else "numba", fromlist=["cuda"]).cuda
    if impl == "numba-wrap":
        numba_without_nsw()
    with open(out, "a", buffering=1) as f:
        for i in ids:
            if time.time() > deadline:
                break
            f.write(json.dumps({"start": i}) + "\n")
            f.flush()
            res = run_program(np, cuda, os.path.join(folder, f"{impl}_{i}.py"), seed, i)
            res["id"] = i
            f.write(json.dumps(res) + "\n")
            f.flush()


def run_shard(impl, folder, seed, ids, deadline, numba_path, log):
    """Results {id: result} of *ids* under *impl*; a crash marks the program and resumes."""
    results, todo = {}, list(ids)
    n = 0
    while todo and time.time() < deadline:
        out = os.path.join(folder, f"res_{impl}_{todo[0]}_{n}.jsonl")
        n += 1
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", impl, "--folder", folder, "--seed", str(seed),
               "--ids", ",".join(map(str, todo)), "--results", out, "--deadline", str(deadline)]
        env = dict(os.environ)
        if impl != "cudalite" and numba_path:
            env["PYTHONPATH"] = os.pathsep.join([numba_path] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                                                                if p])
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True,
                                  timeout=max(10.0, deadline - time.time() + 30))
            tail = (proc.stderr or "").strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        except subprocess.TimeoutExpired:
            tail = ["timeout"]
        running = None
        if os.path.exists(out):
            for line in open(out):
                rec = json.loads(line)
                if "start" in rec:
                    running = rec["start"]
                else:
                    results[rec["id"]] = rec
                    running = None
        if running is not None:
            results[running] = {"id": running, "ok": False, "crash": True, "error": f"crash: {tail[0][:300]}"}
        elif not os.path.exists(out) or not results:
            log(f"# {impl} worker failed to start: {tail[0][:300]}")
            break
        todo = [i for i in todo if i not in results]
    return results


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=4, help="worker processes per implementation")
    ap.add_argument("--time-budget", type=float, default=600.0, help="seconds for the whole run")
    ap.add_argument("--numba-path", help="directory put first on numba-cuda's sys.path (numpy<2.5)")
    ap.add_argument("--out-dir", default="difffuzz-out")
    ap.add_argument("--ulps", type=int, default=2)
    ap.add_argument("--worker", choices=("numba", "numba-wrap", "cudalite"), help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    ap.add_argument("--ids", help=argparse.SUPPRESS)
    ap.add_argument("--results", help=argparse.SUPPRESS)
    ap.add_argument("--deadline", type=float, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker, args.folder, args.seed, [int(i) for i in args.ids.split(",")], args.results,
               args.deadline)
        return 0
    t0 = time.time()
    deadline = t0 + args.time_budget
    folder = tempfile.mkdtemp(prefix="difffuzz-")
    srcs = {}
    for i in range(args.n):
        src = generate(args.seed, i)
        srcs[i] = src
        for impl in ("numba", "numba-wrap", "cudalite"):
            with open(os.path.join(folder, f"{impl}_{i}.py"), "w") as f:
                f.write(src.replace("{package}", "cudalite" if impl == "cudalite" else "numba"))
    jobs = max(1, args.jobs)
    shards = [list(range(args.n))[k::jobs] for k in range(jobs)]
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(2 * jobs) as pool:
        futs = {pool.submit(run_shard, impl, folder, args.seed, shard, deadline, args.numba_path, print): impl
                for impl in ("numba", "cudalite") for shard in shards}
        res = {"numba": {}, "cudalite": {}}
        for fut in concurrent.futures.as_completed(futs):
            res[futs[fut]].update(fut.result())
        ok = [i for i in range(args.n) if res["numba"].get(i, {}).get("ok") and res["cudalite"].get(i, {}).get("ok")]
        differing = [i for i in ok
                     if compare(res["numba"][i], res["cudalite"][i], args.ulps, res["numba"][i].get("low", []))]
        res["numba-wrap"] = {}
        if differing:  # the third run: numba-cuda without nsw, on the mismatching programs only
            wrap_futs = [pool.submit(run_shard, "numba-wrap", folder, args.seed, differing[k::jobs],
                                     max(deadline, time.time() + 120), args.numba_path, print) for k in range(jobs)]
            for fut in concurrent.futures.as_completed(wrap_futs):
                res["numba-wrap"].update(fut.result())
    counts = collections.Counter()
    os.makedirs(args.out_dir, exist_ok=True)
    lines = []
    for i in range(args.n):
        a, b = res["numba"].get(i), res["cudalite"].get(i)
        if a is None or b is None:
            counts["not-run"] += 1
            continue
        counts["programs"] += 1
        if a.get("crash") or b.get("crash"):
            counts["crash"] += 1
            lines.append(f"CRASH {i}: numba {a.get('error', 'ok')} | cudalite {b.get('error', 'ok')}")
            kind = "crash"
        elif a["ok"] and b["ok"]:
            diffs = compare(a, b, args.ulps, a.get("low", []))
            if not diffs:
                counts["both-ok-equal"] += 1
                continue
            kind = classify_mismatch(a, b, res["numba-wrap"].get(i), args.ulps, a.get("low", []))
            counts[kind] += 1
            lines.append(f"{kind.upper()} {i}: {diffs[0]} (+{len(diffs) - 1} more)")
        elif a["ok"]:
            counts["numba-ok-cudalite-rejects"] += 1
            kind = "cudalite-rejects"
            lines.append(f"CUDALITE-REJECTS {i}: {b['error']}")
        elif b["ok"]:
            counts["cudalite-ok-numba-rejects"] += 1
            kind = "numba-rejects"
            lines.append(f"NUMBA-REJECTS {i}: {a['error']}")
        else:
            counts["both-reject"] += 1
            continue
        with open(os.path.join(args.out_dir, f"{kind}_{args.seed}_{i}.py"), "w") as f:
            f.write(srcs[i].replace("{package}", "cudalite"))
            f.write(f"\n# seed={args.seed} index={i}; inputs: difffuzz.inputs(numpy, {args.seed}, {i})\n")
            f.write(f"# numba:    {json.dumps(a)}\n# cudalite: {json.dumps(b)}\n")  # whole: every differing cell
            if i in res["numba-wrap"]:
                f.write(f"# numba-wrap: {json.dumps(res['numba-wrap'][i])}\n")
    print(f"DIFFFUZZ seed {args.seed}: programs {counts['programs']}, both-ok-equal {counts['both-ok-equal']}, "
          f"mismatches {counts['mismatch']} (wrong results), numba-poison {counts['numba-poison']} "
          f"(numba-cuda's nsw poison; cudalite == numba-wrap), "
          f"numba-ok-cudalite-rejects {counts['numba-ok-cudalite-rejects']}, "
          f"cudalite-ok-numba-rejects {counts['cudalite-ok-numba-rejects']}, both-reject {counts['both-reject']}, "
          f"crashes {counts['crash']}, not run {counts['not-run']}; {time.time() - t0:.0f}s "
          f"(floats within {args.ulps} ulp, NaN==NaN; ints bit for bit)")
    for line in lines[:60]:
        print(line)
    if len(lines) > 60:
        print(f"... {len(lines) - 60} more; repro files in {args.out_dir}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
