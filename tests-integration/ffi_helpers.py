"""Helpers of the FFI tests (test_ffi_compile.py, gpu/test_gpu_ffi.py): CUDA C
sources defining ``extern "C" __device__`` functions in both ABIs, builders of
every linkable file kind (nvcc for the binary kinds, NVRTC for LTO-IR), and a
GPU-less link of a kernel the way the runtime links it."""

from __future__ import annotations

import os
import shutil
import subprocess

__all__ = ["KINDS", "NVCC_KINDS", "nvcc", "both_abi_source", "expected", "build", "link_kernel"]

# file kinds a kernel's link= takes; those needing nvcc to build
KINDS = ("cu", "ptx", "cubin", "fatbin", "o", "a", "lib", "ltoir",
         "CUSource", "PTXSource", "Cubin", "Fatbin", "Object", "Archive", "LTOIR")
NVCC_KINDS = {"ptx", "cubin", "fatbin", "o", "a", "lib", "PTXSource", "Cubin", "Fatbin", "Object", "Archive"}


def nvcc():
    """The nvcc executable, or None."""
    found = shutil.which("nvcc")
    if found:
        return found
    home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    cand = os.path.join(home, "bin", "nvcc")
    return cand if os.access(cand, os.X_OK) else None


def prefix_of(kind):
    """A symbol prefix per kind (paths lower case, linker objects capitalized)."""
    return ("k_" if kind.islower() else "obj_") + kind.lower()


def both_abi_source(prefix, offset):
    """``<prefix>_mul`` (Numba ABI: int f(float* ret, float, float)), ``<prefix>_axpb``
    (Numba ABI, double with an int argument) and ``<prefix>_add`` (C ABI)."""
    return f'''
extern "C" __device__ int {prefix}_mul(float* ret, float a, float b) {{
    *ret = a * b;
    return 0;
}}
extern "C" __device__ int {prefix}_axpb(double* ret, double x, int k) {{
    *ret = x * k + {offset}.0;
    return 0;
}}
extern "C" __device__ float {prefix}_add(float a, float b) {{
    return a + b + {offset}.0f;
}}
'''


def expected(x, y, k, offset):
    """What the kernel of the tests computes with the functions above (NumPy)."""
    import numpy as np

    f = (x * y + x + np.float32(offset)).astype(np.float32)
    d = x.astype(np.float64) * k + offset
    return f, d


def _run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stdout}{r.stderr}")


def build(kind, src, workdir, cc):
    """The link item of ``kind`` defining ``src``'s functions, for compute capability
    ``cc``: a path (``cu``, ``ptx``, ... ``ltoir``) or a cudalite.linker object
    (``CUSource``, ``PTXSource``, ...)."""
    from cudalite import linker

    arch = f"sm_{cc[0]}{cc[1]}"
    workdir = os.fspath(workdir)
    stem = prefix_of(kind)
    cu = os.path.join(workdir, f"{stem}.cu")
    with open(cu, "w") as f:
        f.write(src)
    if kind == "cu":
        return cu
    if kind == "CUSource":
        return linker.CUSource(src, name=f"{stem}.cu")
    if kind in ("ltoir", "LTOIR"):
        code = linker.compile_cuda(src, name=f"{stem}.cu", arch=arch, lto=True)
        if kind == "LTOIR":
            return code
        path = os.path.join(workdir, f"{stem}.ltoir")
        with open(path, "wb") as f:
            f.write(code.data)
        return path
    exe = nvcc()
    flag = {"ptx": ["-ptx", "-rdc=true"], "PTXSource": ["-ptx", "-rdc=true"],
            "cubin": ["-cubin", "-rdc=true"], "Cubin": ["-cubin", "-rdc=true"],
            "fatbin": ["-fatbin", "-rdc=true"], "Fatbin": ["-fatbin", "-rdc=true"],
            "o": ["-dc"], "Object": ["-dc"],
            "a": ["-lib", "-rdc=true"], "lib": ["-lib", "-rdc=true"], "Archive": ["-lib", "-rdc=true"]}[kind]
    ext = {"PTXSource": "ptx", "Cubin": "cubin", "Fatbin": "fatbin", "Object": "o", "Archive": "a"}.get(kind, kind)
    out = os.path.join(workdir, f"{stem}.{ext}")
    _run([exe, *flag, f"-arch={arch}", cu, "-o", out], workdir)
    if kind in ("ptx", "cubin", "fatbin", "o", "a", "lib"):
        return out
    cls = getattr(linker, kind)
    return cls.from_path(out)


def link_kernel(kernel, argtypes, cc=(9, 0)):
    """GPU-less: compile ``kernel`` (a @cuda.jit dispatcher) for ``argtypes`` and link
    it into a cubin for ``cc`` exactly as the runtime does before loading it.
    Returns (pipeline result, cubin)."""
    from cudalite.cuda._compiler.linking import linker_items as _linker_items
    from cudalite.cuda._compiler.compile_code import compile_code
    from cudalite.linker import LTOIR, Linker, LinkerError, PTXSource

    from cudalite.core.types import parse_signature

    if isinstance(argtypes, str):
        argtypes = parse_signature(argtypes)[1]
    res = compile_code(kernel.py_func, tuple(argtypes), kernel.options, cc)
    name = kernel.py_func.__name__
    lk = Linker(f"sm_{cc[0]}{cc[1]}", name=name)
    if "ltoir" in res.artifacts:
        lk.add(LTOIR(res.artifacts["ltoir"].data, name=f"{name}.ltoir"))
    else:
        lk.add(PTXSource(res.artifacts["ptx"].data, name=f"{name}.ptx"))
    lk.add(*_linker_items(tuple(kernel.options.link) + tuple(res.link_items)))
    try:
        return res, lk.link()
    except LinkerError as e:
        raise LinkerError(f"linking kernel {kernel.py_func.__qualname__} failed: {e.message}",
                          error_log=e.error_log, info_log=e.info_log) from None


def both_abi_kernel(prefix, link=(), decl_link=None):
    """A kernel calling three declared functions of both ABIs (defined by
    ``both_abi_source(prefix, ...)``), linking ``link`` itself and ``decl_link``
    through the declarations."""
    from cudalite import cuda

    mul = cuda.declare_device(f"{prefix}_mul", "float32(float32, float32)", link=decl_link)
    axpb = cuda.declare_device(f"{prefix}_axpb", "float64(float64, int32)", link=decl_link)
    add = cuda.declare_device(f"{prefix}_add", "float32(float32, float32)", abi="c", link=decl_link)

    @cuda.jit(link=list(link))
    def both(x, y, out, dout, k):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = add(mul(x[i], y[i]), x[i])
            dout[i] = axpb(x[i], k)

    return both
