"""The peer benchmarks (benchmarks/vectorize.py, clusters.py, smem_big.py, inline_ptx.py, fp8.py),
GPU-less: their cudalite kernels compile to PTX for sm_90 with the features each one
measures, their CUDA C peers compile with NVRTC (the wheels' headers) to sm_90 cubins,
and without a GPU each script prints why it is skipped and exits 0."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("llvmlite")

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import bench_util  # noqa: E402
import clusters  # noqa: E402
import fp8  # noqa: E402
import inline_ptx  # noqa: E402
import smem_big  # noqa: E402
import vectorize  # noqa: E402

MODULES = {"vectorize": vectorize, "clusters": clusters, "smem_big": smem_big, "inline_ptx": inline_ptx, "fp8": fp8}


def _ptx(module):
    ptx = module.compile_check((9, 0))
    assert ptx, module.__name__
    for name, text in ptx.items():
        assert ".target sm_90" in text, name
        assert ".entry" in text, name
    return ptx


def test_vectorize_kernels_compile():
    ptx = _ptx(vectorize)
    assert set(ptx) == {f"{k} {t}" for k in ("axpy", "gauss", "gauss", "rowsum") for t in ("float32", "float64")} | {
        "gauss float32 broadcast", "gauss float64 broadcast"}
    assert "ex2.approx" in ptx["gauss float32"]  # expf's libdevice code, inlined into the loop kernel
    assert ".f64" in ptx["axpy float64"] and "fma.rn.f32" in ptx["axpy float32"]


def test_cluster_kernels_compile():
    ptx = _ptx(clusters)
    for c in clusters.CLUSTERS:
        for kind in ("sum", "hist"):
            text = ptx[f"cluster_{kind}_{c}"]
            assert ".explicitcluster" in text and f".reqnctapercluster {c}, 1, 1" in text
            assert "mapa" in text and "barrier.cluster.wait" in text
        assert "atom.add.u32" in ptx[f"cluster_hist_{c}"] or "atom.shared::cluster" in ptx[f"cluster_hist_{c}"]
    for name in ("atomic_sum", "atomic_hist"):
        assert ".reqnctapercluster" not in ptx[name] and "mapa" not in ptx[name]


def test_smem_big_kernels_compile():
    ptx = _ptx(smem_big)
    for name in ("big", "small"):
        assert ".extern .shared" in ptx[name]  # the tile is dynamic shared memory
        assert f"{smem_big.tile(smem_big.SEGS[name])[1]}" in ptx[name]  # outputs per block, a constant
    # the big tile needs the opt-in, the small one (tile + totals) fits the default 48 KiB
    assert smem_big.tile(smem_big.SEGS["big"])[2] + 4 * smem_big.THREADS > 48 * 1024
    assert smem_big.tile(smem_big.SEGS["small"])[2] + 4 * smem_big.THREADS <= 48 * 1024


def test_inline_ptx_kernels_compile():
    ptx = _ptx(inline_ptx)
    for r in inline_ptx.ROUNDS:
        text = ptx[f"mix_ptx_{r}"]
        assert text.count("lop3.b32") == r and text.count("prmt.b32") == r  # kept, as asm volatile is
        assert "lop3.b32" not in ptx[f"mix_plain_{r}"] and "prmt.b32" not in ptx[f"mix_plain_{r}"]


def test_fp8_kernels_compile():
    ptx = _ptx(fp8)
    assert "cvt.rn.satfinite.e4m3x2.f32" in ptx["quantize_e4m3"]  # as CUDA C's constructor on sm_89+
    assert "cvt.rn.satfinite.e5m2x2.f32" in ptx["quantize_e5m2"]
    assert "cvt.rn.f16x2.e4m3x2" in ptx["dequantize_e4m3"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_cuda_c_peers_compile_with_nvrtc(name):
    from cudalite.linker import NvrtcError

    try:
        cubin = bench_util.check_cuda_c(MODULES[name].CUDA_C, arch="sm_90")
    except NvrtcError as exc:
        if 'cannot open source file "nv/target"' in str(exc):  # an install without CCCL's headers
            pytest.skip("the installed CUDA headers lack CCCL (nv/target), which cooperative_groups.h includes")
        raise
    assert bytes(cubin.data)[:4] == b"\x7fELF"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_scripts_skip_without_a_gpu(name, capsys):
    from cudalite import cuda

    if cuda.is_available():
        pytest.skip("a GPU is present: the benchmark would run")
    assert MODULES[name].main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{name} benchmark skipped: no usable GPU")
    assert out.count("\n") == 1


def test_timers_and_table(capsys):
    calls = []

    class Event:
        def record(self):
            calls.append("record")

        def synchronize(self):
            pass

    ms = bench_util.gpu_ms(lambda: calls.append("run"), 3, 4, Event, lambda a, b: 8.0, lambda: None)
    assert ms == 2.0 and calls.count("run") == 1 + 3 * 4 and calls.count("record") == 6
    assert bench_util.host_us(lambda: None, 10, 2, lambda: None) >= 0
    assert bench_util.ratio(3.0, 1.5) == "2.00x" and bench_util.ratio(None, 1.0) == "-"
    bench_util.table(["a", "b"], [[1, "2.00x"]])
    assert capsys.readouterr().out == "| a | b |\n|---|---:|\n| 1 | 2.00x |\n"
