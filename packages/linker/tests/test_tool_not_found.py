"""nvJitLink or NVRTC missing (their wheels not installed, or broken): a
``ToolNotFoundError`` -- a ``LinkerError``, as docs/errors.md promises for every
failure of the linker -- naming the wheel to install, instead of cuda-pathfinder's
``DynamicLibNotFoundError`` from the first call into cuda.bindings."""

from __future__ import annotations

import pytest
from cuda import pathfinder

import cudalite.linker as L


@pytest.fixture
def nothing_found(monkeypatch):
    def missing(name):
        raise pathfinder.DynamicLibNotFoundError(f"Failure finding {name!r}: no such library")

    monkeypatch.setattr(pathfinder, "load_nvidia_dynamic_lib", missing)


@pytest.mark.parametrize("call, lib, wheel", [
    (L.nvjitlink_version, "nvJitLink", "nvidia-nvjitlink"),
    (L.nvrtc_version, "nvrtc", "nvidia-cuda-nvrtc"),
    (lambda: L.compile_cuda("extern \"C\" __device__ int f() { return 1; }", arch="sm_90"), "nvrtc",
     "nvidia-cuda-nvrtc"),
    (lambda: L.link(L.PTXSource(b".version 8.0\n.target sm_90\n.address_size 64\n"), arch="sm_90"),
     "nvJitLink", "nvidia-nvjitlink"),
])
def test_a_missing_tool_is_a_linker_error_naming_its_wheel(nothing_found, call, lib, wheel):
    with pytest.raises(L.ToolNotFoundError, match=rf"{lib} was not found: install it with 'pip install {wheel}'") as e:
        call()
    assert isinstance(e.value, L.LinkerError)
    assert "DynamicLibNotFoundError: Failure finding" in str(e.value)


def test_other_errors_of_the_loader_are_not_renamed(monkeypatch):
    def broken(name):
        raise KeyError(name)

    monkeypatch.setattr(pathfinder, "load_nvidia_dynamic_lib", broken)
    with pytest.raises(KeyError):
        L.nvjitlink_version()
