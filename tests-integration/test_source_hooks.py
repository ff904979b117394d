"""Functions without a source file, and functions rewritten by import hooks.

* ``exec`` of a string: compiles when the text is registered in ``linecache``
  under the name given to ``compile()`` (the proof of docs/language.md still
  holds: a registered text that is not the code's source is refused); without a
  registration the error says exactly what to write.
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


def test_exec_without_registration_says_exactly_what_to_write():
    name = _name("missing")
    ns = _exec(SRC, name)
    with pytest.raises(SourceError) as info:
        nvvm.compile_ptx(ns["gen_kernel"], SIG, cc=(9, 0))
    msg = info.value.msg
    assert msg.startswith("cannot compile gen_kernel: its source code is not available (it was made by exec() or "
                          f"compile() of a string named {name}")
    assert f"linecache.cache[{name!r}] = (len(src), None, src.splitlines(True), {name!r})" in msg
    assert (info.value.loc.filename, info.value.loc.line) == (name, 1)


def test_exec_of_a_plain_string_says_to_compile_under_a_name():
    ns = {}
    exec(SRC, ns)  # filename '<string>'
    with pytest.raises(SourceError) as info:
        nvvm.compile_ptx(ns["gen_kernel"], SIG, cc=(9, 0))
    msg = info.value.msg
    assert "code = compile(src, '<mykernels-1>', 'exec')" in msg
    assert ("linecache.cache['<mykernels-1>'] = (len(src), None, src.splitlines(True), '<mykernels-1>')"
            "; exec(code, namespace)") in msg


@pytest.mark.parametrize("other", [
    "def gen_kernel(a):\n    a[0] = 2.5 + a[1]\n",                # another constant
    "def gen_kernel(a):\n    a[0] = 1.5 - a[1]\n",                # another operator
    "\ndef gen_kernel(a):\n    a[0] = 1.5 + a[1]\n",              # moved a line down
    "def gen_kernel(b):\n    b[0] = 1.5 + b[1]\n",                # other parameter names
])
def test_registered_text_must_be_the_code_s_source(registered, other):
    name = _name("wrong")
    ns = _exec(SRC, name)
    _register(registered, name, other)
    with pytest.raises(SourceError) as info:
        nvvm.compile_ptx(ns["gen_kernel"], SIG, cc=(9, 0))
    msg = info.value.msg
    assert f"the text registered in linecache as {name}" in msg
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
