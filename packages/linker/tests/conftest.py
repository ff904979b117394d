"""Shared fixtures of the cudalite-linker tests (GPU-less: NVRTC and nvJitLink only).

``symbols`` reads symbol names from an ELF independently of the package's own
reader, so link results are checked by a second parser.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from linker_testlib import DEFINES_G, cubin_symbols


@pytest.fixture
def symbols():
    return cubin_symbols


@pytest.fixture(scope="session")
def nvcc(tmp_path_factory):
    """A working nvcc (``nvcc -dc`` / ``nvcc -lib`` build the .o/.a inputs), else skip."""
    exe = shutil.which("nvcc")
    if exe is None:
        pytest.skip("nvcc not on PATH (object/archive inputs are built with nvcc)")
    probe_dir = tmp_path_factory.mktemp("nvcc-probe")
    src = probe_dir / "probe.cu"
    src.write_text(DEFINES_G)
    run = subprocess.run([exe, "-dc", "-arch=sm_90", str(src), "-o", str(probe_dir / "probe.o")],
                         capture_output=True, text=True)
    if run.returncode != 0:
        pytest.skip(f"nvcc cannot build device objects here: {run.stderr.strip()[:300]}")
    return exe


@pytest.fixture(scope="session")
def nvfatbin():
    """cuda.bindings.nvfatbin with its library loaded, else skip."""
    try:
        from cuda.bindings import nvfatbin as mod
        mod.version()
    except Exception as e:  # ImportError, or the library is missing
        pytest.skip(f"nvFatbin library not available: {str(e).splitlines()[0][:120]}")
    return mod
