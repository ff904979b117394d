"""The frontend: source capture (functions, lambdas, exec'd code, closures) and AST -> IR."""

from __future__ import annotations

import ast
import functools
import linecache
import math

import numpy as np
import pytest

from cudalite.core import ir
from cudalite.core.errors import UnsupportedError
from cudalite.core.frontend import _identity, build_ir, capture
from cudalite.core.frontend._source import free_values, lookup_free

K = 10


def first_line(func):
    return func.__code__.co_firstlineno


def deco(fn):
    return fn


def wrapping_deco(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)
    return wrapper


# -- source capture ------------------------------------------------------------------------
def test_module_level_function_location():
    def here(x):
        return x

    src = capture(here)
    assert isinstance(src.node, ast.FunctionDef) and src.node.name == "here"
    loc = src.loc(src.node)
    assert loc.filename == __file__
    assert loc.line == first_line(here)
    assert loc.col == 4  # nested in this test function: indented by 4


def test_nested_functions_with_the_same_name_are_told_apart():
    def outer_a():
        def inner(x):
            return x + 1
        return inner

    def outer_b():
        def inner(x):
            return x * 2
        return inner

    a, b = outer_a(), outer_b()
    na, nb = capture(a).node, capture(b).node
    assert na.lineno == first_line(a) and nb.lineno == first_line(b)
    assert isinstance(na.body[0].value.op, ast.Add)
    assert isinstance(nb.body[0].value.op, ast.Mult)


def test_decorated_function_is_found_by_its_decorator_line():
    @deco
    @deco
    def decorated(x):
        return x - 1

    src = capture(decorated)
    assert src.node.name == "decorated"
    # co_firstlineno is the first decorator's line; the def is two lines below
    assert src.node.lineno == first_line(decorated) + 2
    assert src.loc(src.node.body[0]).line == first_line(decorated) + 3


def test_a_functools_wraps_wrapper_is_compiled_as_itself():
    @wrapping_deco
    def wrapped(x):
        return x

    assert capture(wrapped).node.name == "wrapper"  # its own body, not __wrapped__'s
    original = wrapped.__wrapped__
    assert capture(original).node.name == "wrapped"


F_ONE, F_TWO = (lambda x: x + 1), (lambda x: x * 2.0)  # noqa: E731
F_SAME_A, F_SAME_B = (lambda x: x), (lambda x: x)  # noqa: E731


def test_two_lambdas_on_one_line_use_co_positions():
    a, b = capture(F_ONE).node, capture(F_TWO).node
    assert isinstance(a, ast.Lambda) and isinstance(b, ast.Lambda)
    assert a.lineno == b.lineno
    assert a.col_offset < b.col_offset
    assert isinstance(a.body.op, ast.Add) and isinstance(b.body.op, ast.Mult)
    if not _identity.HAS_POSITIONS:
        return  # Python 3.10: identical lambdas are one function (test_source_identity.py)
    # identical lambda texts too: only the columns tell them apart
    sa, sb = capture(F_SAME_A).node, capture(F_SAME_B).node
    line = linecache.getline(__file__, sa.lineno)
    assert sa.col_offset == line.index("lambda")
    assert sb.col_offset == line.index("lambda", sa.col_offset + 1)


def test_lambda_ir_and_location():
    fir = build_ir(F_TWO)
    assert fir.name == "<lambda>" and fir.params == ["x"]
    (ret,) = fir.body
    assert isinstance(ret, ir.Return) and isinstance(ret.value, ir.BinOp) and ret.value.op == "*"
    line = linecache.getline(__file__, ret.loc.line)
    assert line[ret.loc.col:].startswith("x * 2.0")


def test_nested_lambda_is_the_innermost_one():
    outer = lambda x: (lambda y: y + 1)(x)  # noqa: E731
    inner = outer.__code__.co_consts
    inner_code = next(c for c in inner if hasattr(c, "co_code"))
    inner_fn = type(outer)(inner_code, outer.__globals__)
    o, i = capture(outer).node, capture(inner_fn).node
    assert o.col_offset < i.col_offset
    assert isinstance(i.body, ast.BinOp)


def _exec_source(text, filename):
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    ns: dict = {"np": np}
    exec(compile(text, filename, "exec"), ns)
    return ns


