"""Shared fixtures for cudalite-nvvm tests (GPU-less).

``assemble(ptx)`` links PTX into an sm_90 cubin with nvJitLink: it proves the
PTX is valid without a GPU.  ``compile_and_assemble`` does both steps.
"""

from __future__ import annotations

import pytest


def _assemble(ptx, arch="sm_90"):
    from cuda.bindings import nvjitlink

    data = ptx.encode() if isinstance(ptx, str) else ptx
    handle = nvjitlink.create(1, [f"-arch={arch}"])
    try:
        try:
            nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "test.ptx")
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError:
            size = nvjitlink.get_error_log_size(handle)
            log = bytearray(size)
            nvjitlink.get_error_log(handle, log)
            raise AssertionError("nvJitLink rejected the PTX:\n" + log.decode(errors="replace")) from None
        size = nvjitlink.get_linked_cubin_size(handle)
        cubin = bytearray(size)
        nvjitlink.get_linked_cubin(handle, cubin)
        return bytes(cubin)
    finally:
        nvjitlink.destroy(handle)


@pytest.fixture
def assemble():
    return _assemble


@pytest.fixture
def compile_and_assemble():
    from cudalite.nvvm import compile_ptx

    def run(fn, sig, **kw):
        kw.setdefault("cc", (9, 0))
        ptx, resty = compile_ptx(fn, sig, **kw)
        cubin = _assemble(ptx)
        assert cubin[:4] == b"\x7fELF"
        return ptx, resty

    return run
