"""Fixtures for cudalite-driver tests.

GPU tests are marked ``@pytest.mark.gpu``; whether a device is usable is probed
lazily in ``pytest_runtest_setup`` (never at collection/import), and they skip
cleanly when cuInit fails or there is no device.  ``cubin`` links the hand-written
PTX kernels of ``driver_kernels.py`` for the device's exact sm with nvJitLink (a test-only
dependency: the driver package itself never uses nvJitLink).
"""

from __future__ import annotations

import functools

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped cleanly without one)")


@functools.lru_cache(maxsize=None)
def _gpu_unavailable():
    try:
        from cudalite.driver import device_count

        if device_count() < 1:
            return "no CUDA device"
    except Exception as exc:  # no libcuda, cuInit failure, ...
        return f"no usable CUDA driver: {exc}"
    return None


def pytest_runtest_setup(item):
    if item.get_closest_marker("gpu") is not None:
        reason = _gpu_unavailable()
        if reason:
            pytest.skip(reason)


def link_ptx(ptx, arch):
    from cuda.bindings import nvjitlink

    data = ptx.encode()
    handle = nvjitlink.create(1, [f"-arch={arch}"])
    try:
        try:
            nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "kernels.ptx")
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError:
            log = bytearray(nvjitlink.get_error_log_size(handle))
            nvjitlink.get_error_log(handle, log)
            raise AssertionError("nvJitLink rejected the PTX:\n" + log.decode(errors="replace")) from None
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
        return bytes(cubin)
    finally:
        nvjitlink.destroy(handle)


@pytest.fixture(scope="session")
def cubin():
    from cudalite.driver import current_device

    from driver_kernels import PTX

    return link_ptx(PTX, current_device().arch)


@pytest.fixture(scope="session")
def module(cubin):
    from cudalite.driver import load_module

    return load_module(cubin)


@pytest.fixture(scope="session")
def sm90_module():
    """The module of ``driver_kernels.SM90_PTX`` (skips below compute capability 9.0)."""
    from cudalite.driver import current_device, load_module

    from driver_kernels import SM90_PTX

    dev = current_device()
    if dev.compute_capability < (9, 0):
        pytest.skip(f"needs compute capability 9.0 (clusters, programmatic dependent launch); "
                    f"{dev.name} is {dev.arch}")
    return load_module(link_ptx(SM90_PTX, dev.arch))