def test_function_defined_in_exec_with_a_linecache_entry():
    text = "K = 5\n\ndef ex(a):\n    b = a + K\n    return b\n"
    ns = _exec_source(text, "<cudalite-test-exec-1>")
    src = capture(ns["ex"])
    assert src.filename == "<cudalite-test-exec-1>"
    fir = build_ir(ns["ex"])
    assign = fir.body[0]
    assert assign.loc.line == 4 and assign.loc.col == 4
    assert assign.loc.text() == "    b = a + K"
    const = assign.value.right
    assert isinstance(const, ir.Const) and const.value == 5 and const.name == "K"


def test_function_without_source_is_a_clear_error():
    ns: dict = {}
    exec(compile("def nosrc(a):\n    return a\n", "<cudalite-compiled-as>", "exec"), ns)
    ns["nosrc"].__code__ = ns["nosrc"].__code__.replace(co_filename="<cudalite-no-such-source>")  # no text known
    with pytest.raises(UnsupportedError, match="source code is not available") as info:
        capture(ns["nosrc"])
    assert info.value.loc.filename == "<cudalite-no-such-source>"
    assert info.value.loc.line == 1


def test_closures_are_read_from_cells():
    scale = 3.0
    offset = np.float32(1)

    def f(x):
        return x * scale + offset + K

    cells, globs = free_values(f)
    assert cells == {"scale": 3.0, "offset": np.float32(1)}
    assert lookup_free("K", cells, globs) == (True, 10)
    assert lookup_free("abs", cells, globs) == (True, abs)
    assert lookup_free("no_such_name_here", cells, globs) == (False, None)
    fir = build_ir(f)
    expr = fir.body[0].value  # ((x * scale) + offset) + K
    consts = {c.name: c.value for c in _walk_consts(expr)}
    assert consts == {"scale": 3.0, "offset": np.float32(1), "K": 10}


def test_closure_cell_shadows_a_global():
    K = 99  # noqa: N806  (shadows the module's K)

    def f():
        return K

    (ret,) = build_ir(f).body
    assert ret.value.value == 99


def _walk_consts(e):
    if isinstance(e, ir.Const):
        yield e
    for attr in ("left", "right", "operand", "value", "func", "index"):
        sub = getattr(e, attr, None)
        if isinstance(sub, ir.Expr):
            yield from _walk_consts(sub)
    for attr in ("items", "args", "values", "operands"):
        for sub in getattr(e, attr, None) or []:
            yield from _walk_consts(sub)


# -- AST -> IR -----------------------------------------------------------------------------------
def test_range_loops():
    def loops(a, b, n):
        for i in range(a, b, 2):
            pass
        for j in range(n):
            pass
        for k in range(a, b):
            pass

    l1, l2, l3 = build_ir(loops).body
    assert all(isinstance(s, ir.ForRange) for s in (l1, l2, l3))
    assert l1.target == "i"
    assert [type(e).__name__ for e in (l1.start, l1.stop)] == ["Var", "Var"]
    assert isinstance(l1.step, ir.Const) and l1.step.value == 2
    assert (l2.start.value, l2.stop.name, l2.step.value) == (0, "n", 1)
    assert (l3.start.name, l3.stop.name, l3.step.value) == ("a", "b", 1)
    assert l1.body == []


def test_statements_translate_to_ir():
    def f(a, x):
        """docstring is dropped"""
        y = x
        y += 1
        p = q = 2
        s, t = x, y
        a[0] = s
        if x > 0:
            y = 1
        elif x < 0:
            y = 2
        else:
            pass
        while y:
            y -= 1
            break
        return y

    body = build_ir(f).body
    kinds = [type(s).__name__ for s in body]
    assert kinds == ["Assign", "Assign", "Assign", "Assign", "Assign", "Assign", "Assign", "If", "While",
                     "Return"]
    aug = body[1]
    assert isinstance(aug.value, ir.BinOp) and aug.value.op == "+" and aug.value.left.name == "y"
    tmp_assign, p_assign, q_assign = body[2:5]
    assert tmp_assign.target.name.startswith("$")
    assert p_assign.value.name == tmp_assign.target.name and q_assign.target.name == "q"
    assert isinstance(body[5].target, ir.TupleTarget)
    assert isinstance(body[6].target, ir.IndexTarget)
    elif_ = body[7].orelse[0]
    assert isinstance(elif_, ir.If) and elif_.orelse == []
    assert [type(s).__name__ for s in body[8].body] == ["Assign", "Break"]


