"""GPU-less: once a program has imported cuda.core, driver errors are also cuda.core's
``CUDAError`` (what numba-cuda 0.30 raises for a failed launch), still pickle, and stay
plain ``CudaDriverError`` otherwise."""

from __future__ import annotations

import pickle
import sys
import types

import pytest

from cudalite.driver import errors
from cudalite.driver.errors import CudaDriverError, error_from_code


@pytest.fixture
def fake_cuda_core(monkeypatch):
    class CUDAError(Exception):
        pass

    mod = types.ModuleType("cuda.core._utils.cuda_utils")
    mod.CUDAError = CUDAError
    monkeypatch.setitem(sys.modules, "cuda.core._utils.cuda_utils", mod)
    return CUDAError


def test_plain_without_cuda_core(monkeypatch):
    monkeypatch.delitem(sys.modules, "cuda.core._utils.cuda_utils", raising=False)
    err = error_from_code(1, "cuLaunchKernel", query_driver=False)
    assert type(err) is CudaDriverError


def test_also_cuda_core_error(fake_cuda_core):
    err = error_from_code(1, "cuLaunchKernel", query_driver=False)
    assert isinstance(err, CudaDriverError) and isinstance(err, fake_cuda_core) and isinstance(err, RuntimeError)
    assert type(err).__name__ == "CudaDriverError"
    assert "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (1)" in str(err)
    with pytest.raises(fake_cuda_core, match="CUDA_ERROR_INVALID_VALUE"):
        errors.raise_for(1, "cuLaunchKernel")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is CudaDriverError and (back.code, back.call) == (1, "cuLaunchKernel")
    assert type(error_from_code(2, "cuMemAlloc", query_driver=False)) is type(err)  # one class, made once
