"""Kernels the jit compiles for sm_90a (wgmma, setmaxnreg) on a 9.0 device keep that
target through the kernel cache and through pickles (GPU-less: built without loading):
the cache hits the sm_90a entry its sm_90 key stored, a pickle carries the sm_90a cubin
and loading it compiles nothing."""

from __future__ import annotations

import functools
import pickle

import numpy as np

from cudalite import cuda
from cudalite.cuda import types
from cudalite.cuda._compiler import carry as _carry
from cudalite.cuda._compiler.kernel import CompiledKernel
from cudalite.cuda._compiler.options import JitOptions
from cudalite.cuda._compiler.stages import make_job, run_build
from cudalite.cuda._dispatch import kernel as _dispatcher

SIG = (types.float32[:, ::1], types.int32)
NOLOAD = functools.partial(CompiledKernel, load=False)


def product(out, n):
    sa = cuda.shared.array(64 * 128, np.uint8, alignment=1024)
    d = cuda.wgmma.make_desc(sa, 0, 128, 16, 1024)
    cuda.wgmma.fence()
    acc = cuda.wgmma.mma_async(cuda.wgmma.zeros(64), d, d, "f16", False)
    cuda.wgmma.commit_group()
    acc = cuda.wgmma.wait_group(0, acc)
    cuda.wgmma.store(acc, out, 0, n)


def test_the_cache_keeps_sm_90a(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDALITE_CACHE_DIR", str(tmp_path))
    first = run_build(make_job(product, SIG, JitOptions(cache=True), (9, 0), cache=True), until="store")
    assert first.status == "miss" and first.artifact.arch == "sm_90a"
    again = run_build(make_job(product, SIG, JitOptions(cache=True), (9, 0), cache=True), until="store")
    assert again.status == "hit" and again.result is None
    assert again.artifact.arch == "sm_90a" and again.artifact.cubin == first.artifact.cubin


def test_a_pickle_carries_sm_90a_code(monkeypatch):
    monkeypatch.setattr(_dispatcher, "current_cc", lambda: (9, 0))
    k = cuda.jit(product)
    k._compiler = NOLOAD
    k.compile(SIG)
    art = k.overloads[SIG].artifact
    assert art.arch == "sm_90a"
    k2 = pickle.loads(pickle.dumps(k))
    assert isinstance(k2._compiler, _carry.CarriedCode)
    k2._compiler.fallback = NOLOAD  # (what loads a build; "pickled" below: the carried one, not compiled)
    kernel = k2.compile(SIG)
    assert kernel.status == "pickled" and kernel.artifact.arch == "sm_90a" and kernel.artifact.cubin == art.cubin