def test_expressions_translate_to_ir():
    def f(a, b, c):
        return (a < b <= c, a if b else c, a and b or c, not a, -a, a.real, a[1, 2], math.pi,
                abs(a), max(a, b, key=None))

    (ret,) = build_ir(f).body
    items = ret.value.items
    cmp, ifexp, boolop, not_, neg, attr, index, pi, call, kwcall = items
    assert isinstance(cmp, ir.Compare) and cmp.ops == ["<", "<="] and len(cmp.operands) == 3
    assert isinstance(ifexp, ir.IfExp)
    assert isinstance(boolop, ir.BoolOp) and boolop.op == "or" and boolop.values[0].op == "and"
    assert isinstance(not_, ir.UnaryOp) and not_.op == "not"
    assert neg.op == "-"
    assert isinstance(attr, ir.Attr) and attr.attr == "real"
    assert isinstance(index, ir.Index) and isinstance(index.index, ir.TupleExpr)
    # attributes of modules are folded to constants by the frontend
    assert isinstance(pi, ir.Const) and pi.value == math.pi and pi.name == "math.pi"
    assert isinstance(call, ir.Call) and call.func.value is abs
    assert list(kwcall.kwargs) == ["key"]


def test_locations_of_ir_nodes():
    def f(x):
        y = x + 1
        return y

    assign, ret = build_ir(f).body
    base = first_line(f)
    assert (assign.loc.line, assign.loc.col) == (base + 1, 8)
    binop = assign.value
    assert (binop.loc.line, binop.loc.col, binop.loc.end_col) == (base + 1, 12, 17)
    assert (ret.loc.line, ret.loc.col) == (base + 2, 8)
    assert ret.loc.filename == __file__


def test_single_assignment_constants():
    def f(x):
        i = 2
        j = 0
        j += 1
        t = (1, 2)
        for k in range(3):
            pass
        return i, j, t, k

    consts = build_ir(f).constants
    assert consts == {"i": 2, "t": (1, 2)}


def test_attribute_of_missing_module_member():
    def f(x):
        return math.no_such_function(x)

    from cudalite.core.errors import TypingError

    with pytest.raises(TypingError, match="has no attribute 'no_such_function'"):
        build_ir(f)


@pytest.mark.parametrize("src, what", [
    ("def f(x):\n    try:\n        pass\n    except Exception:\n        pass\n", "try/except"),
    ("def f(x):\n    with x:\n        pass\n", "'with' statements"),
    ("def f(x):\n    class A:\n        pass\n", "class definitions"),
    ("def f(x):\n    def g():\n        nonlocal x\n        x = 1\n", "assigns a variable of the enclosing function"),
    ("def f(x):\n    yield x\n", "f is a generator function (it contains yield)"),
    ("async def f(x):\n    return x\n", "f is a coroutine (async def)"),
    ("def f(x):\n    return [i for i in x]\n", "'list comprehension'"),
    ("def f(x):\n    return {1: x}\n", "'dict display'"),
    ("def f(x):\n    return f'{x}'\n", "'f-string'"),
    ("def f(x):\n    return g(**x)\n", "calls with **kwargs"),
    ("def f(x):\n    a, *b = x\n", "starred assignment"),
    ("def f(x):\n    global K\n", "'global' statements"),
    ("def f(x):\n    import math\n", "import statements"),
    ("def f(x):\n    del x\n", "'del' statements"),
    ("def f(**x):\n    pass\n", "**kwargs and keyword-only parameters"),
    ("def f(x):\n    return (y := x)\n", "':=' expression"),
    ("def f(x):\n    return lambda: x\n", "'lambda'"),
    ("def f(x):\n    raise ValueError from x\n", "raise ... from"),
])
def test_unsupported_syntax(src, what):
    ns = _exec_source(src, f"<cudalite-unsupported-{abs(hash(src))}>")
    with pytest.raises(UnsupportedError) as info:
        build_ir(ns["f"])
    err = info.value
    assert what in err.msg
    assert err.loc is not None and err.loc.line >= 1
    assert str(err).startswith(f"{err.loc.filename}:{err.loc.line}:{err.loc.col + 1}")


def test_slices_become_slice_expressions():
    from cudalite.core.frontend import build_ir

    def f(a, i):
        return a[1:i:2, i, ::-1]

    ret = build_ir(f).body[0]
    index = ret.value.index
    assert isinstance(index, ir.TupleExpr)
    first, second, third = index.items
    assert isinstance(first, ir.SliceExpr) and first.lower.value == 1 and first.step.value == 2
    assert isinstance(second, ir.Var)
    assert isinstance(third, ir.SliceExpr) and third.lower is None and third.upper is None
