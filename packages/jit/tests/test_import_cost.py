"""``import cudalite.cuda`` stays cheap: no NumPy, no GPU libraries, no driver."""

from __future__ import annotations

import os
import subprocess
import sys

CHILD = """
import sys
from cudalite import cuda
heavy = [m for m in ("numpy", "llvmlite", "cuda.bindings.driver", "cuda.bindings.nvvm", "cuda.bindings.nvjitlink",
                     "cudalite.nvvm.lower", "cudalite.linker") if m in sys.modules]
print(",".join(heavy))
"""


def test_import_loads_no_numpy_and_no_gpu_library():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in sys.path if p and os.path.isdir(p))
    r = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "", f"imported at `import cudalite.cuda`: {r.stdout.strip()}"
