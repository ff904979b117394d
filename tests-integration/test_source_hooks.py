"""Functions without a source file, and functions rewritten by import hooks.

* ``exec`` of a string: compiles when the text was exec'd after cudalite was
  imported (an audit hook keeps it) or is registered in ``linecache`` under the
  name given to ``compile()``; the proof of docs/language.md still holds (a text
  that is not the code's source is refused); text exec'd before cudalite was
  imported, unregistered, gets an error that says exactly what to write.
* pytest's assertion rewriting: a test module's device functions with ``assert``
  compile (a real pytest run in a subprocess), and the proof covers the asserts
  (an edited assert line is refused, as any edit after import).
* any other import hook that changes code: refused, naming the loader class.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import itertools
import linecache
import os
import subprocess
import sys
import textwrap

import pytest

from cudalite import nvvm
from cudalite.core.errors import SourceError

SIG = "void(float64[::1])"
SRC = "def gen_kernel(a):\n    a[0] = 1.5 + a[1]\n"
_COUNT = itertools.count()


def _name(tag):
    return f"<cudalite-test-{tag}-{os.getpid()}-{next(_COUNT)}>"


def _exec(src, filename):
    ns = {}
    exec(compile(src, filename, "exec"), ns)
    return ns


@pytest.fixture
def registered():
    """linecache entries made by a test, removed after it."""
    names = []
    yield names
    for n in names:
        linecache.cache.pop(n, None)


def _register(names, filename, text):
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    names.append(filename)


def test_exec_text_registered_in_linecache_compiles(registered):
    name = _name("ok")
    ns = _exec(SRC, name)
    _register(registered, name, SRC)
    ptx, _ = nvvm.compile_ptx(ns["gen_kernel"], SIG, cc=(9, 0))
    assert ".entry" in ptx and "0d3FF8000000000000" in ptx  # 1.5


def test_exec_text_registered_compiles_through_cuda_jit(registered):
    from cudalite import cuda

    name = _name("jit")
    ns = _exec(SRC, name)
    _register(registered, name, SRC)
    k = cuda.jit(SIG)(ns["gen_kernel"])  # type-checked without a GPU, compiled with one
    assert k.py_func is ns["gen_kernel"]


def test_exec_text_is_remembered_without_registration():
    # exec after cudalite was imported: the audit hook kept the text (cudalite.core.exec_sources)
    name = _name("remembered")
    ns = _exec(SRC, name)
    assert name not in linecache.cache
    ptx, _ = nvvm.compile_ptx(ns["gen_kernel"], SIG, cc=(9, 0))
    assert "0d3FF8000000000000" in ptx  # the constant 1.5 of this text


def test_exec_of_a_plain_string_compiles():
    ns = {}
    exec(SRC.replace("1.5", "2.5"), ns)  # filename '<string>', as numba-cuda's own tests build kernels
    ptx, _ = nvvm.compile_ptx(ns["gen_kernel"], SIG, cc=(9, 0))
    assert "0d4004000000000000" in ptx  # 2.5


def test_exec_in_a_function_namespace_and_eval_of_a_lambda():
    ld = {}
    exec(textwrap.dedent("""
        def outer_made(res, ary):
            res[0] = ary[0] * 3.0
    """), {}, ld)
    nvvm.compile_ptx(ld["outer_made"], "void(float64[::1], float64[::1])", cc=(9, 0))
    f = eval("lambda x: x * 7.0 + 1.0")
    nvvm.compile_ptx(f, "float64(float64)", device=True, cc=(9, 0))


def test_two_texts_under_one_name_each_compile_as_their_own():
    c1 = compile("def g(x):\n    return x * 3.0\n", "<string>", "exec")
    c2 = compile("def g(x):\n    return x / 3.0\n", "<string>", "exec")  # the newer text of '<string>'
    ns1, ns2 = {}, {}
    exec(c1, ns1)
    exec(c2, ns2)
    for ns, op in ((ns1, "mul.f64"), (ns2, "div.rn.f64")):  # each proved against its own code, never the other
        ptx, _ = nvvm.compile_ptx(ns["g"], "float64(float64)", device=True, cc=(9, 0))
        assert op in ptx, op


def test_a_remembered_text_that_is_not_the_source_is_refused(monkeypatch):
    import linecache

    # a text another test registered in linecache as '<string>' is proved first (and its own
    # error reported): this test is about the remembered texts alone
    monkeypatch.delitem(linecache.cache, "<string>", raising=False)
    # the function's name is one no other '<string>' text has (namedtuple's eval'd lambdas,
    # compiled by any thread, are '<string>' texts too; a candidate must name the function)
    ns = {}
    exec(compile("def remembered_h(x):\n    return x * 3.0\n", "<string>", "exec"), ns)
    f = ns["remembered_h"]
    f.__code__ = compile("def remembered_h(x):\n    return x * 4.0\n", "<elsewhere>", "exec").co_consts[0].replace(
        co_filename="<string>")  # a code object no remembered '<string>' text compiles to
    with pytest.raises(SourceError) as info:
        nvvm.compile_ptx(f, "float64(float64)", device=True, cc=(9, 0))
    assert "is not the source of remembered_h" in info.value.msg


def _run(code):
    """Run ``code`` as a script file (not ``python -c``: Python 3.13 registers the ``-c``
    text in linecache as ``<string>``, the name a plain ``exec(text)`` gets too)."""
    import tempfile

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "main.py")
        with open(script, "w") as f:
            f.write(textwrap.dedent(code))
        return subprocess.run([sys.executable, script], capture_output=True, text=True, env=env, timeout=300)


def test_exec_before_cudalite_is_imported_says_exactly_what_to_write():
    run = _run(f"""
        ns = {{}}
        exec(compile({SRC!r}, "<early-1>", "exec"), ns)   # before cudalite: nobody kept the text
        ns2 = {{}}
        exec({SRC!r}, ns2)
        from cudalite import nvvm
        from cudalite.core.errors import SourceError
        for f in (ns["gen_kernel"], ns2["gen_kernel"]):
            try:
                nvvm.compile_ptx(f, {SIG!r}, cc=(9, 0))
            except SourceError as e:
                print(e.loc.filename, e.loc.line, "|", e.msg)
    """)
    assert run.returncode == 0, run.stderr
    named, plain = run.stdout.splitlines()
    assert named.startswith("<early-1> 1 | cannot compile gen_kernel: its source code is not available (it was "
                            "made by exec() or compile() of a string named <early-1>")
    assert "linecache.cache['<early-1>'] = (len(src), None, src.splitlines(True), '<early-1>')" in named
    assert "code = compile(src, '<mykernels-1>', 'exec')" in plain
    assert ("linecache.cache['<mykernels-1>'] = (len(src), None, src.splitlines(True), '<mykernels-1>')"
            "; exec(code, namespace)") in plain


@pytest.mark.parametrize("other", [
    "def gen_kernel(a):\n    a[0] = 2.5 + a[1]\n",                # another constant
    "def gen_kernel(a):\n    a[0] = 1.5 - a[1]\n",                # another operator
    "\ndef gen_kernel(a):\n    a[0] = 1.5 + a[1]\n",              # moved a line down
    "def gen_kernel(b):\n    b[0] = 1.5 + b[1]\n",                # other parameter names
])
def test_registered_text_must_be_the_code_s_source(registered, other):
    name = _name("wrong")
    ns = _exec(SRC, _name("elsewhere"))  # its text is remembered under another name only
    ns["gen_kernel"].__code__ = ns["gen_kernel"].__code__.replace(co_filename=name)
    _register(registered, name, other)
    with pytest.raises(SourceError) as info:
        nvvm.compile_ptx(ns["gen_kernel"], SIG, cc=(9, 0))
    msg = info.value.msg
    assert f"the text known as {name} (registered in linecache" in msg
    assert f"linecache.cache[{name!r}] = (len(src), None, src.splitlines(True), {name!r})" in msg


def test_two_texts_under_two_names_each_compile_its_own(registered):
    texts = [SRC, SRC.replace("1.5", "4.0")]
    fns = []
    for t in texts:
        name = _name("pair")
        fns.append(_exec(t, name)["gen_kernel"])
        _register(registered, name, t)
    p1, _ = nvvm.compile_ptx(fns[0], SIG, cc=(9, 0))
    p2, _ = nvvm.compile_ptx(fns[1], SIG, cc=(9, 0))
    assert "0d3FF8000000000000" in p1 and "0d4010000000000000" in p2


# -- import hooks ----------------------------------------------------------------------------------
class _RewritingLoader(importlib.machinery.SourceFileLoader):
    """An import hook that changes the code it loads (2.0 becomes 3.0)."""

    def source_to_code(self, data, path, *, _optimize=-1):
        return super().source_to_code(data.replace(b"2.0", b"3.0"), path)


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, name, path):
        self.name, self.path = name, path

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path,
                                                      loader=_RewritingLoader(fullname, self.path))


def test_other_import_hooks_are_named_in_the_error(tmp_path):
    name = f"hooked_mod_{os.getpid()}_{next(_COUNT)}"
    path = tmp_path / f"{name}.py"
    path.write_text("def k(a):\n    a[0] = 2.0\n")
    finder = _Finder(name, str(path))
    sys.meta_path.insert(0, finder)
    try:
        mod = importlib.import_module(name)
    finally:
        sys.meta_path.remove(finder)
        sys.modules.pop(name, None)
    with pytest.raises(SourceError) as info:
        nvvm.compile_ptx(mod.k, SIG, cc=(9, 0))
    hook = f"{_RewritingLoader.__module__}.{_RewritingLoader.__qualname__}"
    assert f"its module was loaded by {hook}, an import hook that rewrites code" in info.value.msg
    assert (info.value.loc.filename, info.value.loc.line) == (str(path), 1)


PYTEST_FILE = '''
import linecache

import pytest

from cudalite import nvvm as cuda
from cudalite.core.errors import SourceError


def dev(a, i):
    assert i >= 0, "negative index"
    x = a[i] * 2.0
    assert x == x and (x > -1e300 or x < 1e300), (x, i)
    return x


def kern(a):
    i = cuda.grid(1)
    assert i < a.size
    if i < a.size:
        a[i] = dev(a, i)


def test_asserts_compile():
    assert "@py_assert" in " ".join(dev.__code__.co_varnames)  # pytest did rewrite this module
    ptx, _ = cuda.compile_ptx(kern, "void(float64[::1])", cc=(9, 0), debug=True, opt=False)
    assert ".entry" in ptx
    ptx, _ = cuda.compile_ptx(dev, "float64(float64[::1], int64)", device=True, cc=(9, 0))


def test_an_edited_assert_line_is_refused():
    lines = linecache.getlines(__file__)
    at = next(i for i, ln in enumerate(lines) if "assert i >= 0" in ln)
    edited = list(lines)
    edited[at] = edited[at].replace("i >= 0", "i >= 1")
    linecache.cache[__file__] = (sum(map(len, edited)), None, edited, __file__)
    try:
        with pytest.raises(SourceError, match="the source of dev changed after import"):
            cuda.compile_ptx(dev, "float64(float64[::1], int64)", device=True, cc=(9, 0))
    finally:
        linecache.cache.pop(__file__, None)
'''


def test_pytest_assertion_rewriting_is_proved_in_a_real_pytest_run(tmp_path):
    test_file = tmp_path / "test_rewritten_device_code.py"
    test_file.write_text(textwrap.dedent(PYTEST_FILE))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout, proc.stdout


def test_a_wrong_registered_text_does_not_hide_the_remembered_one(registered):
    name = _name("shadowed")
    ns = _exec(SRC, name)                     # remembered by cudalite
    _register(registered, name, "def gen_kernel(a):\n    a[0] = 9.5 + a[1]\n")  # a wrong text in linecache
    ptx, _ = nvvm.compile_ptx(ns["gen_kernel"], SIG, cc=(9, 0))
    assert "0d3FF8000000000000" in ptx and "0d4023000000000000" not in ptx  # 1.5 (proved), never 9.5
