"""Integration-test configuration: the ``gpu`` and ``nosim`` markers and the ``gpu`` fixture.

GPU tests skip cleanly where no device can be used.  The driver is probed
lazily, when the first GPU test runs, never at import or collection time.

Under the CPU simulator (``CUDALITE_ENABLE_CUDASIM=1``, ``nox -s gpu_sim``) the GPU
suite runs without a GPU: the driver is not probed, the ``gpu`` fixture is a
:class:`sim_harness.SimGpu`, and ``from cudalite import cuda`` is the simulator.
A GPU test that checks something the simulator cannot do carries
``@pytest.mark.nosim("reason")`` (or a module's ``pytestmark``) and is skipped there
with that reason; a ``nosim`` marker without a reason is an error.
"""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

_STATE_KEY = pytest.StashKey[object]()


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU (skipped without one)")
    config.addinivalue_line(
        "markers", "nosim(reason): a GPU test the CPU simulator cannot run (skipped under CUDALITE_ENABLE_CUDASIM=1)")


def simulating() -> bool:
    """True when ``cudalite.cuda`` is the CPU simulator (``CUDALITE_ENABLE_CUDASIM=1``)."""
    from cudalite.cuda.config import simulator_enabled

    return simulator_enabled()


def _gpu_or_reason(config):
    if _STATE_KEY not in config.stash:
        if simulating():
            from sim_harness import SimGpu

            config.stash[_STATE_KEY] = SimGpu()
            return config.stash[_STATE_KEY]
        try:
            from gpu_harness import Gpu

            config.stash[_STATE_KEY] = Gpu()
        except Exception as e:  # no driver, no device, no cuda-bindings driver module
            config.stash[_STATE_KEY] = f"no usable CUDA GPU: {type(e).__name__}: {e}"
    return config.stash[_STATE_KEY]


def _nosim_reason(item):
    marker = item.get_closest_marker("nosim")
    if marker is None:
        return None
    reason = marker.args[0] if marker.args else marker.kwargs.get("reason")
    if not isinstance(reason, str) or not reason:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.nosim needs a reason string")
    return reason


def pytest_runtest_setup(item):
    if item.get_closest_marker("gpu") is not None:
        if simulating():
            reason = _nosim_reason(item)
            if reason is not None:
                pytest.skip(f"not simulated: {reason}")
        state = _gpu_or_reason(item.config)
        if isinstance(state, str):
            pytest.skip(state)


@pytest.fixture
def gpu(request):
    state = _gpu_or_reason(request.config)
    if isinstance(state, str):
        pytest.skip(state)
    return state
