"""Pickling dispatchers (GPU-less): by reference when their module names them, by value
otherwise (local functions, closures), to a dispatcher that compiles to the same code."""

from __future__ import annotations

import math
import pickle
import sys

import pytest

from cudalite import cuda
from cudalite.cuda import types

SCALE = 3


def _local_kernel(offset):
    @cuda.jit(device=True)
    def inner(a):
        return a + offset

    @cuda.jit("void(intp[:])")
    def foo(arr):
        arr[0] = inner(arr[0]) * SCALE + int(math.sqrt(4.0))

    return foo


def test_local_kernel_pickles_by_value():
    foo = _local_kernel(7)
    sig = (types.intp[:],)
    expected = foo.inspect_asm(sig)
    for _ in range(2):  # a rebuilt dispatcher pickles again
        foo2 = pickle.loads(pickle.dumps(foo))
        assert foo2 is not foo and type(foo2) is type(foo)
        assert foo2.options == foo.options and foo2._sigs == ("void(intp[:])",)
        assert foo2.inspect_asm(sig) == expected
        inner = foo2.py_func.__closure__[0].cell_contents
        assert type(inner).__name__ == "DeviceDispatcher" and inner.py_func.__closure__[0].cell_contents == 7
        assert foo2.py_func.__globals__["math"] is math  # modules travel by name
        foo = foo2


def test_closure_values_are_part_of_the_pickle():
    a, b = pickle.loads(pickle.dumps(_local_kernel(1))), pickle.loads(pickle.dumps(_local_kernel(2)))
    sig = (types.intp[:],)
    assert a.inspect_llvm(sig) != b.inspect_llvm(sig)


def test_module_level_dispatcher_pickles_by_reference(tmp_path, monkeypatch):
    (tmp_path / "cl_pickle_mod.py").write_text(
        "from cudalite import cuda\n\n@cuda.jit\ndef kern(r):\n    r[0] = 1\n\n"
        "@cuda.jit(device=True)\ndef dev(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        import cl_pickle_mod

        for d in (cl_pickle_mod.kern, cl_pickle_mod.dev):
            data = pickle.dumps(d)
            assert b"cl_pickle_mod" in data and len(data) < 100  # a name, not the code
            assert pickle.loads(data) is d
    finally:
        sys.modules.pop("cl_pickle_mod", None)


def test_recursive_local_kernel_refers_to_its_rebuilt_self():
    def make():
        @cuda.jit(device=True)
        def fact(n):
            return 1 if n <= 1 else n * fact(n - 1)

        return fact

    fact = make()
    again = pickle.loads(pickle.dumps(fact))
    assert again.py_func.__closure__[0].cell_contents is again


def test_unpicklable_globals_still_refuse():
    lock = __import__("threading").Lock()

    @cuda.jit
    def k(r):
        r[0] = 1 if lock else 0

    with pytest.raises(TypeError):
        pickle.dumps(k)


def test_main_module_dispatcher_pickles_by_value(tmp_path):
    """A kernel of a script (``__main__``) travels by value: a Dask worker or MPI rank
    has another ``__main__``, where a reference would find nothing."""
    import subprocess

    script = tmp_path / "script.py"
    script.write_text(
        "import pickle, sys\nfrom cudalite import cuda\n\nK = 5\n\n\ndef helper(x):\n    return x + K\n\n\n"
        "@cuda.jit\ndef kern(r):\n    r[0] = helper(r[0])\n\n\n"
        "sys.stdout.buffer.write(pickle.dumps(kern))\n")
    data = subprocess.run([sys.executable, str(script)], capture_output=True, check=True, timeout=120).stdout
    k = pickle.loads(data)  # here __main__ is pytest's: nothing named kern
    assert type(k).__name__ == "CUDADispatcher" and k.py_func.__module__ == "__main__"
    assert k.py_func.__globals__["helper"](1) == 6  # a __main__ function travels by value too
    assert "ld.param" in k.compile_ptx_for((types.intp[::1],), cc=(8, 0))
