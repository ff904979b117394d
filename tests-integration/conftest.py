"""Integration-test configuration: the ``gpu`` marker and the ``gpu`` fixture.

GPU tests skip cleanly where no device can be used.  The driver is probed
lazily, when the first GPU test runs, never at import or collection time.
"""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

_STATE_KEY = pytest.StashKey[object]()


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU (skipped without one)")


def _gpu_or_reason(config):
    if _STATE_KEY not in config.stash:
        try:
            from gpu_harness import Gpu

            config.stash[_STATE_KEY] = Gpu()
        except Exception as e:  # no driver, no device, no cuda-bindings driver module
            config.stash[_STATE_KEY] = f"no usable CUDA GPU: {type(e).__name__}: {e}"
    return config.stash[_STATE_KEY]


def pytest_runtest_setup(item):
    if item.get_closest_marker("gpu") is not None:
        state = _gpu_or_reason(item.config)
        if isinstance(state, str):
            pytest.skip(state)


@pytest.fixture
def gpu(request):
    state = _gpu_or_reason(request.config)
    if isinstance(state, str):
        pytest.skip(state)
    return state
