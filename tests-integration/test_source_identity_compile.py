"""The compiled function is the function, through the public compile APIs
(``cudalite.nvvm.compile_ptx``, ``cudalite.cuda.jit``): a wrapper compiles its own
body, a file edited after import is a located ``SourceError``, never the new (or
another function's) body.  GPU-less."""

from __future__ import annotations

import functools
import importlib.util
import os
import traceback

import pytest

pytest.importorskip("llvmlite")

from cudalite.core.errors import SourceError, SourceWarning  # noqa: E402
from cudalite.nvvm import compile_ptx  # noqa: E402

SIG = "int32(int32)"
CC = (9, 0)


def times_big(x):
    return x * 104729


def adds_small(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return x + 7919
    return wrapper


def ptx_of(func):
    ptx, _ = compile_ptx(func, SIG, device=True, cc=CC)
    return ptx


def test_a_functools_wraps_wrapper_compiles_its_own_body():
    w = adds_small(times_big)
    ptx = ptx_of(w)
    assert "7919" in ptx and "104729" not in ptx
    assert "104729" in ptx_of(times_big)


def test_a_sourceless_wrapper_compiles_what_it_wraps_and_says_so():
    ns: dict = {}
    exec(compile("def wrapper(x):\n    return x + 7919\n", "<srcid-sourceless>", "exec"), ns)
    ns["wrapper"].__code__ = ns["wrapper"].__code__.replace(co_filename="<srcid-no-text-kept>")  # no source
    w = functools.wraps(times_big)(ns["wrapper"])
    with pytest.warns(SourceWarning, match=r"compiles times_big \(its __wrapped__\) in place of the wrapper wrapper"):
        ptx = ptx_of(w)
    assert "104729" in ptx and "7919" not in ptx


def _module(tmp_path, text):
    path = tmp_path / "srcid_edited.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"srcid_edited_{id(tmp_path)}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return path, mod


def _edit(path, text):
    st = path.stat()
    path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


def test_an_edited_file_is_a_located_error_with_a_clean_traceback(tmp_path):
    path, mod = _module(tmp_path, "\n\ndef f(x):\n    return x + 7919\n")
    _edit(path, "\n\ndef f(x):\n    return x * 54321\n")
    with pytest.raises(SourceError) as info:
        compile_ptx(mod.f, SIG, device=True, cc=CC)
    err = info.value
    assert str(err).splitlines()[:3] == [
        f"{path}:3:1",
        "    def f(x):",
        "    ^",
    ]
    assert str(err).splitlines()[3].startswith("SourceError: the source of f changed after import: ")
    frames = traceback.extract_tb(err.__traceback__)
    assert frames[-1].name == "compile_ptx"  # no compiler-internal frames


def test_an_edited_file_with_shifted_lines_never_compiles_the_other_function(tmp_path):
    path, mod = _module(tmp_path, "def f(x):\n    return x + 7919\n\n\ndef g(x):\n    return x * 54321\n")
    _edit(path, "def g(x):\n    return x * 54321\n\n\ndef f(x):\n    return x + 7919\n")
    with pytest.raises(SourceError, match="cannot find the source of f: line 1 of .* has no 'def f'"):
        compile_ptx(mod.f, SIG, device=True, cc=CC)


def test_the_jit_compiles_a_wrapper_as_itself():
    from cudalite import cuda

    dev = cuda.jit(device=True)(adds_small(times_big))
    ptx, _ = cuda.compile_ptx(dev, SIG, device=True, cc=CC)
    assert "7919" in ptx and "104729" not in ptx
