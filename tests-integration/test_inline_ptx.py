"""``cuda.inline_ptx``: the user's PTX reaches the kernel's PTX with the operands in
registers of the constraints' types, and every misuse is refused at the call's line
with the reason (string constants, result type vs output constraint, operand count and
types, ``$N`` out of range, malformed constraints)."""

from __future__ import annotations

import linecache

import numpy as np
import pytest

pytest.importorskip("llvmlite")

from cudalite import cuda, types  # noqa: E402
from cudalite.core.errors import TypingError  # noqa: E402
from cudalite.nvvm import compile_ptx  # noqa: E402

ARR_I32 = types.int32[:]


def test_instructions_reach_the_ptx():
    def k(out, a, b, x):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = cuda.inline_ptx("add.s32 $0, $1, $2;", "=r,r,r", types.int32, a[i], b[i])
            x[i] = cuda.inline_ptx("fma.rn.f32 $0, $1, $2, $3;", "=f,f,f,f", np.float32, x[i], x[i], np.float32(1))
            v = cuda.inline_ptx("mov.b64 $0, $1;", "=l,l", types.int64, types.int64(i))
            h = cuda.inline_ptx("mov.b16 $0, $1;", "=h,h", types.int16, types.int16(v))
            d = cuda.inline_ptx("add.f64 $0, $1, $1;", "=d,d", types.float64, float(h))
            x[i] += types.float32(d)
            cuda.inline_ptx("membar.gl;", "~{memory}", None)
            lo, hi = cuda.inline_ptx("mov.b64 {$0, $1}, $2;", "=r,=r,l", (types.int32, types.int32),
                                     types.int64(v))
            out[i] += lo + hi
            (only,) = cuda.inline_ptx("mov.b32 $0, $1;", "=r,r", (types.int32,), a[i])
            out[i] += only

    ptx, _ = compile_ptx(k, (ARR_I32, ARR_I32, ARR_I32, types.float32[:]))
    for op in ("add.s32 %r", "fma.rn.f32 %f", "mov.b64 %rd", "mov.b16 %rs", "add.f64 %fd", "membar.gl;",
               "mov.b64 {%r"):
        assert op in ptx, op


@pytest.mark.parametrize("call, message", [
    ('cuda.inline_ptx(s, "=r,r", types.int32, a[0])', "the PTX text must be a string constant, not array"),
    ('cuda.inline_ptx("mov.b32 $0, $1;", 5, types.int32, a[0])', "the constraints must be a string constant"),
    ('cuda.inline_ptx("mov.b32 $0, $1;", "=r,r", 3, a[0])',
     "the result type must be an integer or float type (e.g. types.int32), a tuple of them, or None, not"),
    ('cuda.inline_ptx("mov.b32 $0, $1;", "=r,=r,r", (types.int32, types.float32), a[0])',
     "result 2 float32 does not fit output constraint '=r' (a 32-bit integer)"),
    ('cuda.inline_ptx("mov.b32 $0, $1;", "r,r", types.int32, a[0])', "need as many output constraints"),
    ('cuda.inline_ptx("mov.b32 $0, $1;", "=r,r", None, a[0])', "need as many output constraints"),
    ('cuda.inline_ptx("mov.b32 $0, $1;", "=l,r", types.int32, a[0])',
     "the result type int32 does not fit output constraint '=l' (a 64-bit integer)"),
    ('cuda.inline_ptx("mov.b32 $0, $1;", "=r,r,r", types.int32, a[0])',
     "constraints '=r,r,r' name 2 input(s) but 1 operand(s) were given"),
    ('cuda.inline_ptx("mov.b32 $0, $1;", "=r,r", types.int32, 5)',
     "operand 1 is int64 but its constraint 'r' takes a 32-bit integer (convert it, e.g. types.int32(x))"),
    ('cuda.inline_ptx("mov.b32 $0, $2;", "=r,r", types.int32, a[0])',
     "the PTX text refers to $2 but there are only 2 operand(s) ($0 to $1)"),
    ('cuda.inline_ptx("mov.b32 $0, $1;", "=q,r", types.int32, a[0])', "unknown output constraint '=q'"),
    ('cuda.inline_ptx("mov.b32 $0, $1;", "=r,~{memory},r", types.int32, a[0])', "comes after a clobber"),
    ('cuda.inline_ptx("mov.b32 $0, $1;", "r,=r", types.int32, a[0])', "must come before every input"),
    ('cuda.inline_ptx("x;", "=r")', "takes the PTX text, the constraints and the result type"),
])
def test_misuse_is_refused_at_the_line(tmp_path, call, message):
    src = tmp_path / "user_kernel.py"
    src.write_text("from cudalite import cuda, types\n\n\ndef k(a):\n    s = a\n"
                   f"    a[0] = {call}\n")
    ns = {}
    code = compile(src.read_text(), str(src), "exec")
    linecache.checkcache(str(src))
    exec(code, ns)
    with pytest.raises(TypingError) as info:
        compile_ptx(ns["k"], (ARR_I32,))
    text = str(info.value)
    assert text.splitlines()[0].startswith(f"{src}:6:")
    assert message in text
