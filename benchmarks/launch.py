"""Kernel launch overhead: host time per launch of an empty 4-argument kernel
(3 pointers, 1 float32), cudalite.driver against its peers, all in one run.

For each launcher:

* enqueue   -- time of 200 launches between synchronizations, min over 50 batches
               (the launch queue never fills), per launch;
* sustained -- 20,000 launches then one synchronization, total time / 20,000.

The rows are measured interleaved (round-robin, best of ROUNDS rounds each).

Rows: the floor (``cuda.bindings.driver.cuLaunchKernel`` with a prebuilt parameter
array address), cudalite.driver's ``Launcher.bind(LaunchConfig)`` closure with each
backend (shim: the cffi API-mode C shim; bindings; cffi ABI mode; ctypes -- the row
marked ``default`` is ``config.DEFAULT_LAUNCH_BACKEND``) and, on the default backend,
a configuration with an attribute (cuLaunchKernelEx), cuda.core's ``launch``, CuPy's
``RawKernel`` and numba-cuda when they import.  Ratios are to the floor; nothing is
asserted.  Target: cudalite <= 1.15x.
Run on a GPU host: ``python benchmarks/launch.py`` (needs packages/driver on the path
and nvJitLink from the cuda-bindings/nvidia-nvjitlink wheels).
"""

from __future__ import annotations

import ctypes
import os
import sys
import tempfile
import time

BATCH, BATCHES, SUSTAINED, ROUNDS = 200, 50, 20_000, 5

PTX = r"""
.version 8.0
.target sm_75
.address_size 64
.visible .entry empty4(.param .u64 a, .param .u64 b, .param .u64 c, .param .f32 d)
{
  ret;
}
"""


def link(arch):
    from cuda.bindings import nvjitlink

    data = PTX.encode()
    h = nvjitlink.create(1, [f"-arch={arch}"])
    try:
        nvjitlink.add_data(h, nvjitlink.InputType.PTX, data, len(data), "empty4.ptx")
        nvjitlink.complete(h)
        out = bytearray(nvjitlink.get_linked_cubin_size(h))
        nvjitlink.get_linked_cubin(h, out)
        return bytes(out)
    finally:
        nvjitlink.destroy(h)


def measure_all(launchers):
    """{name: (enqueue s/launch, sustained s/launch)}; ``run(n)`` enqueues n launches.

    The launchers are interleaved: each round measures every launcher once, and each
    keeps its best round, so a drift of the machine (clocks, other tenants) during
    the run does not favour whichever row happened to run in a quiet moment."""
    best = {}
    for name, run, sync in launchers:
        run(1000)
        sync()
        best[name] = [float("inf"), float("inf")]
    for _ in range(ROUNDS):
        for name, run, sync in launchers:
            for _ in range(BATCHES):
                t0 = time.perf_counter()
                run(BATCH)
                t1 = time.perf_counter()
                sync()
                best[name][0] = min(best[name][0], (t1 - t0) / BATCH)
            t0 = time.perf_counter()
            run(SUSTAINED)
            sync()
            best[name][1] = min(best[name][1], (time.perf_counter() - t0) / SUSTAINED)
    return best


