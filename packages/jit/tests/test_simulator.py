"""The CPU simulator (cudalite.cuda.simulator): kernels run as Python threads on the
CPU; results are compared with NumPy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cudalite.cuda import simulator as cuda
from cudalite import types


def test_vector_add_and_forall():
    @cuda.jit("void(float32[:], float32[:], float32[:])")
    def add(a, b, c):
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]

    rng = np.random.default_rng(0)
    a, b = rng.random(100, dtype=np.float32), rng.random(100, dtype=np.float32)
    c = np.zeros_like(a)
    add[4, 32](a, b, c)  # NumPy arrays are used in place
    np.testing.assert_array_equal(c, a + b)
    d_c = cuda.device_array_like(c)
    add.forall(c.size)(cuda.to_device(a), cuda.to_device(b), d_c)
    np.testing.assert_array_equal(d_c.copy_to_host(), a + b)


def test_2d_grid_indexing():
    @cuda.jit
    def fill(out):
        x, y = cuda.grid(2)
        w, h = cuda.gridsize(2)
        if x < out.shape[0] and y < out.shape[1]:
            out[x, y] = x * 1000 + y + (w * h) * 0 + cuda.blockIdx.y * 0

    out = np.zeros((6, 5), dtype=np.int64)
    fill[(2, 3), (3, 2)](out)
    xs, ys = np.indices(out.shape)
    np.testing.assert_array_equal(out, xs * 1000 + ys)


def test_3d_indices_and_dims():
    @cuda.jit
    def record(out):
        t = cuda.threadIdx
        i = t.x + cuda.blockDim.x * (t.y + cuda.blockDim.y * t.z)
        out[cuda.blockIdx.x, i, 0] = t.x
        out[cuda.blockIdx.x, i, 1] = t.y
        out[cuda.blockIdx.x, i, 2] = t.z
        out[cuda.blockIdx.x, i, 3] = cuda.gridDim.x

    out = np.zeros((2, 12, 4), dtype=np.int32)
    record[2, (2, 3, 2)](out)
    z, y, x = np.unravel_index(np.arange(12), (2, 3, 2))
    for b in range(2):
        np.testing.assert_array_equal(out[b, :, 0], x)
        np.testing.assert_array_equal(out[b, :, 1], y)
        np.testing.assert_array_equal(out[b, :, 2], z)
    assert (out[:, :, 3] == 2).all()


def test_shared_memory_block_reduction():
    tpb = 64

    @cuda.jit
    def block_sum(a, out):
        sm = cuda.shared.array(tpb, dtype=types.float64)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        sm[t] = a[i] if i < a.size else 0.0
        cuda.syncthreads()
        s = tpb // 2
        while s > 0:
            if t < s:
                sm[t] += sm[t + s]
            cuda.syncthreads()
            s //= 2
        if t == 0:
            out[cuda.blockIdx.x] = sm[0]

    a = np.arange(200, dtype=np.float64)
    out = np.zeros(4)
    block_sum[4, tpb](a, out)
    expected = np.array([a[i * tpb:(i + 1) * tpb].sum() for i in range(4)])
    np.testing.assert_allclose(out, expected)


def test_syncthreads_count_and_or():
    @cuda.jit
    def k(out):
        t = cuda.threadIdx.x
        out[0] = cuda.syncthreads_count(t % 3 == 0)
        out[1] = cuda.syncthreads_and(t < 100)
        out[2] = cuda.syncthreads_or(t == 5)
        out[3] = cuda.syncthreads_and(t < 5)

    out = np.zeros(4, dtype=np.int32)
    k[1, 40](out)
    np.testing.assert_array_equal(out, [len(range(0, 40, 3)), 1, 1, 0])


def test_early_return_does_not_block_syncthreads():
    @cuda.jit
    def k(a):
        t = cuda.threadIdx.x
        if t >= 10:
            return
        sm = cuda.shared.array(16, np.int32)
        sm[t] = t
        cuda.syncthreads()
        a[t] = sm[9 - t]

    a = np.zeros(10, dtype=np.int32)
    k[1, 32](a)
    np.testing.assert_array_equal(a, np.arange(10)[::-1])


def test_atomics_histogram_and_ops():
    @cuda.jit
    def hist(data, bins):
        i = cuda.grid(1)
        if i < data.size:
            cuda.atomic.add(bins, data[i], 1)

    data = np.random.default_rng(1).integers(0, 8, size=300)
    bins = np.zeros(8, dtype=np.int32)
    hist[5, 64](data, bins)
    np.testing.assert_array_equal(bins, np.bincount(data, minlength=8))

    @cuda.jit
    def ops(vals, res, olds):
        i = cuda.grid(1)
        if i < vals.size:
            cuda.atomic.max(res, 0, vals[i])
            cuda.atomic.min(res, 1, vals[i])
            cuda.atomic.sub(res, 2, vals[i])
            cuda.atomic.or_(res, (3,), 1 << (i % 8))
            cuda.atomic.inc(res, 4, 5)
        if i == 0:
            olds[0] = cuda.atomic.exch(res, 5, 42)
            olds[1] = cuda.atomic.cas(res, 6, 7, 9)
            olds[2] = cuda.atomic.compare_and_swap(res[7:], 0, 11)

    vals = np.random.default_rng(2).integers(-50, 50, size=40)
    res = np.array([-1000, 1000, 0, 0, 0, 3, 7, 0], dtype=np.int64)
    olds = np.zeros(3, dtype=np.int64)
    ops[2, 32](vals, res, olds)
    assert res[0] == vals.max() and res[1] == vals.min() and res[2] == -vals.sum()
    assert res[3] == 0xFF and res[4] == 40 % 6 and res[5] == 42 and res[6] == 9 and res[7] == 11
    np.testing.assert_array_equal(olds, [3, 7, 0])


def test_warp_shuffle_reduction_and_ballot():
    @cuda.jit
    def warp_sum(a, sums, ballots, lanes):
        i = cuda.grid(1)
        v = a[i]
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
            off //= 2
        lane = cuda.threadIdx.x % cuda.warpsize
        b = cuda.ballot_sync(0xFFFFFFFF, a[i] % 2 == 1)
        lanes[i] = cuda.laneid
        if lane == 0:
            sums[i // 32] = v
            ballots[i // 32] = b

    a = np.random.default_rng(3).integers(0, 100, size=64).astype(np.int64)
    sums, ballots, lanes = np.zeros(2, np.int64), np.zeros(2, np.int64), np.zeros(64, np.int64)
    warp_sum[1, 64](a, sums, ballots, lanes)
    np.testing.assert_array_equal(sums, a.reshape(2, 32).sum(axis=1))
    expect = [sum(1 << j for j in range(32) if a[w * 32 + j] % 2) for w in range(2)]
    np.testing.assert_array_equal(ballots, expect)
    np.testing.assert_array_equal(lanes, np.arange(64) % 32)


def test_warp_votes_shuffles_and_match():
    @cuda.jit
    def k(a, out):
        t = cuda.threadIdx.x
        out[t, 0] = cuda.shfl_sync(0xFFFFFFFF, a[t], 3)
        out[t, 1] = cuda.shfl_up_sync(0xFFFFFFFF, a[t], 1)
        out[t, 2] = cuda.shfl_xor_sync(0xFFFFFFFF, a[t], 1)
        out[t, 3] = cuda.all_sync(0xFFFFFFFF, a[t] >= 0)
        out[t, 4] = cuda.any_sync(0xFFFFFFFF, a[t] == 7)
        out[t, 5] = cuda.eq_sync(0xFFFFFFFF, a[t] > 100)
        out[t, 6] = cuda.match_any_sync(0xFFFFFFFF, a[t] % 4)
        out[t, 7] = cuda.activemask()
        cuda.syncwarp()

    a = np.arange(32, dtype=np.int64)
    out = np.zeros((32, 8), dtype=np.int64)
    k[1, 32](a, out)
    np.testing.assert_array_equal(out[:, 0], np.full(32, a[3]))
    np.testing.assert_array_equal(out[:, 1], np.concatenate([[a[0]], a[:-1]]))
    np.testing.assert_array_equal(out[:, 2], a ^ 1)
    assert (out[:, 3] == 1).all() and (out[:, 4] == 1).all() and (out[:, 5] == 1).all()
    expect = [sum(1 << j for j in range(32) if j % 4 == i % 4) for i in range(32)]
    np.testing.assert_array_equal(out[:, 6], expect)
    assert (out[:, 7] == 0xFFFFFFFF).all()


def test_grid_sync_two_phase():
    @cuda.jit
    def two_phase(a, out):
        g = cuda.cg.this_grid()
        i = cuda.grid(1)
        a[i] = i * 2
        g.sync()
        n = cuda.gridsize(1)
        out[i] = a[(i + 1) % n] + a[(i + n - 1) % n]

    n = 4 * 16
    a, out = np.zeros(n, np.int64), np.zeros(n, np.int64)
    two_phase[4, 16](a, out)
    ref = np.arange(n) * 2
    np.testing.assert_array_equal(out, np.roll(ref, -1) + np.roll(ref, 1))


def test_grid_sync_thread_cap():
    @cuda.jit
    def k(a):
        cuda.cg.this_grid().sync()

    with pytest.raises(ValueError, match="at most"):
        k[1000, 1024](np.zeros(1))


def test_dynamic_shared_memory():
    @cuda.jit
    def reverse(a):
        dyn = cuda.shared.array(0, dtype=np.float32)
        t = cuda.threadIdx.x
        dyn[t] = a[t]
        cuda.syncthreads()
        a[t] = dyn[cuda.blockDim.x - 1 - t]

    a = np.arange(48, dtype=np.float32)
    ref = a[::-1].copy()
    reverse[1, 48, 0, 48 * 4](a)
    np.testing.assert_array_equal(a, ref)


def test_device_functions_local_and_const_arrays():
    @cuda.jit(device=True)
    def poly(x, coeffs):
        acc = 0.0
        for c in coeffs:
            acc = acc * x + c
        return acc

    @cuda.jit("float64(float64)", device=True)
    def square(x):
        return x * x

    host_coeffs = np.array([1.0, -2.0, 3.0])

    @cuda.jit(debug=True, opt=False, fastmath=True, lineinfo=True, cache=True)
    def k(xs, out):
        coeffs = cuda.const.array_like(host_coeffs)
        tmp = cuda.local.array(3, types.float64)
        i = cuda.grid(1)
        if i < xs.size:
            for j in range(3):
                tmp[j] = coeffs[j]
            out[i] = square(poly(xs[i], tmp)) + cuda.fma(2.0, 3.0, 1.0) + math.sqrt(4.0)

    xs = np.linspace(-1, 1, 20)
    out = np.zeros_like(xs)
    k[1, 32](xs, out)
    np.testing.assert_allclose(out, np.polyval(host_coeffs, xs) ** 2 + 7.0 + 2.0)
    assert poly(2.0, host_coeffs) == np.polyval(host_coeffs, 2.0)  # callable on the host too


def test_bit_intrinsics():
    @cuda.jit
    def k(x, out):
        out[0] = cuda.popc(x[0])
        out[1] = cuda.clz(x[0])
        out[2] = cuda.ffs(x[0])
        out[3] = cuda.brev(x[1])
        out[4] = cuda.selp(x[0] > 0, 5, 6)

    x = np.array([0b1011000, 1], dtype=np.uint32)
    out = np.zeros(5, dtype=np.uint64)
    k[1, 1](x, out)
    v = int(x[0])
    np.testing.assert_array_equal(out, [bin(v).count("1"), 32 - v.bit_length(), 4, 1 << 31, 5])
    assert float(cuda.fp16.hadd(np.float16(1.5), np.float16(2.25))) == 3.75


def test_host_api_round_trips():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    d = cuda.to_device(a)
    assert d.shape == a.shape and d.dtype == a.dtype and d.size == 12 and d.ndim == 2 and d.strides == a.strides
    np.testing.assert_array_equal(d.copy_to_host(), a)
    host = np.empty_like(a)
    d.copy_to_host(host, stream=0)
    np.testing.assert_array_equal(host, a)
    d.copy_to_device(a * 2)
    np.testing.assert_array_equal(d[1].copy_to_host(), a[1] * 2)
    assert d[2, 3] == 22
    d[0, 0] = 99
    assert d.copy_to_host()[0, 0] == 99
    e = cuda.device_array((2, 2), dtype=np.float32)
    assert e.shape == (2, 2) and e.dtype == np.float32
    assert cuda.device_array(4, dtype=types.int16).dtype == np.int16
    for alloc in (cuda.pinned_array, cuda.mapped_array, cuda.managed_array):
        assert alloc(5, dtype=np.float64).shape == (5,)
    s = cuda.stream()
    with s.auto_synchronize():
        d2 = cuda.to_device(a, stream=s)
    s.synchronize()
    ev = cuda.event()
    ev.record(s)
    ev.synchronize()
    cuda.synchronize()
    assert cuda.is_available() and cuda.detect()
    dev = cuda.get_current_device()
    assert dev.compute_capability and cuda.select_device(0) is dev and len(cuda.gpus) == 1
    assert cuda.is_cuda_array(d2) and not cuda.is_cuda_array(a)
    free, total = cuda.current_context().get_memory_info()
    assert 0 < free <= total

    @cuda.jit
    def twice(x):
        i, j = cuda.grid(2)
        if i < x.shape[0] and j < x.shape[1]:
            x[i, j] *= 2

    twice[(1, 1), (4, 4), s, 0](d2)
    np.testing.assert_array_equal(d2.copy_to_host(), a * 2)


def test_exception_propagates_with_kernel_and_thread():
    @cuda.jit
    def bad(a):
        cuda.syncthreads()
        if cuda.threadIdx.x == 3 and cuda.blockIdx.x == 1:
            raise ValueError("boom")
        cuda.syncthreads()  # the other threads must be released, not hang

    with pytest.raises(ValueError) as info:
        bad[2, 8](np.zeros(1))
    msg = str(info.value)
    assert "bad" in msg and "boom" in msg and "tid=[3, 0, 0]" in msg and "ctaid=[1, 0, 0]" in msg

    @cuda.jit
    def oob(a):
        a[cuda.threadIdx.x] = 1

    with pytest.raises(IndexError, match="oob"):
        oob[1, 8](np.zeros(4))


def test_divergent_barrier_is_reported_not_hung():
    @cuda.jit
    def k(a):
        if cuda.threadIdx.x == 0:
            cuda.syncwarp(0x3)
        else:
            cuda.syncthreads()

    with pytest.raises(RuntimeError, match="deadlock"):
        k[1, 2](np.zeros(1))

    @cuda.jit
    def not_in_mask(a):
        cuda.syncwarp(0x1 if cuda.threadIdx.x else 0x3)

    with pytest.raises(RuntimeError, match="does not name the calling lane"):
        not_in_mask[1, 2](np.zeros(1))


def test_kernels_needing_codegen_can_be_defined():
    # a module that declares a linked or cluster kernel imports under the simulator
    @cuda.jit(cluster_dims=(2,))
    def k(a):
        pass

    with pytest.raises(NotImplementedError, match="thread-block clusters"):
        k[2, 1](np.zeros(1))


@pytest.mark.parametrize("name", ["inline_ptx", "declare_device", "compile_ptx", "make_tensor_map", "open_ipc_array",
                                  "carray", "guvectorize"])
def test_unsupported_names_raise_not_implemented(name):
    with pytest.raises(NotImplementedError, match="simulator"):
        getattr(cuda, name)()


@pytest.mark.parametrize("expr", ["cuda.mma.ldmatrix()", "cuda.pipeline.commit()", "cuda.tma.load()",
                                  "cuda.mbarrier.init()", "cuda.cg.this_cluster()",
                                  "cuda.jit(link=['x.cu'])(lambda a: None)[1, 1](0)",
                                  "cuda.jit(link=['x.cu'], device=True)(lambda a: a)(0)",
                                  "cuda.stream().capture()", "cuda.HostOnlyCUDAMemoryManager()",
                                  "type('EMM', (cuda.HostOnlyCUDAMemoryManager,), {})()",
                                  "cuda.jit(cluster_dims=(2,))(lambda a: None)[1, 1](0)"])
def test_unsupported_features_raise_not_implemented(expr):
    with pytest.raises(NotImplementedError, match="cannot be simulated"):
        eval(expr, {"cuda": cuda})


def test_unsupported_call_inside_kernel():
    @cuda.jit
    def k(a):
        cuda.inline_ptx("mov.u32 %0, 1;", "=r", types.uint32)

    with pytest.raises(NotImplementedError, match="inline PTX"):
        k[1, 2](np.zeros(1))


def test_every_device_api_name_is_provided():
    from cudalite.core.device_api import DEVICE_API_NAMES

    missing = [n for n in DEVICE_API_NAMES if n != "laneid" and not hasattr(cuda, n)]
    assert missing == []


def test_device_api_outside_kernel_is_an_error():
    with pytest.raises(RuntimeError, match="inside a kernel"):
        cuda.threadIdx.x
    with pytest.raises(RuntimeError, match="inside a kernel"):
        cuda.syncthreads()


def test_launch_configuration_errors():
    @cuda.jit
    def k(a):
        pass

    with pytest.raises(ValueError, match="launch configuration"):
        k(np.zeros(1))
    with pytest.raises(ValueError, match="1024"):
        k[1, 2048](np.zeros(1))
    with pytest.raises(ValueError):
        k[1, (0,)](np.zeros(1))


def test_reduce_and_vectorize():
    a = np.arange(10, dtype=np.float64)
    assert cuda.reduce(lambda x, y: x + y)(a) == a.sum()
    assert cuda.Reduce(lambda x, y: max(x, y))(a, init=-1.0) == a.max()

    @cuda.vectorize(["float32(float32, float32)"])
    def hyp(x, y):
        return math.sqrt(x * x + y * y)

    x = np.arange(5, dtype=np.float32)
    out = hyp(x, x)
    np.testing.assert_allclose(out, np.hypot(x, x), rtol=1e-6)
    assert out.dtype == np.float32


def test_sync_free_kernels_run_sequentially_others_concurrently():
    from cudalite.cuda.simulator.analysis import analyze

    @cuda.jit(device=True)
    def helper(a, i):
        cuda.syncthreads()
        a[i] = 1

    def plain(a):
        a[cuda.grid(1)] = math.sin(1.0) + np.float32(2)

    def with_helper(a):
        helper(a, cuda.grid(1))

    def with_pytest(a):
        pytest.approx(1)

    def with_grid(a):
        cuda.cg.this_grid().sync()

    sync = cuda.syncthreads
    this_grid = cuda.cg.this_grid

    def renamed(a):
        sync()

    def renamed_grid(a):
        this_grid().sync()

    assert not analyze(plain).concurrent
    assert analyze(renamed).concurrent and analyze(renamed_grid).grid_sync
    assert analyze(with_helper).concurrent and not analyze(with_helper).grid_sync
    assert analyze(with_pytest).concurrent  # a module the scan cannot see into
    assert analyze(with_grid).grid_sync

    k = cuda.jit(plain)
    a = np.zeros(2048)
    k[16, 128](a)  # 2048 threads, fast: one after another in this thread
    np.testing.assert_allclose(a, math.sin(1.0) + 2)


def test_print_in_kernel(capsys):
    @cuda.jit
    def hello():
        print("hello from", cuda.threadIdx.x, cuda.blockIdx.x)

    hello[2, 2]()
    lines = sorted(capsys.readouterr().out.splitlines())
    assert lines == ["hello from 0 0", "hello from 0 1", "hello from 1 0", "hello from 1 1"]


def test_structured_array_fields():
    rec = np.dtype([("x", np.float64), ("n", np.int32)])

    @cuda.jit
    def k(r):
        i = cuda.grid(1)
        if i < r.size:
            r[i].x = i * 0.5
            r[i]["n"] = i

    r = np.zeros(5, dtype=rec)
    k[1, 8](r)
    np.testing.assert_array_equal(r["x"], np.arange(5) * 0.5)
    np.testing.assert_array_equal(r["n"], np.arange(5))


def test_device_array_operators():
    a = np.arange(4.0)
    d = cuda.to_device(a)
    np.testing.assert_array_equal(d == a, np.ones(4, bool))
    np.testing.assert_array_equal(d + 1, a + 1)
    np.testing.assert_array_equal(d * d, a * a)
    np.testing.assert_array_equal(-d, -a)
    np.testing.assert_array_equal(np.asarray(d[1:3]), a[1:3])


def test_barrier_hidden_from_the_scan_is_reported():
    from cudalite.cuda.simulator import intrinsics

    table = {"sync": intrinsics.syncthreads}  # reached through a dict: invisible to the code scan

    @cuda.jit
    def k(a):
        table["sync"]()

    with pytest.raises(RuntimeError, match="one thread at a time"):
        k[1, 4](np.zeros(1))


def test_grid_sync_error_releases_every_block():
    @cuda.jit
    def k(a):
        g = cuda.cg.this_grid()
        if cuda.blockIdx.x == 1 and cuda.threadIdx.x == 0:
            raise KeyError("late")
        g.sync()
        a[cuda.grid(1)] = 1

    with pytest.raises(KeyError, match="ctaid=\\[1, 0, 0\\]"):
        k[3, 8](np.zeros(24))


def test_shared_array_is_per_block_and_per_call_site():
    @cuda.jit
    def k(out):
        a = cuda.shared.array(1, np.int64)
        b = cuda.shared.array(1, np.int64)
        if cuda.threadIdx.x == 0:
            a[0] = cuda.blockIdx.x + 1
            b[0] = 100
        cuda.syncthreads()
        out[cuda.grid(1)] = a[0] + b[0]

    out = np.zeros(12, np.int64)
    k[3, 4](out)
    np.testing.assert_array_equal(out, np.repeat(np.arange(1, 4), 4) + 100)


def test_events_time_the_simulation_on_the_host_clock():
    import time

    start, end = cuda.event(), cuda.event()
    start.record()
    time.sleep(0.02)
    end.record()
    ms = cuda.event_elapsed_time(start, end)
    assert 15 <= ms < 2000 and start.elapsed_time(end) == ms
    with pytest.raises(RuntimeError, match="never recorded"):
        cuda.event_elapsed_time(cuda.event(), end)
    with pytest.raises(RuntimeError, match="timing=False"):
        cuda.event_elapsed_time(cuda.event(timing=False), end)
