"""GPU: the on-disk kernel cache end to end, in fresh processes: a second process
hits (no lowering, libNVVM or link) and computes the right answer; the global
switch; debug exceptions survive the cache; kernels with ``link=`` (a .cu file
through NVRTC) are cached; ``CUDALITE_TIMINGS=1`` prints every stage."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("the on-disk kernel cache")]

PROGRAM = """
import numpy as np
from cudalite import cuda

@cuda.jit(device=True)
def twice(v):
    return v * 2

@cuda.jit({options})
def saxpy(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * twice(x[i]) {extra}

@cuda.jit(cache=True, debug=True, opt=False)
def raiser(a):
    i = cuda.grid(1)
    if i == 37:
        raise ValueError("bad value")
    a[i] = i

n = 1000
x = cuda.to_device(np.arange(n, dtype=np.float32))
out = cuda.device_array(n, np.float32)
saxpy[(n + 127) // 128, 128](out, x, np.float32(3.0))
got = out.copy_to_host()
assert np.allclose(got, 6.0 * np.arange(n, dtype=np.float32) {check}), got[:4]
if {raiser}:
    a = cuda.device_array(64, np.int32)
    try:
        raiser[1, 64](a)
        cuda.synchronize()
    except ValueError as e:
        assert "bad value" in str(e) and "tid=[37, 0, 0]" in str(e), e
    else:
        raise AssertionError("no exception")
print("OK")
"""


def _run(tmp_path, options="cache=True", extra="", check="", raiser=False, env_extra=None):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM.format(options=options, extra=extra, check=check, raiser=raiser))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env["CUDALITE_CACHE_DIR"] = str(tmp_path / "cache")
    env["CUDALITE_TIMINGS"] = "1"
    env.pop("CUDALITE_CACHE", None)
    env.update(env_extra or {})
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stderr
    return [line for line in proc.stderr.splitlines() if line.startswith("cudalite: compiled")]


def _status(lines, name):
    (line,) = [ln for ln in lines if f"compiled {name}(" in ln]
    return re.search(r"\[cache: ([^\]]+)\]", line).group(1), line


def test_second_process_hits(tmp_path):
    status, line = _status(_run(tmp_path), "saxpy")
    assert status == "miss"
    for stage in ("parse=", "infer=", "lower=", "nvvm=", "link=", "load=", "total="):
        assert stage in line, line
    status, line = _status(_run(tmp_path), "saxpy")
    assert status == "hit"
    assert "lower=" not in line and "nvvm=" not in line and "link=" not in line and "load=" in line
    entries = os.listdir(tmp_path / "cache" / "kernels")
    assert sum(n.endswith(".cubin-entry") for n in entries) == 1


def test_global_switch(tmp_path):
    status, _ = _status(_run(tmp_path, options="", env_extra={"CUDALITE_CACHE": "1"}), "saxpy")
    assert status == "miss"
    status, _ = _status(_run(tmp_path, options="", env_extra={"CUDALITE_CACHE": "1"}), "saxpy")
    assert status == "hit"
    status, _ = _status(_run(tmp_path, options=""), "saxpy")  # switched off: not cached
    assert status == "off"


def test_debug_exceptions_survive_the_cache(tmp_path):
    assert _status(_run(tmp_path, raiser=True), "raiser")[0] == "miss"
    assert _status(_run(tmp_path, raiser=True), "raiser")[0] == "hit"


def test_kernel_with_linked_cu_file_is_cached(tmp_path):
    cu = tmp_path / "offset.cu"
    cu.write_text('extern "C" __device__ int offset(float *r, float x) { *r = x + 1.0f; return 0; }\n')
    decl = f'offset = cuda.declare_device("offset", "float32(float32)", link=[{str(cu)!r}])'
    status, line = _status(_run_linked(tmp_path, decl), "usesoffset")
    assert status == "miss" and "link=" in line
    status, line = _status(_run_linked(tmp_path, decl), "usesoffset")
    assert status == "hit" and "link=" not in line
    cu.write_text('extern "C" __device__ int offset(float *r, float x) { *r = x + 2.0f; return 0; }\n')
    status, _ = _status(_run_linked(tmp_path, decl, expect=2.0), "usesoffset")
    assert status == "miss"


LINKED = """
import numpy as np
from cudalite import cuda
{decl}

@cuda.jit(cache=True)
def usesoffset(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = offset(x[i])

n = 256
x = cuda.to_device(np.arange(n, dtype=np.float32))
out = cuda.device_array(n, np.float32)
usesoffset[1, n](out, x)
assert np.allclose(out.copy_to_host(), np.arange(n, dtype=np.float32) + {expect})
print("OK")
"""


def _run_linked(tmp_path, decl, expect=1.0):
    script = tmp_path / "linked.py"
    script.write_text(textwrap.dedent(LINKED.format(decl=decl, expect=expect)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env["CUDALITE_CACHE_DIR"] = str(tmp_path / "cache")
    env["CUDALITE_TIMINGS"] = "1"
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stderr
    return [line for line in proc.stderr.splitlines() if line.startswith("cudalite: compiled")]