def peers(cubin, cubin_path):
    """Yield (name, run, sync) for each launcher that can be set up here."""
    import cudalite.driver as drv
    from cuda.bindings import driver as cu

    mod = drv.load_module(cubin)
    fn = mod.get_function("empty4")
    stream = drv.Stream()
    bufs = [drv.alloc(256) for _ in range(3)]
    p1, p2, p3 = (b.ptr for b in bufs)
    sh = stream.handle
    sync = stream.synchronize

    # floor: cuda.bindings with a prebuilt kernelParams array
    vals = (ctypes.c_uint64(p1), ctypes.c_uint64(p2), ctypes.c_uint64(p3), ctypes.c_float(1.0))
    arr = (ctypes.c_void_p * 4)(*[ctypes.addressof(v) for v in vals])
    params = ctypes.addressof(arr)
    f_cu, s_cu, launch_kernel = fn._cu, stream._cu, cu.cuLaunchKernel

    def floor(n):
        for _ in range(n):
            launch_kernel(f_cu, 1, 1, 1, 1, 1, 1, 0, s_cu, params, 0)

    # All rows are set up before any is measured (they are interleaved): whatever a
    # row's raw pointers refer to must outlive this generator's frame.
    floor.keep = (vals, arr, mod, bufs, stream)
    yield "floor: cuda.bindings cuLaunchKernel, prebuilt params", floor, sync

    from cudalite.driver import LaunchConfig
    from cudalite.driver.config import DEFAULT_LAUNCH_BACKEND

    cfg = LaunchConfig((1, 1, 1), (1, 1, 1), stream=sh)
    for backend in ("shim", "bindings", "cffi", "ctypes"):
        lau = fn.launcher("QQQf", backend=backend)
        launch = lau.bind(cfg)  # grid/block/stream baked in: the per-call work is pack + one driver call

        def run(n, launch=launch):
            for _ in range(n):
                launch(p1, p2, p3, 1.0)

        label = f"cudalite.driver Launcher.bind (backend={backend}"
        if lau.backend != backend:
            label += f", fell back to {lau.backend}"
        label += ", default)" if backend == DEFAULT_LAUNCH_BACKEND else ")"
        yield label, run, sync

    # the same launch through cuLaunchKernelEx (a configuration with an attribute)
    lau = fn.launcher("QQQf")
    launch_ex = lau.bind(cfg.replace(cooperative=True))

    def run_ex(n):
        for _ in range(n):
            launch_ex(p1, p2, p3, 1.0)

    yield f"cudalite.driver Launcher.bind, cooperative (cuLaunchKernelEx, {lau.backend})", run_ex, sync

    try:
        try:
            from cuda.core import Device, LaunchConfig, ObjectCode, launch as core_launch
        except ImportError:
            from cuda.core.experimental import Device, LaunchConfig, ObjectCode, launch as core_launch
        import numpy as np

        dev = Device(drv.current_device().id)
        dev.set_current()
        kernel = ObjectCode.from_cubin(cubin).get_kernel("empty4")
        cstream = dev.create_stream()
        config = LaunchConfig(grid=1, block=1)
        f32 = np.float32(1.0)

        def core(n):
            for _ in range(n):
                core_launch(cstream, config, kernel, p1, p2, p3, f32)

        core.keep = (dev, kernel, cstream)

        yield "cuda.core launch", core, cstream.sync
    except Exception as exc:
        print(f"# cuda.core skipped: {type(exc).__name__}: {exc}")

    try:
        import cupy as cp
        import numpy as np

        rmod = cp.RawModule(path=cubin_path)
        rk = rmod.get_function("empty4")
        arrays = [cp.empty(64, cp.float32) for _ in range(3)]
        cstream = cp.cuda.Stream(non_blocking=True)
        args = (arrays[0], arrays[1], arrays[2], np.float32(1.0))

        def cupy_run(n):
            with cstream:
                for _ in range(n):
                    rk((1,), (1,), args)

        cupy_run.keep = (rmod, rk, arrays)
        yield "CuPy RawKernel", cupy_run, cstream.synchronize
    except Exception as exc:
        print(f"# CuPy skipped: {type(exc).__name__}: {exc}")

    try:
        from numba import cuda as ncuda

        @ncuda.jit("void(float32[:], float32[:], float32[:], float32)")
        def nb_empty(a, b, c, d):
            pass

        na = [ncuda.device_array(64, "float32") for _ in range(3)]
        nstream = ncuda.stream()
        kern = nb_empty[1, 1, nstream]

        def nb_run(n):
            for _ in range(n):
                kern(na[0], na[1], na[2], 1.0)

        yield "numba-cuda (arrays, not pointers)", nb_run, nstream.synchronize
    except Exception as exc:
        print(f"# numba-cuda skipped: {type(exc).__name__}: {exc}")


def main():
    import cudalite.driver as drv

    try:
        dev = drv.current_device()
    except drv.CudaDriverError as e:
        print(f"launch benchmark skipped: no usable GPU ({e.name})")
        return
    cubin = link(dev.arch)
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as tmp:
        tmp.write(cubin)
    print(f"# device: {dev.name} ({dev.arch}); Python {sys.version.split()[0]}")
    print(f"# enqueue: {BATCH} launches between syncs, min over {BATCHES} batches x {ROUNDS} rounds; "
          f"sustained: {SUSTAINED} launches, best of {ROUNDS}; rows interleaved round-robin")
    try:
        launchers = list(peers(cubin, tmp.name))
        best = measure_all(launchers)
        rows = [(name, best[name][0] * 1e6, best[name][1] * 1e6) for name, _, _ in launchers]
    finally:
        os.unlink(tmp.name)
    floor_enq, floor_sus = rows[0][1], rows[0][2]
    w = max(len(r[0]) for r in rows)
    print(f"| {'launcher':<{w}} | enqueue µs | x floor | sustained µs | x floor |")
    print(f"|{'-' * (w + 2)}|-----------:|--------:|-------------:|--------:|")
    for name, enq, sus in rows:
        print(f"| {name:<{w}} | {enq:10.2f} | {enq / floor_enq:6.2f}x | {sus:12.2f} | {sus / floor_sus:6.2f}x |")


if __name__ == "__main__":
    main()
