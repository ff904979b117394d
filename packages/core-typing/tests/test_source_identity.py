"""The compiled function is the function: source capture proves that the AST it
compiles is the source of the code object Python runs, or raises a located
``SourceError`` (never a guess)."""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import inspect
import linecache
import os
import sys
import types

import pytest

import cudalite.core.typing  # noqa: F401  (registers the built-in typing rules)
from cudalite import types as T
from cudalite.core import ir
from cudalite.core.errors import CompilerError, SourceError, SourceWarning, UnsupportedError
from cudalite.core.frontend import _identity, build_ir, capture
from cudalite.core.registry import registry
from cudalite.core.typing import TypingContext


def typed(func, *argtypes):
    return TypingContext(registry).type_function(func, argtypes)


def returned_op(func):
    """The operator of ``return a <op> b`` in the function cudalite compiles."""
    ret = build_ir(func).body[-1]
    assert isinstance(ret, ir.Return) and isinstance(ret.value, ir.BinOp)
    return ret.value.op


_counter = iter(range(10**6))


def write_module(tmp_path, text, name=None):
    path = tmp_path / f"{name or 'srcid_mod'}.py"
    path.write_text(text)
    return path


def import_path(path):
    name = f"_srcid_{path.stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def rewrite(path, text):
    """Rewrite a file so that both importlib and linecache see a new file (the
    mtime moves forward even within one second)."""
    st = path.stat()
    path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


# -- (1) wrappers ----------------------------------------------------------------------------
def twice(x):
    return x * 2


