"""On the GPU: numba-cuda's ``TestPickle.check_call`` (a kernel calling a device
function, pickled by value, launched, pickled again, and a configured launch pickled
with its configuration), pre-launch callbacks around real launches, and a local
``@intrinsic`` in a pickled kernel."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from cudalite import cuda
from cudalite.cuda.extending import intrinsic

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("configured launches and pickling of compiled dispatchers"),
              pytest.mark.filterwarnings("ignore::cudalite.core.errors.NumbaPerformanceWarning")]


def _check_call(callee):
    arr = np.array([100])
    callee[1, 1](arr)
    expected = arr.copy()
    foo1 = pickle.loads(pickle.dumps(callee))
    arr = np.array([100])
    foo1[1, 1](arr)
    np.testing.assert_equal(arr, expected)
    foo2 = pickle.loads(pickle.dumps(foo1))
    arr = np.array([100])
    foo2[1, 1](arr)
    np.testing.assert_equal(arr, expected)
    foo3 = pickle.loads(pickle.dumps(foo2[5, 8]))
    assert (foo3.griddim, foo3.blockdim) == ((5, 1, 1), (8, 1, 1))
    arr = np.array([100])
    pickle.loads(pickle.dumps(foo2[1, 1]))(arr)
    np.testing.assert_equal(arr, expected)


@pytest.mark.parametrize("eager", [False, True])
def test_pickled_kernels_and_configured_launches_run(eager):
    @cuda.jit(device=True)
    def inner(a):
        return a + 1

    def foo(arr):
        arr[0] = inner(arr[0])

    _check_call(cuda.jit("void(intp[:])")(foo) if eager else cuda.jit(foo))


def test_pre_launch_callbacks_run_before_real_launches():
    @cuda.jit
    def add(a, x):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += x

    d = cuda.to_device(np.zeros(64))
    seen = []
    cfg = add[2, 32]
    cfg.pre_launch_callbacks.append(lambda k, c: seen.append((k, c.griddim)))  # no CUDA calls in a callback
    cfg(d, 1.0)
    cfg(d, 2.0)
    add[2, 32](d, 4.0)  # another configured launch: no callback
    cuda.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), np.full(64, 7.0))
    kernel = next(iter(add.overloads.values()))
    assert seen == [(kernel, (2, 1, 1))] * 2
    with pytest.raises(pickle.PicklingError, match="Cannot pickle configured launches with pre-launch callbacks"):
        pickle.dumps(cfg)


def test_local_intrinsic_in_a_pickled_kernel_runs():
    @intrinsic
    def identity(context, x):
        def codegen(context, builder, signature, args):
            return args[0]

        return x(x), codegen

    @cuda.jit
    def foo(r, x):
        r[0] = identity(x) * 3

    r = np.zeros(1, np.int64)
    foo[1, 1](r, 5)
    again = pickle.loads(pickle.dumps(foo))
    r2 = np.zeros(1, np.int64)
    again[1, 1](r2, 5)
    assert r[0] == r2[0] == 15
    assert pickle.loads(pickle.dumps(identity)) is identity


def test_a_launcher_held_before_the_first_call_launches_every_value():
    """``cfg = kernel[g, b]`` taken before compiling becomes the fast launcher on its first
    call; the numbers of each launch reach the kernel whether they are the objects of the
    last launch (kept in C) or new ones."""

    @cuda.jit
    def put(out, i, x, flag):
        if cuda.grid(1) == 0:
            out[i] = x if flag else -x

    cfg = put[1, 32]
    out = cuda.to_device(np.zeros(64))
    x = 2.5
    for i in range(64):
        cfg(out, i, x if i % 3 else float(i), i % 2 == 0)
    want = np.array([(2.5 if i % 3 else float(i)) * (1 if i % 2 == 0 else -1) for i in range(64)])
    np.testing.assert_array_equal(out.copy_to_host(), want)
    assert put[1, 32] is cfg


def test_threads_sharing_one_launcher_launch_their_own_numbers():
    """Threads launching through the same configured launch with numbers of their own:
    while one thread's launch is in the driver (the GIL released) the others fill their
    own parameter buffers, so every launch writes the value it was given."""
    import threading

    @cuda.jit
    def put(out, i, x):
        if cuda.grid(1) == 0:
            out[i] = x

    n_threads, per = 4, 200
    out = cuda.to_device(np.zeros(n_threads * per))
    cfg = put[1, 32]
    cfg(out, 0, 0.0)
    errors = []

    def work(t):
        try:
            for j in range(per):
                cfg(out, t * per + j, float(t * 1000 + j))
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    cuda.synchronize()
    assert errors == []
    want = np.array([float(t * 1000 + j) for t in range(n_threads) for j in range(per)])
    np.testing.assert_array_equal(out.copy_to_host(), want)
