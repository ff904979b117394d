"""cudalite.cuda kernels end to end on the GPU: @cuda.jit lazy and eager, device
functions, 1-3-D launches, streams, dynamic shared memory, forall, NumPy copy-back,
CuPy/torch arguments, record arrays, debug exceptions, faults, grid sync,
inspection and print -- results checked against NumPy."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cudalite import cuda

pytestmark = pytest.mark.gpu


def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit(device=True)
def dsq(v):
    return v * v


@cuda.jit(device=True)
def dsq_plus(v):
    return dsq(v) + 1


@cuda.jit
def apply_dev(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = dsq_plus(x[i])


@cuda.jit
def fill3d(out):
    x, y, z = cuda.grid(3)
    if x < out.shape[0] and y < out.shape[1] and z < out.shape[2]:
        out[x, y, z] = x * 10000 + y * 100 + z


@cuda.jit
def fill2d(out):
    x, y = cuda.grid(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = x * 1000 + y


@cuda.jit
def dyn_shared_reverse(out, x):
    buf = cuda.shared.array(0, np.float32)
    t = cuda.threadIdx.x
    buf[t] = x[t]
    cuda.syncthreads()
    out[t] = buf[cuda.blockDim.x - 1 - t]


@cuda.jit
def records(r, out):
    i = cuda.grid(1)
    if i < r.size:
        out[i] = r[i].x * r[i]["y"]
        r[i].x = i


@cuda.jit(debug=True, opt=False)
def raiser(a):
    i = cuda.grid(1)
    if i == 37:
        raise ValueError("bad value")
    a[i] = i


@cuda.jit(debug=True, opt=False)
def asserter(a):
    i = cuda.grid(1)
    assert a[i] < 5, "too big"


@cuda.jit
def raiser_nodebug(a):
    i = cuda.grid(1)
    if i == 1:
        raise ValueError("ignored")
    a[i] = 1


@cuda.jit
def grid_shift(buf, out, rounds):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = buf.shape[0]
    buf[i] = i
    for r in range(rounds):
        g.sync()
        v = buf[(i + 97) % n]
        g.sync()
        buf[i] = v + 1
    g.sync()
    out[i] = buf[i]


@cuda.jit
def printer(x):
    if cuda.grid(1) == 0:
        print("value", x, 42)


@pytest.mark.nosim("compiled dispatch: overloads and signature matching")
def test_lazy_saxpy_device_arrays_and_overloads():
    k = cuda.jit(saxpy)
    n = 10000
    x, y = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
    dx, dy, dout = cuda.to_device(x), cuda.to_device(y), cuda.device_array(n, np.float32)
    k[(n + 255) // 256, 256](dout, np.float32(2.5), dx, dy)
    np.testing.assert_allclose(dout.copy_to_host(), 2.5 * x + y, rtol=1e-6)
    k[(n + 255) // 256, 256](dout, 3.0, dx, dy)  # float64 scalar: a second specialization
    np.testing.assert_allclose(dout.copy_to_host(), 3.0 * x + y, rtol=1e-6)
    assert len(k.overloads) == 2
    x64 = np.random.rand(n)
    d64 = cuda.to_device(x64)
    out64 = cuda.device_array(n)
    k[40, 256](out64, 2.0, d64, d64)
    np.testing.assert_allclose(out64.copy_to_host(), 3 * x64)
    assert len(k.overloads) == 3


@pytest.mark.nosim("compiled dispatch: overloads and signature matching")
def test_eager_signature_and_conversion():
    k = cuda.jit("void(float32[:], float32, float32[:], float32[:])")(saxpy)
    assert len(k.overloads) == 1  # compiled at decoration
    x = np.arange(100, dtype=np.float32)
    dx, dout = cuda.to_device(x), cuda.device_array(100, np.float32)
    k[1, 128](dout, 2, dx, dx)  # int converts to float32; C arrays to the 'A' parameters
    np.testing.assert_allclose(dout.copy_to_host(), 3 * x)
    with pytest.raises(TypeError, match="No matching definition"):
        k[1, 128](cuda.device_array(100), 2.0, cuda.device_array(100), cuda.device_array(100))


@pytest.mark.nosim("compiled dispatch: overloads and signature matching (the simulator lets host code call device "
                   "functions)")
def test_device_functions_calling_device_functions():
    x = np.arange(50, dtype=np.float64)
    out = cuda.device_array(50)
    apply_dev[1, 64](out, cuda.to_device(x))
    np.testing.assert_allclose(out.copy_to_host(), x * x + 1)
    with pytest.raises(TypeError, match="device function"):
        dsq(2.0)


def test_2d_3d_launches():
    a = cuda.device_array((20, 30), np.int64)
    fill2d[(3, 4), (8, 8)](a)
    xi, yi = np.indices((20, 30))
    np.testing.assert_array_equal(a.copy_to_host(), xi * 1000 + yi)
    b = cuda.device_array((5, 6, 7), np.int64)
    fill3d[(2, 2, 2), (4, 4, 4)](b)
    i, j, kk = np.indices((5, 6, 7))
    np.testing.assert_array_equal(b.copy_to_host(), i * 10000 + j * 100 + kk)


@pytest.mark.nosim("launch path and driver internals (cached launch configurations)")
def test_list_launch_configurations():
    """numba accepts lists for griddim/blockdim: they launch like the tuples."""
    xi, yi = np.indices((30, 1))
    expected = xi * 1000 + yi
    for _ in range(2):  # the first launch takes the slow path, the second the generated one
        a = cuda.device_array((30, 1), np.int64)
        fill2d[[2, 1], [16, 1]](a)
        np.testing.assert_array_equal(a.copy_to_host(), expected)
    assert fill2d[[2, 1], [16, 1]] is fill2d[(2, 1), (16, 1)]
    s = cuda.stream()
    b = cuda.device_array((20, 30), np.int64, stream=s)
    fill2d[[3, 4], [8, 8], s, 0](b)
    s.synchronize()
    xi, yi = np.indices((20, 30))
    np.testing.assert_array_equal(b.copy_to_host(), xi * 1000 + yi)
    spec = fill2d.specialize(b)
    c = cuda.device_array((20, 30), np.int64)
    spec[[3, 4], [8, 8]](c)
    np.testing.assert_array_equal(c.copy_to_host(), xi * 1000 + yi)


def test_streams_and_dynamic_shared_memory():
    s = cuda.stream()
    x = np.random.rand(256).astype(np.float32)
    dx = cuda.to_device(x, stream=s)
    out = cuda.device_array(256, np.float32, stream=s)
    dyn_shared_reverse[1, 256, s, 256 * 4](out, dx)
    s.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), x[::-1])
    out2 = cuda.device_array(256, np.float32)
    dyn_shared_reverse[1, 256, 0, 64 * 1024](out2, dx)  # > 48 KiB: the attribute is raised
    np.testing.assert_array_equal(out2.copy_to_host(), x[::-1])



@cuda.jit
def big_shared_rotate(out, x, n):
    """Every element of ``x`` through dynamic shared memory, read back rotated by one
    block width, so every byte of the buffer is written and read."""
    buf = cuda.shared.array(0, np.float32)
    t, nt = cuda.threadIdx.x, cuda.blockDim.x
    for i in range(t, n, nt):
        buf[i] = x[i]
    cuda.syncthreads()
    for i in range(t, n, nt):
        out[i] = buf[(i + nt) % n]


@pytest.mark.nosim("launch path and driver internals (opt-in shared memory limit)")
def test_200_kib_of_dynamic_shared_memory_and_the_limit():
    dev = cuda.get_current_device()
    if dev.compute_capability < (8, 0):
        pytest.skip("200 KiB of shared memory per block needs cc >= 8.0")
    nbytes = 200 * 1024
    n = nbytes // 4
    x = np.random.rand(n).astype(np.float32)
    out = cuda.device_array(n, np.float32)
    big_shared_rotate[1, 1024, 0, nbytes](out, cuda.to_device(x), n)
    np.testing.assert_array_equal(out.copy_to_host(), np.roll(x, -1024))
    from cudalite.driver import Device

    optin = Device(dev.id).attribute("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")
    with pytest.raises(ValueError, match=rf"'big_shared_rotate' asks for {optin + 1024} bytes of dynamic shared "
                                         rf"memory; device {dev.id} allows at most {optin} per block"):
        big_shared_rotate[1, 1024, 0, optin + 1024](out, cuda.to_device(x), n)
    big_shared_rotate[1, 1024, 0, optin](out, cuda.to_device(x), n)  # exactly the limit: still launches
    cuda.synchronize()

def test_forall():
    k = cuda.jit(saxpy)
    n = 100001
    x = np.random.rand(n)
    dx, dout = cuda.to_device(x), cuda.device_array(n)
    k.forall(n)(dout, 2.0, dx, dx)
    np.testing.assert_allclose(dout.copy_to_host(), 3 * x)


@pytest.mark.nosim("launch path and driver internals (implicit copies and their performance warning)")
def test_numpy_arrays_copied_back_with_warning():
    k = cuda.jit(saxpy)
    x = np.random.rand(1000)
    out = np.zeros(1000)
    with pytest.warns(cuda.NumbaPerformanceWarning, match="Host array"):
        k[4, 256](out, 2.0, x, x)
    np.testing.assert_allclose(out, 3 * x)


@pytest.mark.nosim("foreign device arrays: CUDA array interface and DLPack need real device pointers")
def test_cupy_and_torch_arguments():
    cp = pytest.importorskip("cupy")
    k = cuda.jit(saxpy)
    x = cp.random.rand(5000, dtype=cp.float32)
    out = cp.zeros(5000, cp.float32)
    k[20, 256](out, np.float32(2), x, x)
    np.testing.assert_allclose(cp.asnumpy(out), 3 * cp.asnumpy(x), rtol=1e-6)
    s = cp.cuda.Stream(non_blocking=True)
    with s:  # CAI v3: the launch stream waits for CuPy's current stream
        y = x * 2
        k[20, 256](out, np.float32(1), y, x)
    cuda.synchronize()
    np.testing.assert_allclose(cp.asnumpy(out), 3 * cp.asnumpy(x), rtol=1e-6)
    torch = pytest.importorskip("torch")
    t = torch.rand(5000, device="cuda", dtype=torch.float64)
    tout = torch.zeros(5000, device="cuda", dtype=torch.float64)
    torch.cuda.synchronize()
    k[20, 256](tout, 2.0, t, t)
    cuda.synchronize()
    np.testing.assert_allclose(tout.cpu().numpy(), 3 * t.cpu().numpy())
    m = torch.rand(30, 40, device="cuda", dtype=torch.float64)[:, ::2]  # strided: layout 'A'
    mo = torch.zeros(30, 20, device="cuda", dtype=torch.float64)

    @cuda.jit
    def copy2d(o, a):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            o[i, j] = a[i, j]

    copy2d[(4, 4), (8, 8)](mo, m)
    cuda.synchronize()
    np.testing.assert_array_equal(mo.cpu().numpy(), m.cpu().numpy())
    with pytest.raises(TypeError, match="CUDA device"):
        k[1, 1](torch.zeros(3, dtype=torch.float64), 1.0, t, t)


def test_record_arrays():
    rec = np.dtype([("x", np.float64), ("y", np.float64)])
    r = np.zeros(10, rec)
    r["x"], r["y"] = np.arange(10), 2.0
    dr = cuda.to_device(r)
    out = cuda.device_array(10)
    records[1, 32](dr, out)
    np.testing.assert_allclose(out.copy_to_host(), np.arange(10) * 2.0)
    np.testing.assert_allclose(dr.copy_to_host()["x"], np.arange(10))


@pytest.mark.nosim("compiled-code error semantics: the simulated kernel raises Python's own errors")
def test_debug_exceptions_surface():
    a = cuda.device_array(64, np.int64)
    with pytest.raises(ValueError, match=r"tid=\[37, 0, 0\] ctaid=\[0, 0, 0\]: bad value"):
        raiser[1, 64](a)
    raiser[1, 30](a)  # the status was reset: no raise now
    b = cuda.to_device(np.array([1, 2, 9, 3], np.int64))
    with pytest.raises(AssertionError, match=r"tid=\[2, 0, 0\].*too big"):
        asserter[1, 4](b)
    raiser_nodebug[1, 4](cuda.device_array(4, np.int64))  # without debug: nothing raised
    cuda.synchronize()


@pytest.mark.nosim("compiled-code error semantics: the simulated kernel raises Python's own errors")
def test_fault_in_subprocess_names_kernel(tmp_path):
    code = textwrap.dedent("""
        import numpy as np
        from cudalite import cuda

        @cuda.jit
        def wild_store(a):
            p = a.size * 1000000000
            a[p] = 1.0

        out = np.zeros(4)
        try:
            wild_store[1, 1](out)
        except Exception as e:
            print("CAUGHT", type(e).__name__, e)
    """)
    script = tmp_path / "fault.py"
    script.write_text(code)
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "CAUGHT KernelFaultError" in res.stdout and "wild_store" in res.stdout, res.stdout + res.stderr


@pytest.mark.nosim("compiled dispatch: overloads and signature matching")
def test_cooperative_grid_sync():
    blocks, threads, rounds = 32, 128, 10
    n = blocks * threads
    buf, out = cuda.device_array(n, np.int64), cuda.device_array(n, np.int64)
    grid_shift[blocks, threads](buf, out, rounds)
    ref = np.arange(n, dtype=np.int64)
    for _ in range(rounds):
        ref = np.roll(ref, -97) + 1
    np.testing.assert_array_equal(out.copy_to_host(), ref)
    assert next(iter(grid_shift.overloads.values())).cooperative


@pytest.mark.nosim("PTX/SASS inspection")
def test_inspect_and_resources(capsys):
    k = cuda.jit(saxpy)
    k[1, 32](cuda.device_array(32), 1.0, cuda.device_array(32), cuda.device_array(32))
    sig = next(iter(k.overloads))
    assert ".entry" in k.inspect_asm(sig) and isinstance(k.inspect_asm(), dict)
    assert "define" in k.inspect_llvm(sig)
    texts = k.inspect_types()
    assert sig in texts and "saxpy" in capsys.readouterr().out
    regs = k.get_regs_per_thread(sig)
    assert isinstance(regs, int) and 0 < regs <= 255
    assert k.get_shared_mem_per_block(sig) == 0
    assert k.get_max_threads_per_block(sig) >= 256
    try:
        sass = k.inspect_sass(sig)
    except RuntimeError as e:
        pytest.skip(str(e))
    assert "FFMA" in sass or "DFMA" in sass or "EXIT" in sass


def test_print_output(capfd):
    printer[1, 32](7)
    cuda.synchronize()
    assert "value 7 42" in capfd.readouterr().out


@pytest.mark.nosim("PTX/SASS inspection")
def test_compile_for_current_device():
    ptx, resty = cuda.compile_ptx_for_current_device(saxpy, "void(float32[:], float32, float32[:], float32[:])")
    cc = cuda.get_current_device().compute_capability
    assert f".target sm_{cc[0]}{cc[1]}" in ptx
    code, _ = cuda.compile_for_current_device(dsq, "float64(float64)", device=True)
    assert ".func" in code
