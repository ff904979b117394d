"""Sources and an independent ELF symbol reader shared by the cudalite-linker tests.

(A uniquely named module, not conftest, so test files can import it even when
several packages' test folders run in one pytest session.)
"""

from __future__ import annotations

import struct
import subprocess

KERNEL_CALLS_F = 'extern "C" __device__ int f(int x);\n' \
                 'extern "C" __global__ void k(int *p) { p[0] = f(p[1]); }\n'
DEFINES_F = 'extern "C" __device__ int f(int x) { return x + 1; }\n'
DEFINES_F_OTHER = 'extern "C" __device__ int f(int x) { return x * 7; }\n'
KERNEL_CALLS_G = 'extern "C" __device__ int g(int x);\n' \
                 'extern "C" __global__ void kg(int *p) { p[0] = g(p[1]); }\n'
DEFINES_G = 'extern "C" __device__ int g(int x) { return x * 3; }\n'


def cubin_symbols(data: bytes) -> set:
    """Defined FUNC/OBJECT symbol names of an ELF64 file (a second, test-only parser)."""
    assert data[:4] == b"\x7fELF", "not an ELF file"
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = set()
    for h in headers:
        if h[1] != 2:  # SHT_SYMTAB
            continue
        strtab = headers[h[6]]
        for off in range(h[4], h[4] + h[5], 24):
            st_name, st_info, _, st_shndx = struct.unpack_from("<IBBH", data, off)
            if st_shndx and (st_info & 0xF) in (1, 2):
                end = data.index(b"\0", strtab[4] + st_name)
                names.add(data[strtab[4] + st_name:end].decode())
    return names


def crash_samples() -> dict:
    """One small real input of each kind (``g`` defined), as tools/mutation_crashes.py
    builds them: NVRTC LTO-IR, cubin and PTX; with nvcc on PATH also an nvcc fatbin,
    object (``-dc``) and archive (``-lib``)."""
    import os
    import shutil
    import tempfile

    from cudalite.linker import Archive, Fatbin, Object, compile_cuda

    samples = {
        "ltoir": compile_cuda(DEFINES_G, name="g.cu", arch="sm_90", lto=True),
        "cubin": compile_cuda(DEFINES_G, name="g.cu", arch="sm_90", cubin=True),
        "ptx": compile_cuda(DEFINES_G, name="g.cu", arch="sm_90"),
    }
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return samples
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "g.cu"), "w") as f:
            f.write(DEFINES_G)
        for args in (["-dc", "-arch=sm_90", "g.cu", "-o", "g.o"], ["-lib", "g.o", "-o", "libg.a"],
                     ["-fatbin", "-rdc=true", "-arch=sm_90", "g.cu", "-o", "g.fatbin"]):
            if subprocess.run([nvcc, *args], cwd=folder, capture_output=True).returncode:
                return samples
        samples["object"] = Object.from_path(os.path.join(folder, "g.o"))
        samples["archive"] = Archive.from_path(os.path.join(folder, "libg.a"))
        samples["fatbin"] = Fatbin.from_path(os.path.join(folder, "g.fatbin"))
    return samples
