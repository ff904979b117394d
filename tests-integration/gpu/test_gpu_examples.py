"""The numba-cuda-style examples (saxpy, shared-memory matmul, reduction) run as
scripts on the GPU, each checking its result against NumPy and printing OK."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


SLOW = pytest.mark.nosim("too slow under the simulator (full-size example data)")


@pytest.mark.parametrize("name", ["saxpy.py", pytest.param("matmul.py", marks=SLOW),
                                  pytest.param("reduction.py", marks=SLOW)])
def test_example_runs(gpu, name):
    path = EXAMPLES / name
    assert "from cudalite import cuda" in path.read_text()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "OK"
