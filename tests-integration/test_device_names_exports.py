"""numba.cuda's device-side names (libdevice, nanosleep, literal_unroll, the
cache-hint loads/stores, the fp16 math functions) are the same objects in
``cudalite.cuda`` and ``cudalite.nvvm`` (GPU-less)."""

from __future__ import annotations

NAMES = ("libdevice", "nanosleep", "literal_unroll", "ldca", "ldcg", "ldcs", "ldlu", "ldcv",
         "stcg", "stcs", "stwb", "stwt")


def test_names_are_exported_by_cudalite_cuda_and_nvvm():
    import cudalite.cuda as jit_cuda
    import cudalite.nvvm as nvvm
    from cudalite.core.device_api import DEVICE_API_NAMES

    for name in NAMES:
        assert getattr(jit_cuda, name) is getattr(nvvm, name), name
        assert name in nvvm.__all__ and name in DEVICE_API_NAMES, name
    assert jit_cuda.libdevice.sincosf is nvvm.libdevice.sincosf
    assert jit_cuda.fp16.hsin is nvvm.fp16.hsin and jit_cuda.fp16.htanh is nvvm.fp16.htanh


def test_device_names_refuse_to_run_on_the_host():
    import pytest

    import cudalite.cuda as jit_cuda

    with pytest.raises(RuntimeError, match=r"cuda\.libdevice\.sinf\(\) can only be used in device code"):
        jit_cuda.libdevice.sinf(1.0)
    with pytest.raises(RuntimeError, match=r"cuda\.ldcg\(\) can only be used in device code"):
        jit_cuda.ldcg([1.0], 0)
