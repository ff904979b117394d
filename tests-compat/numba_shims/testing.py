"""Harness stand-in for ``numba.cuda.testing`` (loaded under that name by the alias).

Our implementation of what numba-cuda's test files import from it, with numba's meaning
on real hardware (never the simulator): ``CUDATestCase``, the ``skip_*`` decorators,
``cc_X_or_above``, ``ForeignArray``, ``test_data_dir``.  Skips whose reason is that the
test is not about cudalite carry an ``N/A[rule]`` prefix the runner turns into "not
applicable": ``cudasim-only`` (runs only in numba's simulator).  ``skip_on_standalone_numba_cuda``
skips nothing (numba-cuda 0.30.4 always has the numba package).  FileCheck
assertions over numba's LLVM/PTX output raise ``NumbaInternal`` (rule ``ir-inspection``).
"""

from __future__ import annotations

import functools
import os
import pathlib
import platform
import unittest

import numpy as np

from compat_alias import NumbaInternal, find_tests_root
from numba.cuda.tests.support import TestCase, captured_stderr, captured_stdout  # noqa: F401  (re-exported)


def _tests_root():
    import sys

    from compat_alias import AliasFinder

    for f in sys.meta_path:
        if isinstance(f, AliasFinder):
            return f.tests_root
    return find_tests_root() or ""


# pathlib.Path objects, as numba's (its tests write ``test_data_dir / "jitlink.cu"``)
test_data_dir = pathlib.Path(_tests_root(), "data")
numba_cuda_dir = pathlib.Path(_tests_root()).parent


def _config():
    import importlib

    return importlib.import_module("numba.cuda.config")


class CUDATestCase(TestCase):
    """A test that uses a CUDA device (numba silences its occupancy/implicit-copy warnings)."""

    FLOAT16_RTOL = np.finfo(np.float16).eps

    def setUp(self):
        cfg = _config()
        self._saved_cfg = (cfg.CUDA_LOW_OCCUPANCY_WARNINGS, cfg.CUDA_WARN_ON_IMPLICIT_COPY)
        cfg.CUDA_LOW_OCCUPANCY_WARNINGS = 0
        cfg.CUDA_WARN_ON_IMPLICIT_COPY = 0

    def tearDown(self):
        cfg = _config()
        cfg.CUDA_LOW_OCCUPANCY_WARNINGS, cfg.CUDA_WARN_ON_IMPLICIT_COPY = self._saved_cfg

    def assertFileCheckAsm(self, *args, **kwargs):
        raise NumbaInternal("ir-inspection", "FileCheck over numba's PTX (assertFileCheckAsm)")

    def assertFileCheckLLVM(self, *args, **kwargs):
        raise NumbaInternal("ir-inspection", "FileCheck over numba's LLVM IR (assertFileCheckLLVM)")

    def assertFileCheckMatches(self, *args, **kwargs):
        raise NumbaInternal("ir-inspection", "FileCheck over numba's IR (assertFileCheckMatches)")


class ContextResettingTestCase(CUDATestCase):
    """Closes the CUDA context after each test (numba resets its context the same way)."""

    def tearDown(self):
        super().tearDown()
        from cudalite import cuda

        cuda.close()


def _na(rule, reason):
    return unittest.skip(f"N/A[{rule}]: {reason}")


def skip_on_cudasim(reason):
    """Skipped only in numba's simulator: never here."""
    assert isinstance(reason, str)
    return unittest.skipIf(False, reason)


def skip_unless_cudasim(reason):
    assert isinstance(reason, str)
    return _na("cudasim-only", reason)


def skip_on_standalone_numba_cuda(test):
    """numba skips these when the numba package is missing; numba-cuda 0.30.4 requires it
    (and the alias's HAS_NUMBA is true), so they run: a test that then calls numba's CPU
    target is "not applicable" (rule ``cpu-target``) where it does."""
    return test


def skip_unless_conda_cudatoolkit(reason):
    return unittest.skip(reason)


def skip_if_external_memmgr(reason):
    return unittest.skipIf(_config().CUDA_MEMORY_MANAGER != "default", reason)


def skip_under_cuda_memcheck(reason):
    return unittest.skipIf(os.environ.get("CUDA_MEMCHECK") is not None, reason)


def _nvdisasm():
    try:
        from cuda import pathfinder

        return pathfinder.find_nvidia_binary_utility("nvdisasm")
    except Exception:
        return None


def skip_without_nvdisasm(reason):
    return unittest.skipIf(_nvdisasm() is None, reason)


def skip_with_nvdisasm(reason):
    return unittest.skipIf(_nvdisasm() is not None, reason)


def skip_on_arm(reason):
    cpu = platform.processor() or platform.machine()
    return unittest.skipIf(cpu.startswith(("arm", "aarch")), reason)


def skip_on_wsl2(reason):
    rel = platform.release().lower()
    return unittest.skipIf("wsl2" in rel, reason)


def _include_dir():
    try:
        from cuda import pathfinder

        return pathfinder.find_nvidia_header_directory("cudart")
    except Exception:
        return None


def skip_if_cuda_includes_missing(fn):
    inc = _include_dir()
    return unittest.skipUnless(inc and os.path.isfile(os.path.join(inc, "cuda.h")),
                               "CUDA include dir not available on this system")(fn)


def skip_if_curand_kernel_missing(fn):
    try:
        from cuda import pathfinder

        inc = pathfinder.find_nvidia_header_directory("curand")
    except Exception:
        inc = None
    return unittest.skipUnless(inc and os.path.isfile(os.path.join(inc, "curand_kernel.h")),
                               "curand_kernel.h not available on this system")(fn)


@functools.lru_cache(maxsize=None)
def _device_cc():
    try:
        from cudalite import cuda

        return tuple(cuda.get_current_device().compute_capability)
    except Exception:
        return (0, 0)


def cc_X_or_above(major, minor):
    return _device_cc() >= (major, minor)


def skip_unless_cc_50(fn):
    return unittest.skipUnless(cc_X_or_above(5, 0), "requires cc >= 5.0")(fn)


def skip_unless_cc_53(fn):
    return unittest.skipUnless(cc_X_or_above(5, 3), "requires cc >= 5.3")(fn)


def skip_unless_cc_60(fn):
    return unittest.skipUnless(cc_X_or_above(6, 0), "requires cc >= 6.0")(fn)


def skip_unless_cc_75(fn):
    return unittest.skipUnless(cc_X_or_above(7, 5), "requires cc >= 7.5")(fn)


def skip_unless_cc_90(fn):
    return unittest.skipUnless(cc_X_or_above(9, 0), "requires cc >= 9.0")(fn)


def xfail_unless_cudasim(fn):
    """numba expects these to fail on hardware."""
    return unittest.expectedFailure(fn)


def cudadevrt_missing():
    return False  # cudalite links what it needs itself; a failure to find it shows as a failure


def skip_if_cudadevrt_missing(fn):
    return fn


def skip_if_nvjitlink_missing(reason):
    return unittest.skipIf(False, reason)  # cudalite always links with nvJitLink


def skip_on_nvjitlink_13_1_sm_120(reason):
    return unittest.skipIf(_device_cc() == (12, 0), reason)


class ForeignArray:
    """Hides a device array behind only its ``__cuda_array_interface__``."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


__all__ = [n for n in dir() if not n.startswith("_")] + ["unittest"]
