"""GPU-less tests of every pipeline-inspection entry point: ``cudalite.nvvm.compile_stages``
(every stage of a function and signature), the ``cudalite-compile --emit all`` CLI,
and the dispatchers' ``inspect_types`` / ``inspect_llvm`` / ``inspect_asm`` /
``inspect_sass`` on a kernel built for sm_90 without a device (freshly compiled,
and loaded from the on-disk cache, which stores the stage texts with the cubin)."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from cudalite import cuda
from cudalite.cuda._compiler import cache as _cache
from cudalite.cuda._compiler.kernel import CompiledKernel
from cudalite.cuda._dispatch.specializations import Specialization
from cudalite.cuda._dispatch.inspect import find_binary_utility
from cudalite.core.types import parse_signature

SIG = "void(float32[::1], float32[::1], float32)"


@cuda.jit(device=True)
def scale(v, a):
    return v * a


@cuda.jit
def axpy(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        y = scale(x[i], a)
        out[i] = y + 1.0


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def test_compile_stages_returns_every_gpu_less_stage():
    from cudalite import nvvm

    stages = nvvm.compile_stages(axpy.py_func, SIG, device=False, cc=(9, 0))
    assert list(stages) == ["source", "ast", "typed-ir", "nvvm-ir", "ptx"]
    assert "def axpy" in stages["source"].data
    assert "FunctionDef" in stages["ast"].data
    assert "y = float32" in stages["typed-ir"].data
    assert "!nvvm.annotations" in stages["nvvm-ir"].data
    assert ".target sm_90" in stages["ptx"].data
    lto = nvvm.compile_stages(scale.py_func, "float32(float32, float32)", output="ltoir", cc=(9, 0))
    assert isinstance(lto["ltoir"].data, bytes) and lto["ltoir"].data


def test_cli_emit_all(tmp_path):
    here = os.path.abspath(__file__)
    proc = subprocess.run([sys.executable, "-m", "cudalite.nvvm.cli", f"{here}:scale", "float32(float32, float32)",
                           "--emit", "all", "-o", str(tmp_path / "out"), "--cc", "9.0"],
                          capture_output=True, text=True, env=_env())
    assert proc.returncode == 0, proc.stderr
    names = sorted(os.listdir(tmp_path / "out"))
    for suffix in (".source.py", ".ast.txt", ".typed-ir.txt", ".ll", ".ptx"):
        assert any(n.endswith(suffix) for n in names), names


def _kernel_without_device(cache_dir=None):
    """A CompiledKernel for sm_90, built (not loaded), registered as an overload."""
    disp = cuda.jit(axpy.py_func) if cache_dir is None else cuda.jit(cache=True)(axpy.py_func)
    if cache_dir is not None:
        _cache.enable(cache_dir)
    try:
        k = CompiledKernel(disp.py_func, parse_signature(SIG)[1], disp.options, (9, 0), load=False)
    finally:
        _cache._settings.update(enabled=None, dir=None)
    disp._table.put(Specialization(k.argtypes, k))
    return disp, k, k.status


@pytest.mark.parametrize("cached", [False, True])
def test_dispatcher_inspection(tmp_path, cached):
    if cached:
        _kernel_without_device(tmp_path)  # fill the entry
    disp, k, status = _kernel_without_device(tmp_path if cached else None)
    assert status == ("hit" if cached else "off")
    argtypes = k.argtypes
    out = io.StringIO()
    texts = disp.inspect_types(file=out)
    text = out.getvalue()
    assert "axpy" in text and "y = scale(x[i], a)" in text and "y = float32" in text and "i = int64" in text
    assert list(texts) == [argtypes]
    llvm = disp.inspect_llvm(signature=argtypes)
    assert "define" in llvm and k.name in llvm
    assert disp.inspect_llvm() == {argtypes: llvm}
    asm = disp.inspect_asm(signature=SIG)
    assert ".entry" in asm and k.name in asm
    if find_binary_utility("nvdisasm") or find_binary_utility("cuobjdump"):
        sass = disp.inspect_sass(signature=argtypes)
        assert k.name in sass
    else:
        with pytest.raises(RuntimeError, match="nvdisasm"):
            disp.inspect_sass(signature=argtypes)
