"""Kernels pickled by value in one process and loaded in another (GPU-less): a script's
``__main__`` defines classes, an enum, a dataclass, plain helpers, device functions,
kernels (module level, closures, made in a function) and a ``vectorize`` ufunc, and
pickles them to files; its file is then removed (as on a Dask worker of another
machine, or for a notebook cell) and a second process loads them, rebuilds the
``__main__`` classes and functions (cloudpickle), and compiles each kernel to the
very PTX the first process compiles."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import textwrap

import pytest

from cudalite.core.nested_pickle import NestedStream

from cudalite import cuda

SENDER = textwrap.dedent('''
    import dataclasses, enum, json, pickle, sys
    from cudalite import cuda
    from cudalite.cuda import types

    SIG = (types.float64[::1],)


    class Cfg:
        N = 3
        SCALE = 2.5


    def helper(x):
        return x * Cfg.SCALE + Cfg.N


    class Color(enum.IntEnum):
        RED = 1
        BLUE = 4


    @dataclasses.dataclass(frozen=True)
    class Params:
        a: int = 7
        b: float = 0.5


    PARAMS = Params()


    @cuda.jit(device=True)
    def dev(x):
        return helper(x) + Cfg.N


    @cuda.jit
    def kern(r):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = dev(r[i]) + helper(1.0)


    def make_closure(offset):
        @cuda.jit
        def shifted(r):
            i = cuda.grid(1)
            if i < r.size:
                r[i] = r[i] * Cfg.SCALE + offset

        return shifted


    @cuda.jit
    def enum_dataclass(r):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = r[i] * PARAMS.b + PARAMS.a + Color.BLUE


    def build():
        @cuda.jit(device=True)
        def twice(x):
            return 2 * x - Cfg.N

        @cuda.jit
        def local_kernel(r):
            i = cuda.grid(1)
            if i < r.size:
                r[i] = twice(r[i])

        return local_kernel


    @cuda.jit(device=True)
    def inner(x):
        return x + Cfg.N


    @cuda.jit(device=True)
    def middle(x):
        return inner(x) * Cfg.SCALE


    @cuda.jit
    def nested(r):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = middle(r[i])


    @cuda.jit(device=True)
    def fact(n):
        return 1.0 if n <= 1 else n * fact(n - 1)


    @cuda.jit
    def factorials(r):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = fact(r[i])


    @cuda.vectorize(["float64(float64)"])
    def scaled(x):
        return helper(x) - Color.RED


    KERNELS = {"kern": kern, "closure": make_closure(0.25), "enum_dataclass": enum_dataclass,
               "local": build(), "nested": nested, "recursive": factorials}

    if __name__ == "__main__":
        out = sys.argv[1]
        ptx = {}
        for name, k in KERNELS.items():
            with open(f"{out}/{name}.pkl", "wb") as f:
                pickle.dump(k, f)
            ptx[name] = k.compile_ptx_for(SIG, cc=(8, 0))
        with open(f"{out}/ufunc.pkl", "wb") as f:
            pickle.dump(scaled, f)
        ptx["ufunc"] = scaled._kernel(0, 1, (False,)).compile_ptx_for(SIG * 2, cc=(8, 0))
        with open(f"{out}/ptx.json", "w") as f:
            json.dump(ptx, f)
''')

RECEIVER = textwrap.dedent('''
    import dataclasses, enum, json, pickle, sys
    from cudalite.cuda import types

    SIG = (types.float64[::1],)
    out = sys.argv[1]
    loaded, report = {}, {}
    for name in ("kern", "closure", "enum_dataclass", "local", "nested", "recursive", "ufunc"):
        with open(f"{out}/{name}.pkl", "rb") as f:
            loaded[name] = pickle.load(f)
    for name, k in loaded.items():
        if name == "ufunc":
            ptx = k._kernel(0, 1, (False,)).compile_ptx_for(SIG * 2, cc=(8, 0))
        else:
            ptx = k.compile_ptx_for(SIG, cc=(8, 0))
        report[name] = {"type": type(k).__name__, "module": k.py_func.__module__,
                        "qualname": k.py_func.__qualname__, "ptx": ptx}

    kern, ufunc = loaded["kern"], loaded["ufunc"]
    g = kern.py_func.__globals__
    dev = g["dev"]
    cfg = g["Cfg"]
    report["cfg"] = [cfg.__name__, cfg.__module__, cfg.N, cfg.SCALE]
    report["helper"] = g["helper"](2.0)
    report["same_class"] = dev.py_func.__globals__["Cfg"] is cfg is ufunc.py_func.__globals__["Cfg"]
    report["dev"] = type(dev).__name__
    eg = loaded["enum_dataclass"].py_func.__globals__
    color, params = eg["Color"], eg["PARAMS"]
    report["enum"] = [issubclass(color, enum.IntEnum), [(m.name, int(m)) for m in color]]
    report["dataclass"] = [dataclasses.is_dataclass(params), dataclasses.asdict(params)]
    report["closure_cells"] = [c.cell_contents for c in loaded["closure"].py_func.__closure__
                               if isinstance(c.cell_contents, float)]
    fact = loaded["recursive"].py_func.__globals__["fact"]
    report["fact_self"] = fact.py_func.__globals__["fact"] is fact
    report["ufunc_py"] = [ufunc.py_func(2.0), ufunc.types, ufunc.__name__]
    report["main_has_cfg"] = hasattr(sys.modules["__main__"], "Cfg")
    print(json.dumps(report))
''')


def _python(script, *args, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, env=env,
                          timeout=240, cwd=cwd)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """``(report of the receiving process, PTX of the sending one)``."""
    root = tmp_path_factory.mktemp("pickling_main")
    app, out, other = root / "app", root / "out", root / "elsewhere"
    for d in (app, out, other):
        d.mkdir()
    (app / "app.py").write_text(SENDER)
    (other / "receiver.py").write_text(RECEIVER)
    _python(app / "app.py", str(out), cwd=app)
    (app / "app.py").unlink()  # the receiver cannot read the script: the pickle carries its text
    report = json.loads(_python(other / "receiver.py", str(out), cwd=other).strip().splitlines()[-1])
    return report, json.loads((out / "ptx.json").read_text())


@pytest.mark.parametrize("name, qualname", [
    ("kern", "kern"),
    ("closure", "make_closure.<locals>.shifted"),
    ("enum_dataclass", "enum_dataclass"),
    ("local", "build.<locals>.local_kernel"),
    ("nested", "nested"),
    ("recursive", "factorials"),
    ("ufunc", "scaled"),
])
def test_receiver_compiles_the_same_code(shipped, name, qualname):
    report, ptx = shipped
    got = report[name]
    assert got["type"] == ("CUDAUFunc" if name == "ufunc" else "CUDADispatcher")
    assert (got["module"], got["qualname"]) == ("__main__", qualname)
    assert got["ptx"] == ptx[name]


def test_main_classes_and_functions_are_rebuilt(shipped):
    report, _ = shipped
    assert report["cfg"] == ["Cfg", "__main__", 3, 2.5]
    assert report["helper"] == 2.0 * 2.5 + 3
    assert report["same_class"]  # one class for every function that reads it
    assert report["dev"] == "DeviceDispatcher"
    assert not report["main_has_cfg"]  # rebuilt from the pickle, not looked up in the receiver's __main__


def test_main_enum_and_dataclass_are_rebuilt(shipped):
    report, _ = shipped
    assert report["enum"] == [True, [["RED", 1], ["BLUE", 4]]]
    assert report["dataclass"] == [True, {"a": 7, "b": 0.5}]


def test_closure_values_and_recursion_survive(shipped):
    report, _ = shipped
    assert report["closure_cells"] == [0.25]
    assert report["fact_self"]  # the recursive global names the rebuilt device function


def test_vectorize_ufunc_python_function_runs(shipped):
    report, _ = shipped
    assert report["ufunc_py"] == [2.0 * 2.5 + 3 - 1, ["d->d"], "scaled"]


def test_import_does_not_load_cloudpickle(tmp_path):
    out = _python_code("import sys, pickle; from cudalite import cuda\n"
                       "@cuda.jit\ndef k(r):\n    r[0] = 1\n"
                       "print('cloudpickle' in sys.modules, end=' ')\n"
                       "pickle.dumps(k)\nprint('cloudpickle' in sys.modules)\n", tmp_path)
    assert out.split() == ["False", "True"]  # loaded only when a by-value pickle is made


def _python_code(code, tmp_path):
    script = tmp_path / "snippet.py"
    script.write_text(code)
    return _python(script, cwd=tmp_path)


def _local():
    @cuda.jit
    def k(r):
        r[0] = 1

    return k


class _Stream:
    """Pickles as ``fn(*args)``."""

    def __init__(self, fn, args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return self.fn, self.args


@pytest.mark.parametrize("name", ["_rebuild_dispatcher", "_rebuild_ufunc"])
def test_pickle_from_an_earlier_version_is_refused_clearly(name):
    from cudalite.cuda._dispatch import pickling

    old = (type(_local()),
           (b"code", {}, "k", "k", "__main__", None, None, (), None), None, None)  # the former marshal-based form
    data = pickle.dumps(_Stream(getattr(pickling, name), old))
    with pytest.raises(pickle.UnpicklingError, match="made by an earlier cudalite version, whose by-value format "
                       "this version does not read: pickle it again with this version"):
        pickle.loads(data)


@pytest.mark.parametrize("mangle, what", [
    (lambda r, st: (("something else", *r[1:]), st), r"is malformed \(not a by-value record\)"),
    (lambda r, st: ((r[0], 99, r[2]), st), r"was made by another cudalite version \(by-value format 99, this one "
                                           r"reads 1\)"),
    (lambda r, st: (r, NestedStream(pickle.dumps("text"))), r"is malformed \(the pickled stream holds a str, not a "
                                                           r"kernel, device function or ufunc\)"),
    (lambda r, st: ((*r[:2], [("f", "x")]), st), r"is malformed \(the source texts are not a tuple\)"),
    (lambda r, st: ((*r[:2], (("f", 1),)), st), r"is malformed \(a source text is not \(file name, text\)\)"),
])
def test_malformed_record_is_an_unpickling_error(mangle, what):
    """The record (magic, format version, carried sources) is checked before the nested
    stream is opened, and what the stream holds must be a kernel."""
    from cudalite.cuda._dispatch import pickling

    fn, (record, stream) = _local().__reduce__()
    check, fields = record.__reduce__()
    assert check is pickling._check_record
    fields, stream = mangle(fields, stream)
    data = pickle.dumps(_Stream(fn, (_Stream(check, fields), stream)))
    with pytest.raises(pickle.UnpicklingError, match=r"this pickle of a CUDA kernel, device function or ufunc " + what):
        pickle.loads(data)


def test_carried_source_does_not_replace_this_process_text(tmp_path):
    """A file name this process can read keeps its own text; an unknown one gets the carried text."""
    import linecache

    from cudalite.cuda._dispatch import pickling

    mine = tmp_path / "mine.py"
    mine.write_text("x = 1\n")
    fresh = f"<cudalite-test-{id(tmp_path)}>"
    try:
        pickling._remember_sources(((str(mine), "x = 2\n"), (fresh, "y = 3\n")))
        assert linecache.getlines(str(mine)) == ["x = 1\n"] and linecache.getlines(fresh) == ["y = 3\n"]
    finally:
        linecache.cache.pop(fresh, None)
