"""GPU-less: every kernel of the GPU suite compiles to PTX that nvJitLink accepts.

Each GPU test is run with a stand-in ``gpu`` fixture whose ``run`` compiles and
links the kernel for sm_90 and then stops the test (no device is touched).
This keeps the GPU suite's kernels honest in CI, where there is no GPU.
"""

from __future__ import annotations

import importlib.util
import inspect
import os

import pytest

from gpu_harness import Gpu, typeof_arg

HERE = os.path.join(os.path.dirname(__file__), "gpu")


_PARAM = type(pytest.param(None))  # what pytest.param(...) returns


class _Compiled(Exception):
    pass


class CompileOnlyGpu(Gpu):
    def __init__(self):  # no driver
        self.cc = (9, 0)

    def run(self, pyfunc, args, grid=1, block=1, sig=None, shared=0, cooperative=False, **opts):
        from cudalite.nvvm import compile_ptx

        if sig is None:
            sig = tuple(typeof_arg(a) for a in args)
        ptx, _ = compile_ptx(pyfunc, sig, device=False, cc=self.cc, **opts)
        cubin = self.link(ptx)
        assert cubin[:4] == b"\x7fELF"
        raise _Compiled()


def _cases():
    for fname in sorted(os.listdir(HERE)):
        if not (fname.startswith("test_") and fname.endswith(".py")):
            continue
        spec = importlib.util.spec_from_file_location(f"gpu_{fname[:-3]}", os.path.join(HERE, fname))
        mod = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(mod)
        except pytest.skip.Exception:  # a module that skips itself (importorskip): its own cases only
            continue
        for name, fn in vars(mod).items():
            if not (name.startswith("test_") and inspect.isfunction(fn)):
                continue
            if "gpu" not in inspect.signature(fn).parameters or "gpu.run(" not in inspect.getsource(fn):
                continue  # only tests that launch through the harness
            variants = [{}]
            for mark in getattr(fn, "pytestmark", []):
                if mark.name == "parametrize":
                    names = [n.strip() for n in mark.args[0].split(",")]
                    values = [tuple(v.values) if isinstance(v, _PARAM) else v if len(names) > 1 else (v,)
                              for v in mark.args[1]]  # pytest.param(..., marks=nosim(...)): its values
                    variants = [dict(zip(names, v)) for v in values]
            for kw in variants:
                yield pytest.param(fn, kw, id=f"{fname[:-3]}::{name}{list(kw.values()) or ''}")


@pytest.mark.parametrize("fn,kw", list(_cases()))
def test_kernel_compiles(fn, kw):
    others = {p: None for p in inspect.signature(fn).parameters if p != "gpu" and p not in kw}
    with pytest.raises(_Compiled):
        fn(CompileOnlyGpu(), **kw, **others)
