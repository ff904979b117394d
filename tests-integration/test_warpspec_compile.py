"""GPU-less checks of the warp-specialisation and dependent-launch primitives
(``cuda.named_barrier``, ``cuda.elect_sync``, ``cuda.griddepcontrol``,
``cuda.fence_proxy_async``): the PTX each emits (assembled by nvJitLink for sm_90),
misuse refused at the call's line, targets below sm_90 refused, and the
``programmatic_dependent_launch`` option reaching the launch configuration without
entering the cache key (the GPU tests run them: tests-integration/gpu/test_gpu_warpspec.py)."""

from __future__ import annotations

import linecache
import re

import pytest

pytest.importorskip("llvmlite")

from cudalite import cuda, types  # noqa: E402
from cudalite.core.errors import CompilerError, TypingError  # noqa: E402
from cudalite.nvvm import compile_ptx  # noqa: E402

SIG = (types.int32[::1], types.int32)


def _compile_src(tmp_path, body, cc=(9, 0)):
    src = tmp_path / "user_kernel.py"
    src.write_text("from cudalite import cuda\n\n\ndef k(a, n):\n" + "".join(f"    {line}\n" for line in body))
    ns = {}
    exec(compile(src.read_text(), str(src), "exec"), ns)
    linecache.checkcache(str(src))
    return compile_ptx(ns["k"], SIG, cc=cc)[0]


@pytest.mark.parametrize("body, pattern", [
    (["cuda.named_barrier.sync(1, 64)"], r"bar\.sync %r\d+, %r\d+;"),
    (["cuda.named_barrier.arrive(n, 128)"], r"bar\.arrive %r\d+, %r\d+;"),
    (["if cuda.elect_sync():", "    a[0] = 1"], r"elect\.sync _\|p, 0xffffffff;"),
    (["cuda.griddepcontrol.wait()"], r"griddepcontrol\.wait;"),
    (["cuda.griddepcontrol.launch_dependents()"], r"griddepcontrol\.launch_dependents;"),
    (["cuda.fence_proxy_async()"], r"fence\.proxy\.async\.shared::cta;"),
])
def test_ptx(tmp_path, body, pattern):
    ptx = _compile_src(tmp_path, body)
    assert re.search(pattern, ptx), ptx
    assert "llvm.nvvm" not in ptx  # inline PTX: no intrinsic call ptxas would refuse


def test_the_ptx_assembles_for_sm_90(tmp_path):
    from cudalite.linker import Linker, PTXSource

    ptx = _compile_src(tmp_path, ["cuda.griddepcontrol.wait()", "if cuda.elect_sync():", "    a[0] = 1",
                                  "cuda.named_barrier.sync(1, 64)", "cuda.named_barrier.arrive(2, n)",
                                  "cuda.fence_proxy_async()", "cuda.griddepcontrol.launch_dependents()"])
    cubin = Linker("sm_90").add(PTXSource(ptx, name="k.ptx")).link()
    assert cubin.arch == "sm_90"


def test_accesses_do_not_move_across_them(tmp_path):
    """Each is a memory clobber: the store before the barrier stays before it."""
    ptx = _compile_src(tmp_path, ["a[0] = 1", "cuda.named_barrier.sync(1, 64)", "a[1] = a[2]"])
    assert ptx.index("st.global") < ptx.index("bar.sync") < ptx.rindex("ld.global")


@pytest.mark.parametrize("line, message", [
    ("cuda.named_barrier.sync(16, 64)", "the barrier id must be from 0 to 15, not 16"),
    ("cuda.named_barrier.arrive(1, 48)", "the thread count must be a positive multiple of 32 (whole warps), not 48"),
    ("cuda.named_barrier.sync(1, 0)", "the thread count must be a positive multiple of 32"),
    ("cuda.named_barrier.sync(1.0, 64)", "the barrier id must be an integer, not float64"),
    ("cuda.named_barrier.sync(1)", "takes barrier_id and count: 1 argument(s) given"),
    ("cuda.elect_sync(0xffffffff)", "takes no arguments (it elects one lane of the whole warp)"),
    ("cuda.griddepcontrol.wait(1)", "takes no arguments"),
])
def test_misuse_is_located(tmp_path, line, message):
    with pytest.raises(TypingError) as info:
        _compile_src(tmp_path, [line])
    assert message in str(info.value)
    assert ":5:" in str(info.value).splitlines()[0]


@pytest.mark.parametrize("line, what", [
    ("cuda.griddepcontrol.wait()", "cuda.griddepcontrol.wait"),
    ("cuda.named_barrier.sync(1, 64)", "cuda.named_barrier.sync"),
    ("b = cuda.elect_sync()", "cuda.elect_sync"),
    ("cuda.fence_proxy_async()", "cuda.fence_proxy_async"),
])
def test_targets_below_sm_90_are_refused_at_the_line(tmp_path, line, what):
    with pytest.raises(CompilerError, match=f"{re.escape(what)} needs compute capability 9.0 or newer; the target "
                                            "is sm_80") as info:
        _compile_src(tmp_path, [line], cc=(8, 0))
    assert "user_kernel.py:5" in str(info.value)


def test_programmatic_dependent_launch_is_a_launch_attribute():
    """The option reaches every configuration's LaunchConfig (the driver launches it with
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION) and stays out of the cache key
    (it changes no code); it is a bool, and only for kernels."""
    from cudalite.cuda._compiler.cache import _options_fp

    def k(a):
        cuda.griddepcontrol.wait()

    pdl = cuda.jit(programmatic_dependent_launch=True)(k)
    plain = cuda.jit(k)
    assert pdl[128, 32].config.programmatic_dependent_launch is True
    assert pdl[128, 32, 0, 64].config.programmatic_dependent_launch is True
    assert plain[128, 32].config.programmatic_dependent_launch is False
    assert _options_fp(pdl.options) == _options_fp(plain.options)
    with pytest.raises(TypeError, match="programmatic_dependent_launch must be True or False, not 1"):
        cuda.jit(programmatic_dependent_launch=1)(k)
    with pytest.raises(TypeError, match="a device function"):
        cuda.jit(programmatic_dependent_launch=True, device=True)(k)
