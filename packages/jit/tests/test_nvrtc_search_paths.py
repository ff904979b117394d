"""CUDA C++ link sources: NVRTC searches each source's folder, then CUDALITE_NVRTC_EXTRA_SEARCH_PATHS."""

from __future__ import annotations

import os

from cudalite.cuda._compiler.linking import source_dirs


def test_source_folders_then_extra_search_paths(tmp_path, monkeypatch):
    monkeypatch.delenv("CUDALITE_NVRTC_EXTRA_SEARCH_PATHS", raising=False)
    cu = tmp_path / "a.cu"
    assert source_dirs([str(cu), "x.ptx"]) == (str(tmp_path),)
    monkeypatch.setenv("CUDALITE_NVRTC_EXTRA_SEARCH_PATHS", f"/inc1{os.pathsep}{tmp_path}{os.pathsep}/inc2")
    assert source_dirs([str(cu)]) == (str(tmp_path), "/inc1", "/inc2")  # each folder once
    assert source_dirs([]) == ("/inc1", str(tmp_path), "/inc2")