def plus_one_wrapper(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return x + 1
    return wrapper


def test_a_functools_wraps_wrapper_compiles_its_own_body():
    w = plus_one_wrapper(twice)
    assert w.__name__ == "twice" and w.__wrapped__ is twice  # it looks like twice ...
    src = capture(w)
    assert src.node.name == "wrapper" and src.func is w  # ... but compiles as itself
    assert returned_op(w) == "+"
    tf = typed(w, T.int32)
    assert tf.fir.body[-1].value.op == "+" and tf.return_type == T.int64
    assert returned_op(twice) == "*"


def _sourceless(text, name):
    """A function whose text nobody kept: exec'd, then moved to a name with no text
    (the text cudalite.core.exec_sources remembered belongs to the original code)."""
    ns: dict = {}
    exec(compile(text, "<cudalite-srcid-compiled>", "exec"), ns)
    f = ns[name]
    f.__code__ = f.__code__.replace(co_filename="<cudalite-srcid-no-source>")
    return f


def test_a_wrapper_without_source_compiles_what_it_wraps_with_a_warning():
    w = functools.wraps(twice)(_sourceless("def wrapper(x):\n    return x + 1\n", "wrapper"))
    with pytest.warns(SourceWarning, match=r"^cudalite compiles twice \(its __wrapped__\) in place of the wrapper "
                                           r"wrapper \(<cudalite-srcid-no-source>:1\), which cannot be compiled: "
                                           r"no source text for <cudalite-srcid-no-source>$"):
        src = capture(w)
    assert src.func is twice and src.node.name == "twice"
    with pytest.warns(SourceWarning):
        fir = build_ir(w)
    assert fir.name == "twice" and fir.pyfunc is twice and fir.body[-1].value.op == "*"


def test_a_c_wrapper_compiles_what_it_wraps_with_a_warning():
    cached = functools.lru_cache(maxsize=None)(twice)  # a C object: no __code__
    assert not hasattr(cached, "__code__")
    with pytest.warns(SourceWarning, match=r"^cudalite compiles twice \(its __wrapped__\) in place of the wrapper "
                                           r"<functools._lru_cache_wrapper object at 0x[0-9a-f]+>, which cannot be "
                                           r"compiled: it is not a Python function$"):
        src = capture(cached)
    assert src.func is twice and src.node.name == "twice"


def test_an_object_that_is_no_function_and_wraps_none_is_an_error():
    with pytest.raises(SourceError, match="cannot compile <built-in function len>: it is not a Python function"):
        capture(len)


def test_a_wrapper_whose_wrapped_function_has_no_source_either():
    inner = _sourceless("def inner(x):\n    return x\n", "inner")
    w = functools.wraps(inner)(_sourceless("def wrapper(x):\n    return x\n", "wrapper"))
    with pytest.warns(SourceWarning), pytest.raises(SourceError, match="cannot compile inner: its source code"):
        capture(w)


def test_a_wrapper_with_source_that_changed_is_an_error_not_an_unwrap(tmp_path):
    path = write_module(tmp_path, "def f(x):\n    return x + 1\n", "wrapchanged")
    mod = import_path(path)
    w = functools.wraps(twice)(mod.f)
    rewrite(path, "def f(x):\n    return x - 1\n")
    linecache.checkcache(str(path))
    with pytest.raises(SourceError, match="changed after import"):
        capture(w)


# -- (2) files edited after import -------------------------------------------------------------
def test_a_file_edited_after_import_with_the_same_lines_is_an_error(tmp_path):
    path = write_module(tmp_path, "def f(x):\n    return x + 1\n", "edited")
    mod = import_path(path)
    rewrite(path, "def f(x):\n    return x * 3\n")  # linecache reads it for the first time now
    with pytest.raises(SourceError) as info:
        build_ir(mod.f)
    err = info.value
    assert isinstance(err, CompilerError)
    assert err.msg.startswith("the source of f changed after import: ")
    assert err.msg.endswith("reload the module")
    assert (err.loc.filename, err.loc.line) == (str(path), 1)
    assert str(err).startswith(f"{path}:1:1\n")


def test_a_file_edited_after_it_was_read_compiles_the_code_python_runs(tmp_path):
    path = write_module(tmp_path, "def f(x):\n    return x + 1\n", "edited_read")
    mod = import_path(path)
    assert returned_op(mod.f) == "+"  # linecache now holds this text
    rewrite(path, "def f(x):\n    return x * 3\n")
    assert returned_op(mod.f) == "+"  # the held text still is the code's source
    linecache.checkcache(str(path))  # now it holds the new text: no proof any more
    with pytest.raises(SourceError, match="changed after import"):
        build_ir(mod.f)


def test_shifted_lines_put_another_function_at_the_first_line(tmp_path):
    path = write_module(tmp_path, "def f(x):\n    return x + 1\n\n\ndef g(x):\n    return x * 2\n", "shifted")
    mod = import_path(path)
    rewrite(path, "def g(x):\n    return x * 2\n\n\ndef f(x):\n    return x + 1\n")
    with pytest.raises(SourceError) as info:
        build_ir(mod.f)
    assert "cannot find the source of f: line 1 of" in info.value.msg
    assert "has no 'def f' with its parameters" in info.value.msg
    assert info.value.loc.line == 1


def test_shifted_lines_put_a_same_named_function_at_the_first_line(tmp_path):
    text = "class A:\n    def f(x):\n        return x + 1\n\n\nclass B:\n    def f(x):\n        return x * 2\n"
    path = write_module(tmp_path, text, "shifted_same_name")
    mod = import_path(path)
    rewrite(path, "\n\n\n\n\n" + text)  # B.f now sits where A.f was
    assert mod.A.f.__code__.co_firstlineno == 2
    with pytest.raises(SourceError, match="cannot find the source of A.f"):
        build_ir(mod.A.f)
    with pytest.raises(SourceError, match="the source of B.f changed after import"):
        build_ir(mod.B.f)  # line 7 now holds A.f: a 'def f', but not B.f's code


def test_a_reloaded_module_is_read_again(tmp_path):
    path = write_module(tmp_path, "def f(x):\n    return x + 1\n", "reloaded")
    sys.path.insert(0, str(tmp_path))
    try:
        mod = importlib.import_module("reloaded")
        assert returned_op(mod.f) == "+"  # linecache holds the first text
        rewrite(path, "def f(x):\n    return x * 3\n")
        importlib.invalidate_caches()
        mod = importlib.reload(mod)
        assert returned_op(mod.f) == "*"  # the new code, proved against the file read again
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("reloaded", None)


def test_a_replaced_code_object_is_an_error():
    def f(x):
        return x + 1

    consts = tuple(2 if c == 1 else c for c in f.__code__.co_consts)
    f.__code__ = f.__code__.replace(co_consts=consts)  # Python now runs x + 2
    with pytest.raises(SourceError, match="the source of .*f changed after import"):
        build_ir(f)


# -- (3) exec with a real file's name --------------------------------------------------------
def test_exec_of_other_text_under_a_real_files_name_is_an_error(tmp_path):
    path = write_module(tmp_path, "def f(x):\n    return x + 1\n", "execd")
    ns: dict = {}
    exec(compile("def f(x):\n    return x - 1\n", str(path), "exec"), ns)
    with pytest.raises(SourceError, match="exec/compile with this file's name"):
        build_ir(ns["f"])
    ns2: dict = {}
    exec(compile("def f(y):\n    return y - 1\n", str(path), "exec"), ns2)
    with pytest.raises(SourceError, match="has no 'def f' with its parameters"):
        build_ir(ns2["f"])


def test_exec_of_the_files_own_text_is_that_function(tmp_path):
    text = "def f(x):\n    return x + 1\n"
    path = write_module(tmp_path, text, "execd_same")
    ns: dict = {}
    exec(compile(text, str(path), "exec"), ns)
    assert returned_op(ns["f"]) == "+"


def test_exec_with_a_registered_linecache_entry_is_proved():
    name = "<cudalite-srcid-registered>"
    text = "def f(x):\n    return x - 1\n"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    ns: dict = {}
    exec(compile(text, name, "exec"), ns)
    assert returned_op(ns["f"]) == "-"
    other: dict = {}  # other text under the same name: not what linecache says (and never exec'd
    exec(compile("def f(x):\n    return x * 5\n", "<cudalite-srcid-elsewhere>", "exec"), other)  # under it)
    other["f"].__code__ = other["f"].__code__.replace(co_filename=name)
    with pytest.raises(SourceError, match=r"the text known as <cudalite-srcid-registered> \(registered in linecache, "
                                          r"or remembered from exec: .*\) is not the source of f"):
        build_ir(other["f"])


def test_source_that_is_not_python_is_an_error(tmp_path):
    path = tmp_path / "notpython.txt"
    path.write_text("this is { not python\n")
    ns: dict = {}
    exec(compile("def f(x):\n    return x\n", str(path), "exec"), ns)
    with pytest.raises(SourceError, match=r"cannot compile f: .*notpython.txt is not Python source"):
        capture(ns["f"])


# -- (4) lambdas on one line -----------------------------------------------------------------
ADD, MUL = (lambda x: x + 1), (lambda x: x * 2)  # noqa: E731
SAME_A, SAME_B = (lambda x: x + 1), (lambda x: x + 1)  # noqa: E731
FOLD_A, FOLD_B = (lambda x: x + 3), (lambda x: x + (1 + 2))  # noqa: E731
NESTED = lambda x: (lambda x: x * 2)(x) + 1  # noqa: E731
NESTED_INNER = types.FunctionType(next(c for c in NESTED.__code__.co_consts if isinstance(c, types.CodeType)),
                                  globals())


@pytest.fixture(params=[True, False], ids=["co_positions", "no_co_positions"])
def positions(request, monkeypatch):
    """Prove with co_positions (3.11+) and as Python 3.10 does, without them."""
    if request.param and not _identity.HAS_POSITIONS:
        pytest.skip("this Python has no co_positions")  # the other half runs
    monkeypatch.setattr(_identity, "HAS_POSITIONS", request.param)
    return request.param


def test_lambdas_with_different_bodies_are_told_apart(positions):
    assert capture(ADD).node.col_offset < capture(MUL).node.col_offset
    assert returned_op(ADD) == "+" and returned_op(MUL) == "*"


def test_lambdas_with_identical_bodies_are_the_same_function(positions):
    a, b = capture(SAME_A).node, capture(SAME_B).node
    assert ast.dump(a) == ast.dump(b)  # either one is right
    if positions:
        assert a.col_offset < b.col_offset  # and with positions, each its own


def test_lambdas_with_equal_code_but_different_asts(positions):
    if positions:
        assert capture(FOLD_A).node.col_offset < capture(FOLD_B).node.col_offset
        assert isinstance(capture(FOLD_B).node.body.right, ast.BinOp)
        return
    with pytest.raises(SourceError, match="put them on separate lines") as info:
        capture(FOLD_B)
    assert info.value.loc.line == FOLD_B.__code__.co_firstlineno


def test_nested_lambdas_with_the_same_parameters(positions):
    if positions:
        assert capture(NESTED).node.body.op.__class__ is ast.Add
        assert capture(NESTED_INNER).node.body.op.__class__ is ast.Mult
        return
    with pytest.raises(SourceError, match="cannot tell which lambda"):
        capture(NESTED_INNER)


def test_lambdas_with_different_parameters_on_one_line(positions):
    f, g = (lambda x: x + 1), (lambda y: y * 2)  # noqa: E731
    assert returned_op(f) == "+" and returned_op(g) == "*"


# -- what compiles today still compiles -------------------------------------------------------
class Holder:
    __scale = 3  # name-mangled inside the class

    @staticmethod
    def method(x):
        return x * Holder.__scale


def test_contexts_that_change_bytecode_are_reproduced():
    import math

    def uses_module(x):  # math is imported: LOAD_ATTR, not LOAD_METHOD (3.11+)
        return math.floor(x)

    k = 2

    def closure(x):
        return x + k

    assert capture(uses_module).node.name == "uses_module"
    assert capture(closure).node.name == "closure"
    assert capture(Holder.method).node.name == "method"


def kernel_with_assert(x):
    assert x > 0, "positive"
    return x + 1


def test_a_function_whose_asserts_pytest_rewrote():
    code = kernel_with_assert.__code__
    assert any(n.startswith("@py_assert") for n in code.co_varnames)  # this module is rewritten
    assert returned_op(kernel_with_assert) == "+"


def test_pytest_rewritten_code_is_proved_against_pytest_s_own_rewrite():
    from _pytest.assertion.rewrite import rewrite_asserts

    text = "def f(x):\n    assert x > 0\n    return x + 1\n"
    tree = ast.parse(text)
    rewrite_asserts(tree, text.encode())
    ns: dict = {}
    exec(compile(tree, "<srcid-rewritten>", "exec"), ns)
    code = ns["f"].__code__
    assert "@pytest_ar" in code.co_names

    def prove(src):
        lines = src.splitlines(True)
        parsed = _identity.parse_source(src, "<srcid-rewritten>")
        return _identity.prove_rewritten(code, lines, parsed, rewrite_asserts, None)

    node = prove(text)
    assert node.name == "f" and isinstance(node.body[0], ast.Assert)  # the node as written, not pytest's
    with pytest.raises(_identity.Mismatch):  # rewritten code is not the plain text's code
        _identity.prove(code, _identity.parse_source(text, "<srcid-rewritten>"))
    for changed in (text.replace("x + 1", "x - 1"), text.replace("x > 0", "x > 1")):
        with pytest.raises(_identity.Mismatch):  # an edit anywhere, in the assert too
            prove(changed)


CORPUS = ["json.decoder", "json.encoder", "textwrap", "dataclasses", "inspect", "ast", "functools",
          "cudalite.core.frontend._build", "cudalite.core.typing._infer", "cudalite.core.abi"]


def _code_objects(mod):
    seen, out = set(), []

    def walk(code):
        if id(code) in seen:
            return
        seen.add(id(code))
        if code.co_name == "<lambda>" or not code.co_name.startswith("<"):
            if code.co_flags & inspect.CO_NEWLOCALS:  # functions, not class bodies
                out.append(code)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                walk(c)

    for value in vars(mod).values():
        for v in ([value] + list(vars(value).values()) if isinstance(value, type) else [value]):
            v = getattr(v, "__func__", v)
            if isinstance(v, types.FunctionType) and v.__code__.co_filename == mod.__file__:
                walk(v.__code__)
    return out


@pytest.mark.parametrize("name", CORPUS)
def test_every_function_of_real_modules_is_proved(name):
    mod = importlib.import_module(name)
    parsed = _identity.parse_lines(linecache.getlines(mod.__file__), mod.__file__)
    codes = _code_objects(mod)
    assert len(codes) > 5
    for code in codes:
        node = _identity.prove(code, parsed)
        assert node.lineno >= code.co_firstlineno
        assert (node.name if hasattr(node, "name") else "<lambda>") == code.co_name
    for code in codes:  # and without co_positions
        _identity.prove(code, parsed, positions=False)


def test_unsupported_error_compatibility():
    assert issubclass(SourceError, UnsupportedError) and SourceError.kind == "SourceError"


def test_a_cell_compiled_statement_by_statement_like_ipython():
    name = "<ipython-input-7-srcid>"
    text = "import math\n\ndef f(x):\n    return math.floor(x) + 1\n\ng = lambda x: math.floor(x) * 2\n"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    ns: dict = {}
    for node in ast.parse(text).body:  # each statement alone: no module-level import in sight
        exec(compile(ast.Module([node], type_ignores=[]), name, "exec"), ns)
    assert returned_op(ns["f"]) == "+" and returned_op(ns["g"]) == "*"
    together: dict = {}
    exec(compile(text, name, "exec"), together)  # and the cell as one module
    assert returned_op(together["f"]) == "+"
