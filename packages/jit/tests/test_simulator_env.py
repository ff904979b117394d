"""``CUDALITE_ENABLE_CUDASIM=1`` (and numba's ``NUMBA_ENABLE_CUDASIM=1``) make
``from cudalite import cuda`` the CPU simulator, without the compiler or the driver."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cudalite.cuda.config import load_config, simulator_enabled

CHILD = """
import sys
import numpy as np
from cudalite import cuda

@cuda.jit
def add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]

a = np.arange(50.0)
d_c = cuda.device_array_like(a)
add[2, 32](cuda.to_device(a), a, d_c)
assert (d_c.copy_to_host() == 2 * a).all()
from cudalite.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

@cuda.jit
def draw(states, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = xoroshiro128p_uniform_float32(states, i)

u1, u2 = np.zeros(40, np.float32), np.zeros(40, np.float32)
draw[2, 32](create_xoroshiro128p_states(40, seed=7), u1)
draw[2, 32](create_xoroshiro128p_states(40, seed=7), u2)
assert (u1 == u2).all() and (u1 >= 0).all() and (u1 < 1).all() and len(set(u1.tolist())) > 30
# cudalite.driver is imported: the launch-config checks shared with the compiled runtime
# (cudalite.cuda._launch.config) build its LaunchConfig; the CUDA bindings and the compiler stay unloaded
heavy = [m for m in ("llvmlite", "cuda.bindings.driver", "cudalite.nvvm") if m in sys.modules]
print(cuda.implementation, cuda.is_available(), ",".join(heavy))
"""


def _run(env_updates):
    env = {k: v for k, v in os.environ.items() if k not in ("CUDALITE_ENABLE_CUDASIM", "NUMBA_ENABLE_CUDASIM")}
    env.update(env_updates)
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in sys.path if p and os.path.isdir(p))
    return subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("var", ["CUDALITE_ENABLE_CUDASIM", "NUMBA_ENABLE_CUDASIM"])
def test_environment_variable_selects_the_simulator(var):
    r = _run({var: "1"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["cudalite-simulator", "True"], r.stdout


def test_config_reads_both_names():
    assert simulator_enabled({"CUDALITE_ENABLE_CUDASIM": "1"})
    assert simulator_enabled({"NUMBA_ENABLE_CUDASIM": "yes"})
    assert not simulator_enabled({})
    assert not simulator_enabled({"CUDALITE_ENABLE_CUDASIM": "0", "NUMBA_ENABLE_CUDASIM": "1"})
    assert load_config({"NUMBA_ENABLE_CUDASIM": "1"}).enable_cudasim
    with pytest.raises(ValueError, match="CUDALITE_ENABLE_CUDASIM"):
        simulator_enabled({"CUDALITE_ENABLE_CUDASIM": "maybe"})
