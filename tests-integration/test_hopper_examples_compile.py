"""GPU-less: the Hopper examples (examples/wgmma_gemm.py, examples/flash_attention.py) build
for a 9.0 device -- sm_90a chosen by the jit, setmaxnreg through LTO -- with no ptxas
advisory (a serialised MMA pipeline or an ignored setmaxnreg would be a warning, here an
error), for every input type and variant the GPU tests run; and their benchmarks exit 0
with a reason when there is no GPU (tests-integration/gpu/test_gpu_wgmma.py and
test_gpu_attention.py run them)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("llvmlite")

from cudalite import types  # noqa: E402
from cudalite.core.errors import NumbaPerformanceWarning  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def examples():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import flash_attention
        import wgmma_gemm
    finally:
        sys.path.pop(0)
    return wgmma_gemm, flash_attention


def _build(kernel, sig, strict=True):
    """Build to the cubin; ``strict``: ptxas's advisories are errors."""
    from cudalite.cuda._compiler.stages import make_job, run_build

    with warnings.catch_warnings():
        warnings.simplefilter("error" if strict else "ignore", NumbaPerformanceWarning)
        state = run_build(make_job(kernel.py_func, sig, kernel.options, (9, 0)), until="link")
    return state


MAP = types.uint8[::1]


@pytest.mark.parametrize("dtype, out", [("f16", types.float16), ("bf16", types.bfloat16), ("e4m3", types.bfloat16)])
def test_gemm_builds_without_advisories(examples, dtype, out):
    gemm = examples[0].make_gemm(dtype)
    state = _build(gemm, (MAP, MAP, out[:, ::1], types.int64, types.int64, types.int64))
    assert state.artifact.arch == "sm_90a" and "ltoir" in state.result.artifacts  # setmaxnreg: LTO


@pytest.mark.parametrize("d, causal, options, strict", [
    (128, False, {}, True), (64, True, {}, True), (128, True, {}, True), (128, True, {"stages": 3}, True),
    # the scheduling variants (not the default): the oldest supported ptxas serialises the
    # overlapped one (C7513), so only that they build is checked here
    (128, True, {"overlap": True}, False), (128, False, {"pingpong": True}, False),
    (64, False, {"overlap": True, "pingpong": True}, False),
])
def test_attention_builds_without_advisories(examples, d, causal, options, strict):
    kernel = examples[1].make_attention(d, causal, **options)
    state = _build(kernel, (MAP, MAP, MAP, types.float16[:, ::1], types.int64, types.float64), strict)
    assert state.artifact.arch == "sm_90a"


def _has_gpu():
    try:
        from cudalite import cuda

        cuda.get_current_device()
    except Exception:  # noqa: BLE001 - no driver or no device: the GPU-less case this test is for
        return False
    return True


@pytest.mark.parametrize("script", ["wgmma_gemm.py", "flash_attention.py"])
def test_benchmarks_skip_without_a_gpu(script):
    if _has_gpu():
        pytest.skip("a GPU is present: the benchmark would run (the GPU tests cover the kernels)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), "--reps", "1"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "benchmark skipped: no usable GPU" in proc.stdout


def test_attention_options_checked(examples):
    with pytest.raises(ValueError, match="stages must be 2 or 3"):
        examples[1].make_attention(128, stages=4)
    with pytest.raises(ValueError, match="head_dim must be 64 or 128"):
        examples[1].make_attention(96)
