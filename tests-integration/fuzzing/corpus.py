"""The seeds the fuzzer mutates: small valid kernels and device functions (each with
a signature it compiles for), and real linkable inputs made GPU-less."""

from __future__ import annotations

import textwrap

#: prepended to every generated module (the device API without a GPU)
HEADER = "import math\nimport numpy as np\nfrom cudalite import nvvm as cuda\n\n"

#: (source, function name, signature, device)
SEEDS = [
    ("""
def add(x, y):
    return x + y
""", "add", "float32(float32, float32)", True),
    ("""
def poly(x):
    acc = 0.0
    for i in range(4):
        acc = acc * x + i
    return acc
""", "poly", "float64(float64)", True),
    ("""
def clamp(x, lo, hi):
    if x < lo:
        return lo
    elif x > hi:
        return hi
    return x
""", "clamp", "int32(int32, int32, int32)", True),
    ("""
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a * x[i] + y[i]
""", "saxpy", "void(float32, float32[::1], float32[::1], float32[::1])", False),
    ("""
def reduce_block(inp, out):
    buf = cuda.shared.array(128, np.float32)
    t = cuda.threadIdx.x
    buf[t] = inp[cuda.grid(1)]
    cuda.syncthreads()
    s = 64
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        cuda.atomic.add(out, 0, buf[0])
""", "reduce_block", "void(float32[::1], float32[::1])", False),
    ("""
def hyp(x, y):
    return math.sqrt(x * x + y * y) + math.sin(x) ** 2
""", "hyp", "float64(float64, float64)", True),
    ("""
def tup(a, b):
    t = (a, b, a + b)
    x, y, z = t
    return x * y - z if x > 0 and not y < 0 else -z
""", "tup", "int64(int64, int64)", True),
    ("""
def matrow(m, v, out):
    i, j = cuda.grid(2)
    if i < m.shape[0] and j < m.shape[1]:
        acc = 0.0
        for k in range(m.shape[1]):
            acc += m[i, k] * v[k]
        out[i] = acc
""", "matrow", "void(float64[:, ::1], float64[::1], float64[::1])", False),
    ("""
def bits(x):
    y = (x << 3) ^ (x >> 2) | 7
    return cuda.popc(y) + cuda.clz(x) % 5 - x // 3
""", "bits", "int32(int32)", True),
    ("""
def cplx(z, w):
    return (z * w.conjugate() + 1j).real
""", "cplx", "float64(complex128, complex128)", True),
    ("""
def checked(a, n):
    for i in range(n):
        if a[i] < 0:
            raise ValueError("negative")
        assert a[i] < 100, "too big"
        a[i] = abs(a[i]) + min(i, n)
""", "checked", "void(int64[::1], int64)", False),
    ("""
def loops(a):
    total = 0
    for i, v in enumerate(a):
        if v == 3:
            continue
        if i > 10:
            break
        total += v
    for x, y in zip(a, a):
        total -= x * y
    return total
""", "loops", "int64(int32[::1])", True),
]


def seed_sources():
    return [(HEADER + textwrap.dedent(src).lstrip(), name, sig, device) for src, name, sig, device in SEEDS]


def _ar_archive(members) -> bytes:
    """A System V ``ar`` archive of ``(name, bytes)`` members (the ``.a`` format)."""
    out = [b"!<arch>\n"]
    for name, data in members:
        head = f"{name + '/':<16}{0:<12}{0:<6}{0:<6}{'100644':<8}{len(data):<10}`\n".encode()
        out.append(head + data + (b"\n" if len(data) % 2 else b""))
    return b"".join(out)


def _fatbin(cubin: bytes, ptx: bytes):
    try:
        from cuda.bindings import nvfatbin
        handle = nvfatbin.create([], 0)
    except Exception:  # noqa: BLE001 - no nvFatbin library: no fatbin seed
        return None
    try:
        nvfatbin.add_cubin(handle, cubin, len(cubin), "90", "k")
        nvfatbin.add_ptx(handle, ptx, len(ptx), "90", "k", "")
        out = bytearray(nvfatbin.size(handle))
        nvfatbin.get(handle, out)
        return bytes(out)
    finally:
        nvfatbin.destroy(handle)


def linkable_seeds() -> dict:
    """``{kind: bytes}`` of real inputs of each kind, made without a GPU: PTX and
    LTO-IR by cudalite.nvvm, a relocatable cubin by NVRTC, a fatbin by nvFatbin
    (when its library is present), an archive holding the cubin, CUDA C++ text."""
    from cudalite.linker import compile_cuda
    from cudalite.nvvm import compile, compile_ptx

    def axpy(a, x, y):
        return a * x + y

    ptx, _ = compile_ptx(axpy, "float32(float32, float32, float32)", device=True, abi="c", cc=(9, 0))
    lto, _ = compile(axpy, "float32(float32, float32, float32)", device=True, abi="c", output="ltoir",
                     cc=(9, 0))
    cu = 'extern "C" __device__ float axpy(float a, float x, float y);\n' \
         'extern "C" __global__ void k(float *p) { p[0] = axpy(p[1], p[2], p[3]); }\n'
    cubin = compile_cuda(cu, name="k.cu", arch="sm_90", cubin=True).data
    seeds = {"ptx": ptx.encode(), "ltoir": bytes(lto), "cubin": cubin, "object": cubin,
             "archive": _ar_archive([("k.o", cubin)]), "cu": cu.encode()}
    fat = _fatbin(cubin, ptx.encode())
    if fat is not None:
        seeds["fatbin"] = fat
    return seeds


def elf_size_fields():
    """Offsets of the ELF64 header fields that size or locate things (the
    interesting places to write huge values)."""
    return [0x20, 0x28, 0x34, 0x36, 0x38, 0x3A, 0x3C, 0x3E]


__all__ = ["HEADER", "SEEDS", "seed_sources", "linkable_seeds", "elf_size_fields"]
