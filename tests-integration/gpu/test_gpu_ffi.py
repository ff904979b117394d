"""Issue 5 on the GPU: Python kernels calling foreign device functions.

Every linkable kind through ``link=`` (nvcc builds the binary kinds for the
device's exact sm_XY, NVRTC the LTO-IR), ``declare_device(..., link=...)``,
link lists propagating through two levels of device functions (deduplicated),
CPointer + cffi ``ffi.from_buffer``, the extension protocol, and each error.
Results are checked against NumPy.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import ffi_helpers as H

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("linking CUDA C/C++, PTX, cubins or LTO-IR (FFI)")]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
N = 1000


@pytest.fixture(scope="module")
def cc():
    from cudalite import cuda

    return tuple(cuda.get_current_device().compute_capability)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("ffi")


def _inputs():
    rng = np.random.default_rng(5)
    x = rng.uniform(-4, 4, N).astype(np.float32)
    y = rng.uniform(-4, 4, N).astype(np.float32)
    return x, y


def _run_both_abis(kernel, k=3):
    """Launch a kernel computing out = add(mul(x, y), x) (float32) and
    dout = axpb(x, k) (float64); returns (out, dout)."""
    from cudalite import cuda

    x, y = _inputs()
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    dout, ddout = cuda.device_array(N, np.float32), cuda.device_array(N, np.float64)
    kernel[(N + 127) // 128, 128](dx, dy, dout, ddout, k)
    return dout.copy_to_host(), ddout.copy_to_host()



def _check_both(out, dout, offset, k=3):
    x, y = _inputs()
    f, d = H.expected(x, y, k, offset)
    np.testing.assert_allclose(out, f, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dout, d, rtol=1e-12)


# -- every file kind via link= on the kernel ---------------------------------------------
@pytest.mark.parametrize("kind", H.KINDS)
def test_each_kind_via_kernel_link(kind, cc, workdir):
    if kind in H.NVCC_KINDS and H.nvcc() is None:
        pytest.skip("building this kind needs nvcc")
    offset = H.KINDS.index(kind) + 1
    prefix = H.prefix_of(kind)
    item = H.build(kind, H.both_abi_source(prefix, offset), workdir, cc)
    out, dout = _run_both_abis(H.both_abi_kernel(prefix, link=[item]))
    _check_both(out, dout, offset)


def test_cu_path_relative_to_the_current_directory(cc, workdir, monkeypatch):
    src = H.both_abi_source("rel", 40)
    (workdir / "rel_dir").mkdir(exist_ok=True)
    (workdir / "rel_dir" / "rel.cu").write_text(src)
    monkeypatch.chdir(workdir)
    out, dout = _run_both_abis(H.both_abi_kernel("rel", link=[os.path.join("rel_dir", "rel.cu")]))
    _check_both(out, dout, 40)


# -- declare_device(..., link=) and no link= on the kernel ----------------------------------
@pytest.mark.parametrize("kind", ["cu", "ltoir", "CUSource", "LTOIR", "cubin"])
def test_declare_device_link_without_kernel_link(kind, cc, workdir):
    if kind in H.NVCC_KINDS and H.nvcc() is None:
        pytest.skip("building this kind needs nvcc")
    prefix = f"decl_{kind.lower()}"
    sub = workdir / prefix
    sub.mkdir(exist_ok=True)
    item = H.build(kind, H.both_abi_source(prefix, 7), sub, cc)
    out, dout = _run_both_abis(H.both_abi_kernel(prefix, decl_link=item))
    _check_both(out, dout, 7)


# -- transitive propagation, deduplication ------------------------------------------------
@pytest.mark.parametrize("lto", [False, True], ids=["ptx", "lto"])
def test_links_propagate_through_two_device_levels_deduplicated(lto, cc, workdir):
    from cudalite import cuda
    from cudalite.linker import compile_cuda

    tag = "lto" if lto else "nolto"
    sub = workdir / f"trans_{tag}"
    sub.mkdir(exist_ok=True)
    a_src, b_src = H.both_abi_source(f"ta_{tag}", 1), H.both_abi_source(f"tb_{tag}", 2)
    a_path = sub / "a.cu"
    a_path.write_text(a_src)
    if lto:
        b_item = str(sub / "b.ltoir")
        with open(b_item, "wb") as f:
            f.write(compile_cuda(b_src, name="b.cu", arch=f"sm_{cc[0]}{cc[1]}", lto=True).data)
    else:
        b_item = str(sub / "b.cu")
        with open(b_item, "w") as f:
            f.write(b_src)
    b_mul = cuda.declare_device(f"tb_{tag}_mul", "float32(float32, float32)", link=[b_item])
    a_add_linked = cuda.declare_device(f"ta_{tag}_add", "float32(float32, float32)", abi="c", link=str(a_path))
    a_add = cuda.declare_device(f"ta_{tag}_add", "float32(float32, float32)", abi="c")

    @cuda.jit(device=True)
    def level2(v):
        return b_mul(v, v)  # reached here and again from level1 and the kernel

    @cuda.jit(device=True, link=[str(a_path)])  # level1's own link= defines ta_*
    def level1(v):
        return a_add(level2(v), b_mul(v, 2.0))

    @cuda.jit
    def kern(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = level1(x[i]) + b_mul(x[i], x[i]) + a_add_linked(x[i], 0.0)

    x, _ = _inputs()
    out = np.zeros_like(x)
    kern[(N + 127) // 128, 128](x, out)
    want = (x * x + x * 2 + 1) + x * x + (x + 1)
    np.testing.assert_allclose(out, want.astype(np.float32), rtol=1e-5, atol=1e-4)


# -- CPointer + cffi from_buffer -----------------------------------------------------------
SUM_SRC = r'''
extern "C" __device__ float sum_reduce(const float* x, long long n) {
    float s = 0.0f;
    for (long long i = 0; i < n; ++i) s += x[i];
    return s;
}
extern "C" __device__ int sum_reduce_f64(double* ret, const double* x, long long n) {
    double s = 0.0;
    for (long long i = 0; i < n; ++i) s += x[i];
    *ret = s;
    return 0;
}
'''


def test_cffi_from_buffer_sum_reduction(workdir):
    cffi = pytest.importorskip("cffi")
    from cudalite import cuda

    ffi = cffi.FFI()
    path = workdir / "sum.cu"
    path.write_text(SUM_SRC)
    total = cuda.declare_device("sum_reduce", "float32(CPointer(float32), int64)", abi="c", link=str(path))
    total64 = cuda.declare_device("sum_reduce_f64", "float64(CPointer(float64), int64)", link=str(path))

    @cuda.jit
    def reduce(x, y, out, out64):
        if cuda.grid(1) == 0:
            out[0] = total(ffi.from_buffer(x), x.size)
            out64[0] = total64(ffi.from_buffer(y), y.size)

    x = np.random.default_rng(1).uniform(0, 1, 10_000).astype(np.float32)
    y = x.astype(np.float64)
    out, out64 = np.zeros(1, np.float32), np.zeros(1, np.float64)
    reduce[1, 32](x, y, out, out64)
    np.testing.assert_allclose(out[0], np.sum(x, dtype=np.float64), rtol=1e-4)
    np.testing.assert_allclose(out64[0], np.sum(y), rtol=1e-12)


# -- the extension protocol ----------------------------------------------------------------
def test_polyext_example_runs():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in sys.path if p and os.path.isdir(p))
    r = subprocess.run([sys.executable, "run_polyext.py"], cwd=os.path.join(ROOT, "examples", "extension"),
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "extension OK" in r.stdout


class _Cube:
    """An extension object: x**3 + c, its CUDA C generated (and compiled by NVRTC to
    LTO-IR, or left as a .cu source) at compile time for the call's argument type."""

    CTYPES = {"float32": "float", "float64": "double"}

    def __init__(self, cc, c, lto=True, alias=False):
        self.cc, self.c, self.lto, self.calls = cc, c, lto, []
        if alias:
            self.__numba_cuda_link__ = self._link
        else:
            self.__cudalite_link__ = self._link

    def _symbol(self, t):
        return f"cube{self.c}_{t}"

    def __cudalite_declare__(self, *argtypes):
        from cudalite import cuda

        t = str(argtypes[0])
        return cuda.declare_device(self._symbol(t), f"{t}({t})", abi="c")

    def _link(self, *argtypes):
        from cudalite.linker import CUSource, compile_cuda

        self.calls.append(tuple(map(str, argtypes)))
        t = str(argtypes[0])
        ct = self.CTYPES[t]
        src = f'extern "C" __device__ {ct} {self._symbol(t)}({ct} x) {{ return x * x * x + ({ct}){self.c}; }}'
        if not self.lto:
            return [CUSource(src, name=f"{self._symbol(t)}.cu")]
        return [compile_cuda(src, name=f"{self._symbol(t)}.cu", arch=f"sm_{self.cc[0]}{self.cc[1]}", lto=True)]


