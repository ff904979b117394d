"""GPU: a kernel launched right after its definition, in a fresh process: its
``CUDALITE_TIMINGS`` line names every part -- the wait for the background warm-up
(``warmup=``, when the launch came before the warm-up's imports were done), the
stages, the driver launcher -- and the parts add up to the total (issue 26)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("the compiler's warm-up and timing line")]

PROGRAM = """
import numpy as np
from cudalite import cuda

@cuda.jit
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]

x = np.arange(1000, dtype=np.float32)
y = np.ones(1000, np.float32)
out = np.zeros_like(x)
saxpy[4, 256](out, np.float32(2), x, y)  # at once: the warm-up may still be importing
np.testing.assert_allclose(out, 2 * x + y)
print("OK")
"""


def test_first_call_reports_the_warmup_wait_and_adds_up(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env["CUDALITE_CACHE_DIR"] = str(tmp_path / "cache")
    env["CUDALITE_TIMINGS"] = "1"
    env.pop("CUDALITE_CACHE", None)
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", textwrap.dedent(PROGRAM)], capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stderr
    (line,) = [ln for ln in proc.stderr.splitlines() if ln.startswith("cudalite: compiled saxpy(")]
    parts = {k: float(v) for k, v in re.findall(r"(\w+)=([0-9.]+)ms", line)}
    assert {"parse", "infer", "lower", "nvvm", "link", "load", "launcher"} <= set(parts), line
    assert parts.get("warmup", 1.0) > 0, line  # present only when the build waited
    total = parts.pop("total")
    assert abs(sum(parts.values()) - total) <= 0.01 * len(parts) + 1e-9, line  # each part rounded to 0.01 ms
