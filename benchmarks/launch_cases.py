"""Host time per launch for numba-cuda-mlir's five published launch cases -- an empty
kernel, one array, several (4) arrays, 16 scalars, 256 scalars -- through
``cudalite.cuda`` (``cfg = kernel[1, 1]; cfg(*args)``), next to the floor and CuPy's
``RawKernel`` launching the very same compiled function, all in one run (issue 26).

* floor      -- ``cuda.bindings.driver.cuLaunchKernel`` of the function with a prebuilt
                parameter array (the values cudalite's ABI flattens the arguments to);
* cudalite   -- DeviceNDArrays of 64 float32 and Python floats;
* CuPy       -- ``RawModule`` of cudalite's cubin, the flattened values as NumPy scalars.

Each figure: 200 launches between synchronizations, min over 30 batches, best of 3
interleaved rounds (every row once per round).  The floor has two states between
processes (~1.8 or ~3.5 µs on an H200; ``benchmarks/launch_floor.py``): compare rows of
one run.  Target (issue 26): cudalite <= 1.10x the floor.  The kernels are written to a
temporary module (cudalite compiles from source files).

    python benchmarks/launch_cases.py
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import host_us  # noqa: E402

BATCH, BATCHES, ROUNDS = 200, 30, 3
CASES = (("empty kernel", 0, 0), ("1 array", 1, 0), ("4 arrays", 4, 0), ("16 scalars", 0, 16),
         ("256 scalars", 0, 256))


def _source(arrays, scalars) -> str:
    names = [f"a{i}" for i in range(arrays)] + [f"s{i}" for i in range(scalars)]
    return f"def kernel({', '.join(names)}):\n    pass\n"


def _load_kernels(tmp):
    path = os.path.join(tmp, "launch_cases_kernels.py")
    with open(path, "w") as f:
        for i, (_, arrays, scalars) in enumerate(CASES):
            f.write(_source(arrays, scalars).replace("def kernel(", f"def kernel{i}(") + "\n\n")
    spec = importlib.util.spec_from_file_location("launch_cases_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [getattr(mod, f"kernel{i}") for i in range(len(CASES))]


def rows_for(cuda, pyfunc, arrays, scalars, cp):
    """(name, run) pairs of one case, or the reason it cannot be measured."""
    import numpy as np
    from cuda.bindings import driver as cu

    from cudalite.driver import param_layout

    kernel = cuda.jit(pyfunc)
    arrs = [cuda.device_array(64, np.float32) for _ in range(arrays)]
    args = tuple(arrs) + (1.5,) * scalars
    cfg = kernel[1, 1]
    cfg(*args)
    ck = next(iter(kernel.overloads.values()))
    fmt = ck.artifact.param_format
    flat = [v for a in arrs for v in (a.device_ctypes_pointer.value, 64)] + [1.5] * scalars
    layout = param_layout(fmt)
    if len(layout.offsets) != len(flat):
        return f"ABI {fmt!r} is not (pointer, length) per array and a double per scalar"
    buf = ctypes.create_string_buffer(max(layout.size, 1))
    layout.struct.pack_into(buf, 0, *flat)
    base = ctypes.addressof(buf)
    ptrs = (ctypes.c_void_p * max(len(flat), 1))(*[base + off for off in layout.offsets])
    params = ctypes.addressof(ptrs) if flat else 0
    f_cu, s_cu, launch_kernel = ck.function._cu, cu.CUstream(0), cu.cuLaunchKernel

    # one launch per call, no Python frame of our own around it (partial is C-level)
    floor = functools.partial(launch_kernel, f_cu, 1, 1, 1, 1, 1, 1, 0, s_cu, params, 0)
    out = [("floor", floor, (buf, ptrs)), ("cudalite", functools.partial(cfg, *args), None)]
    if cp is not None:
        with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as tmp:
            tmp.write(ck.artifact.cubin)
        try:
            rk = cp.RawModule(path=tmp.name).get_function(ck.artifact.entry_name)
        finally:
            os.unlink(tmp.name)
        codes = {"Q": np.uint64, "q": np.int64, "d": np.float64}
        try:
            cargs = tuple(codes[c](v) for c, v in zip(layout.format, flat))
        except KeyError:
            cargs = None
        if cargs is not None:
            out.append(("CuPy RawKernel", functools.partial(rk, (1,), (1,), cargs), None))
    return out


def main(argv=None):
    warnings.simplefilter("ignore")
    from cudalite import cuda

    try:
        dev = cuda.get_current_device()
    except Exception as e:
        print(f"launch cases skipped: no usable GPU ({e})")
        return
    try:
        import cupy as cp
    except Exception:
        cp = None
    print(f"# device: {dev.name}; Python {sys.version.split()[0]}; µs per launch, {BATCH} launches between "
          f"syncs, min over {BATCHES} batches, best of {ROUNDS} interleaved rounds; legacy default stream")
    with tempfile.TemporaryDirectory() as tmp:
        kernels = _load_kernels(tmp)
        cases = []
        for (name, arrays, scalars), fn in zip(CASES, kernels):
            got = rows_for(cuda, fn, arrays, scalars, cp)
            if isinstance(got, str):
                print(f"# {name} skipped: {got}")
                continue
            cases.append((name, got))
        best = {}
        for _ in range(ROUNDS):
            for name, rows in cases:
                for row, run, _keep in rows:
                    t = host_us(run, BATCH, BATCHES, cuda.synchronize) / 1e6  # s per launch
                    best[(name, row)] = min(best.get((name, row), t), t)
    print("| case | floor µs | cudalite µs | x floor | CuPy RawKernel µs | x floor |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, rows in cases:
        fl, jt = best[(name, "floor")], best[(name, "cudalite")]
        raw = best.get((name, "CuPy RawKernel"))
        raw_cells = f"{raw * 1e6:.2f} | {raw / fl:.2f}x" if raw is not None else "- | -"
        print(f"| {name} | {fl * 1e6:.2f} | {jt * 1e6:.2f} | {jt / fl:.2f}x | {raw_cells} |")
    print("# target (issue 26): cudalite <= 1.10x the floor")


if __name__ == "__main__":
    main()