@pytest.mark.parametrize("lto,alias", [(True, False), (False, True)], ids=["ltoir", "cusource-alias"])
def test_in_test_extension_generates_code_per_argument_type(lto, alias, cc):
    from cudalite import cuda

    cube = _Cube(cc, 2 if lto else 3, lto=lto, alias=alias)

    @cuda.jit(device=True)
    def twice(v):
        return cube(v) + cube(v)  # the same generated function reached twice: linked once

    @cuda.jit
    def apply(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = twice(x[i]) - cube(x[i])

    for dtype in (np.float32, np.float64):
        x = np.linspace(-2, 2, N).astype(dtype)
        out = np.zeros_like(x)
        apply[(N + 127) // 128, 128](x, out)
        want = x.astype(np.float64) ** 3 + cube.c
        np.testing.assert_allclose(out, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)
    assert {c[0] for c in cube.calls} == {"float32", "float64"}


# -- errors ----------------------------------------------------------------------------------
def test_undefined_symbol_is_a_linker_error_naming_symbol_and_kernel():
    from cudalite import cuda
    from cudalite.linker import CUSource, LinkerError

    missing = cuda.declare_device("nowhere_defined_fn", "float32(float32)",
                                  link=CUSource('extern "C" __device__ float other_fn(float x) { return x; }',
                                                name="other.cu"))

    @cuda.jit
    def kernel_with_missing_symbol(x):
        x[0] = missing(x[0])

    with pytest.raises(LinkerError) as info:
        kernel_with_missing_symbol[1, 1](np.zeros(1, np.float32))
    msg = str(info.value)
    assert "nowhere_defined_fn" in msg
    assert "kernel_with_missing_symbol" in msg


def _line_of(marker):
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if marker in line and "_line_of" not in line)


def test_wrong_argument_types_are_a_typing_error_at_the_call():
    from cudalite import cuda
    from cudalite.core.errors import TypingError

    f = cuda.declare_device("typed_fn", "float32(float32, int32)")

    @cuda.jit
    def bad_call(x):
        x[0] = f(x[0], x)  # <- the bad call

    with pytest.raises(TypingError) as info:
        bad_call[1, 1](np.zeros(1, np.float32))
    msg = str(info.value)
    assert f"{__file__}:{_line_of('# <- the bad call')}:" in msg
    assert "typed_fn" in msg and "int32" in msg


@pytest.mark.parametrize("where", ["declare_device", "kernel"])
def test_missing_link_file_names_the_path(where, tmp_path):
    from cudalite import cuda
    from cudalite.linker import LinkerError

    path = str(tmp_path / "not_there" / "helpers.ptx")
    g = cuda.declare_device("helper_fn", "float32(float32)", link=path if where == "declare_device" else None)

    @cuda.jit(link=[path] if where == "kernel" else [])
    def uses_missing(x):
        x[0] = g(x[0])

    with pytest.raises(LinkerError) as info:
        uses_missing[1, 1](np.zeros(1, np.float32))
    assert isinstance(info.value, FileNotFoundError)
    assert path in str(info.value)


def test_debug_kernel_linking_ltoir_reports_exceptions(cc):
    """An LTO link keeps the kernel and the debug exception global (@llvm.used),
    and libNVVM's debug info links with NVRTC's LTO-IR."""
    from cudalite import cuda
    from cudalite.linker import compile_cuda

    code = compile_cuda('extern "C" __device__ float dbg_twice(float x) { return 2.0f * x; }', name="dbg.cu",
                        arch=f"sm_{cc[0]}{cc[1]}", lto=True)
    twice = cuda.declare_device("dbg_twice", "float32(float32)", abi="c", link=code)

    @cuda.jit(debug=True, opt=False)
    def checked(x):
        i = cuda.grid(1)
        if i < x.size:
            if x[i] < 0:
                raise ValueError("negative input")
            x[i] = twice(x[i])

    x = np.arange(64, dtype=np.float32)
    checked[1, 64](x)
    np.testing.assert_array_equal(x, 2 * np.arange(64, dtype=np.float32))
    x[5] = -1
    with pytest.raises(ValueError, match="negative input"):
        checked[1, 64](x)
