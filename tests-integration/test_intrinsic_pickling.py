"""Pickling ``@intrinsic`` objects without a GPU, with numba's ``_Intrinsic`` semantics
(numba-cuda's ``TestIntrinsic.test_serialization``/``test_deserialization``): a local
intrinsic pickles by value with plain ``pickle`` (its typing function nested as a
cloudpickle stream), alone or inside a kernel's pickle; the process that pickled gets
the same object back (``_memo``), and the last ones stay alive (``_recent``)."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

from cudalite import cuda
from cudalite.cuda import types
from cudalite.cuda.extending import _Intrinsic, intrinsic
from cudalite.nvvm.extending._intrinsic import _rebuild

CC = (8, 0)


def _identity():
    @intrinsic
    def identity(context, x):
        def codegen(context, builder, signature, args):
            return args[0]

        return x(x), codegen

    return identity


def test_local_intrinsic_in_a_kernel_pickle_and_alone():
    identity = _identity()

    @cuda.jit("void(int64[:], int64)")
    def foo(r, x):
        r[0] = identity(x) + 1

    sig = (types.int64[:], types.int64)
    expected = foo.inspect_asm(sig)
    memo = _Intrinsic._memo
    size = len(memo)
    data = pickle.dumps(foo)
    assert len(memo) == size + 1  # the intrinsic got an id
    rebuilt = pickle.loads(data)
    assert len(memo) == size + 1
    assert rebuilt.py_func.__closure__[0].cell_contents is identity  # the live one of that id
    assert rebuilt.inspect_asm(sig) == expected
    assert pickle.loads(pickle.dumps(identity)) is identity
    assert len(memo) == size + 1


def test_unpickled_where_the_intrinsic_is_gone_rebuilds_it():
    def defn(context, x):
        def codegen(context, builder, signature, args):
            return args[0]

        return x(x), codegen

    _Intrinsic._recent.clear()  # what earlier tests pickled goes now, not inside the counts below
    memo = _Intrinsic._memo
    size = len(memo)
    original = _Intrinsic("foo", defn)  # not through @intrinsic: nothing else refers to it
    assert original._defn is defn
    data = pickle.dumps(original)
    assert len(memo) == size + 1
    del original
    assert len(memo) == size + 1  # kept alive by _recent
    _Intrinsic._recent.clear()
    assert len(memo) == size
    rebuilt = pickle.loads(data)
    assert rebuilt._defn is not defn and rebuilt._name == "foo"
    second = pickle.loads(data)
    assert second is rebuilt and second._defn is rebuilt._defn

    def k(r, n):
        r[0] = rebuilt(n)

    ptx, _ = cuda.compile_ptx(k, (types.int64[:], types.int64), cc=CC)
    assert "st.global.u64" in ptx


def test_recent_is_bounded():
    keep = [_Intrinsic(f"f{i}", lambda context, x: None) for i in range(200)]
    try:
        for f in keep:
            pickle.dumps(f)
        assert len(_Intrinsic._recent) == _Intrinsic._recent.maxlen == 128
        assert _Intrinsic._recent[-1] is keep[-1]
    finally:  # a full _recent would make other tests' memo counts drift (an old entry evicted per new one)
        _Intrinsic._recent.clear()


def test_intrinsic_unpickled_in_another_process_compiles(tmp_path):
    """Another process has no intrinsic of that id (nor the test's module): the typing
    function travels by value and the call compiles there."""
    data = tmp_path / "k.pkl"
    identity = _identity()

    @cuda.jit("void(int64[:], int64)")
    def foo(r, x):
        r[0] = identity(x) * 3

    data.write_bytes(pickle.dumps(foo))
    code = ("import pickle, sys\nfrom cudalite.cuda import types\n"
            "k = pickle.loads(open(sys.argv[1], 'rb').read())\n"
            "print('mul.lo.s64' in k.inspect_asm((types.int64[:], types.int64)))\n")
    out = subprocess.run([sys.executable, "-c", code, str(data)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_malformed_intrinsic_pickles_are_refused():
    with pytest.raises(pickle.UnpicklingError, match="@intrinsic is malformed .*id and name are not strings"):
        _rebuild(3, "f", b"", False)
    with pytest.raises(pickle.UnpicklingError, match="@intrinsic is malformed .*typing function is a int"):
        _rebuild("no-such-id", "f", 3, False)
