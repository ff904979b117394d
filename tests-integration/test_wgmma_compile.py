"""GPU-less checks of the warpgroup MMA (``cuda.wgmma``) and register reallocation
(``cuda.setmaxnreg``): the exact PTX instruction of every input type (registers,
immediates, A from registers, transposes), sm_90a chosen by the jit on a 9.0 target and
refused elsewhere at the user's line, the accumulators read only after ``wait_group``,
setmaxnreg routed through LTO-IR with its launch bounds checked, ptxas's serialisation
advisories turned into warnings, nvJitLink assembling it all, and misuse refused at the
line (the GPU tests run them: tests-integration/gpu/test_gpu_wgmma.py)."""

from __future__ import annotations

import linecache
import re
import warnings

import pytest

pytest.importorskip("llvmlite")

from cudalite import cuda, types  # noqa: E402
from cudalite.core.errors import CompilerError, NumbaPerformanceWarning, TypingError  # noqa: E402
from cudalite.nvvm import compile_ptx  # noqa: E402

SIG = (types.float32[:, ::1], types.int32)


def _load(tmp_path, body, params="out, n"):
    src = tmp_path / "user_kernel.py"
    src.write_text("import numpy as np\nfrom cudalite import cuda, types\n\n\n"
                   f"def k({params}):\n" + "".join(f"    {line}\n" for line in body))
    ns = {}
    exec(compile(src.read_text(), str(src), "exec"), ns)
    linecache.checkcache(str(src))
    return ns["k"], str(src)


def _ptx(tmp_path, body, cc="sm_90a"):
    return compile_ptx(_load(tmp_path, body)[0], SIG, cc=cc)[0]


TILE = ["sa = cuda.shared.array(64 * 128, np.uint8, alignment=1024)",
        "sb = cuda.shared.array(256 * 128, np.uint8, alignment=1024)",
        "da = cuda.wgmma.make_desc(sa, 0, 128, 16, 1024)",
        "db = cuda.wgmma.make_desc(sb, 0, 128, 16, 1024)"]


def _product(n, dtype, extra="", rs=False):
    a = "(types.uint32(n), types.uint32(1), types.uint32(2), types.uint32(3))" if rs else "da"
    return TILE + [f"acc = cuda.wgmma.zeros({n})", "cuda.wgmma.fence()",
                   f"acc = cuda.wgmma.mma_async(acc, {a}, db, {dtype!r}{extra})", "cuda.wgmma.commit_group()",
                   "acc = cuda.wgmma.wait_group(0, acc)", "cuda.wgmma.store(acc, out, 0, 0)"]


def _mma_line(ptx):
    start = ptx.index("wgmma.mma_async")
    return " ".join(ptx[start:ptx.index(";", start)].split())


@pytest.mark.parametrize("dtype, n, shape, imms", [
    ("f16", 64, "m64n64k16.f32.f16.f16", "p, 1, 1, 0, 0"),
    ("bf16", 256, "m64n256k16.f32.bf16.bf16", "p, 1, 1, 0, 0"),
    ("f16", 8, "m64n8k16.f32.f16.f16", "p, 1, 1, 0, 0"),
    ("tf32", 128, "m64n128k8.f32.tf32.tf32", "p, 1, 1"),  # no transpose immediates: K-major only
    ("e4m3", 64, "m64n64k32.f32.e4m3.e4m3", "p, 1, 1"),
    ("e5m2", 16, "m64n16k32.f32.e5m2.e5m2", "p, 1, 1"),
])
def test_mma_async_ptx(tmp_path, dtype, n, shape, imms):
    ptx = _ptx(tmp_path, _product(n, dtype))
    line = _mma_line(ptx)
    assert line.startswith(f"wgmma.mma_async.sync.aligned.{shape} {{"), line
    regs = re.search(r"\{([^}]*)\}", line).group(1).split(",")
    assert len(regs) == n // 2 and all(r.strip().startswith("%f") for r in regs)
    assert line.endswith(imms), line
    assert re.search(r"\}, %rd\d+, %rd\d+, p, ", line)  # two shared-memory descriptors
    assert ".target sm_90a" in ptx and "llvm.nvvm" not in ptx
    for op in ("wgmma.fence.sync.aligned;", "wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 0;"):
        assert op in ptx


def test_a_from_registers_and_transposes(tmp_path):
    line = _mma_line(_ptx(tmp_path, _product(64, "f16", rs=True)))
    assert re.search(r"\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, p, 1, 1, 0$", line), line  # no trans-a
    line = _mma_line(_ptx(tmp_path, _product(64, "bf16", ", True, True, False")))
    assert line.endswith("p, 1, 1, 1, 0"), line
    line = _mma_line(_ptx(tmp_path, _product(64, "f16", ", scale_d=False, trans_b=True")))
    assert line.endswith("p, 1, 1, 0, 1"), line


def test_it_all_assembles_for_sm_90a(tmp_path):
    from cudalite.linker import Linker, PTXSource

    for dtype, rs in (("f16", False), ("f16", True), ("tf32", False), ("e4m3", False)):
        ptx = _ptx(tmp_path, _product(128, dtype, rs=rs))
        assert Linker("sm_90a").add(PTXSource(ptx, name="k.ptx")).link().data  # ptxas accepts it


def test_accumulators_are_read_after_the_wait(tmp_path):
    """wait_group returns the registers through an instruction of its own: every use of the
    accumulator (here, the stores) follows the wait."""
    ptx = _ptx(tmp_path, _product(64, "f16"))
    assert ptx.index("wgmma.mma_async") < ptx.index("wgmma.commit_group") < ptx.index("wgmma.wait_group")
    assert ptx.index("wgmma.wait_group") < ptx.index("st.global")


def test_an_overwriting_mma_reads_no_accumulator(tmp_path):
    """scale_d the constant False: the accumulator's registers get no value before the MMA
    (zeros moved into them inside the MMA pipeline would make ptxas serialise it)."""
    body = TILE + ["acc = cuda.wgmma.mma_async(cuda.wgmma.zeros(64), da, db, 'f16', False)",
                   "cuda.wgmma.commit_group()", "acc = cuda.wgmma.wait_group(0, acc)",
                   "cuda.wgmma.store(acc, out, 0, 0)"]
    ptx = _ptx(tmp_path, body)
    assert not re.search(r"mov\.f32\s+%f\d+, 0f00000000", ptx[:ptx.index("wgmma.mma_async")])
    ptx = _ptx(tmp_path, body[:-4] + ["acc = cuda.wgmma.mma_async(cuda.wgmma.zeros(64), da, db, 'f16', n > 0)"]
               + body[-3:])
    assert re.search(r"mov\.(f32|b32)\s+%f\d+, 0f00000000", ptx)  # a runtime scale_d may read the zeros


def test_wait_group_passes_a_fragments_and_scale_rows(tmp_path):
    """A fragments (uint32, nested) pass through the wait tied to their registers; scale_rows
    multiplies the first row's elements by lo, the second's by hi."""
    body = TILE + ["p = ((types.uint32(n), types.uint32(1), types.uint32(2), types.uint32(3)),)",
                   "acc = cuda.wgmma.zeros(16)", "cuda.wgmma.fence()",
                   "acc = cuda.wgmma.mma_async(acc, p[0], db, 'f16')", "cuda.wgmma.commit_group()",
                   "acc, p = cuda.wgmma.wait_group(0, acc, p)",
                   "acc = cuda.wgmma.scale_rows(acc, types.float32(n), types.float32(2 * n))",
                   "cuda.wgmma.store(acc, out, 0, p[0][0])"]
    ptx = _ptx(tmp_path, body)
    wait = ptx.index("wgmma.wait_group")
    assert "wgmma.wait_group.sync.aligned 0;" in ptx and ptx.count("mul.f32", wait) >= 8  # 8 elements scaled


def test_constant_tuple_slices(tmp_path):
    ptx = _ptx(tmp_path, ["t = (n, n + 1, n + 2, n + 3)", "u = t[1:] + t[::2]", "out[0, 0] = u[0] + u[3] + len(u)"])
    assert "st.global.f32" in ptx
    from cudalite.nvvm import compile_stages  # the typed IR: the slices' types, Python's semantics

    fn, _ = _load(tmp_path, ["t = (n, 1.5, n > 0, n + 3)", "out[0, 0] = len(t[::-1]) + len(t[-2:]) + len(t[5:])",
                             "u = t[::-1]", "out[0, 1] = u[0]", "v = t[-3:-1]", "out[0, 2] = v[1]"])
    typed = compile_stages(fn, SIG, device=False, cc=(8, 0))["typed-ir"].data
    assert "Tuple(int64, bool, float64, int32)" in typed  # t[::-1]
    assert "Tuple(float64, bool)" in typed  # t[-3:-1]
    fn, path = _load(tmp_path, ["t = (n, n + 1)", "out[0, 0] = t[n:][0]"])
    with pytest.raises(TypingError, match="a tuple can only be sliced with constant bounds") as info:
        compile_ptx(fn, SIG, cc=(8, 0))
    assert info.value.loc.filename == path and info.value.loc.line == 7


def test_the_pipeline_helper_is_inlined(tmp_path):
    """cudalite.cuda.tma_pipeline's functions leave no call in the kernel (a call inside an
    MMA pipeline would serialise it)."""
    body = ["full = cuda.shared.array(3, np.uint64)", "empty = cuda.shared.array(3, np.uint64)",
            "if cuda.threadIdx.x == 0:", "    pipe.init(full, empty, 128)", "cuda.syncthreads()",
            "for it in range(n):", "    s = pipe.producer_acquire(empty, it)", "    pipe.producer_commit(full, s, 64)",
            "    s = pipe.consumer_wait(full, it)", "    pipe.consumer_release(empty, s)"]
    src = tmp_path / "user_kernel.py"
    src.write_text("import numpy as np\nfrom cudalite import cuda\nfrom cudalite.cuda import tma_pipeline as pipe\n\n\n"
                   "def k(out, n):\n" + "".join(f"    {line}\n" for line in body))
    ns = {}
    exec(compile(src.read_text(), str(src), "exec"), ns)
    ptx = cuda.jit(ns["k"]).compile_ptx_for(SIG, cc=(9, 0))
    assert "call" not in ptx.replace("callseq", "") and "mbarrier.try_wait.parity" in ptx
    assert "mbarrier.arrive.expect_tx" in ptx and ptx.count("mbarrier.init") >= 1


def test_dynamic_shared_memory_alignment(tmp_path):
    ptx = _ptx(tmp_path, ["s = cuda.shared.array(0, np.uint8, alignment=1024)", "t = cuda.shared.array(0, np.float32)",
                          "out[0, 0] = s[n] + t[n]"], cc=(8, 0))
    assert ".extern .shared .align 1024 .b8 cudalite_dynshared[];" in ptx


@pytest.mark.parametrize("cc, message", [
    ((9, 0), "needs the arch-specific target sm_90a; the target is sm_90 (compile with cc='sm_90a'"),
    ((8, 0), "exists only on sm_90a (Hopper: H100/H200, compute capability 9.0); the target is sm_80"),
    ("sm_100a", "exists only on sm_90a (Hopper: H100/H200, compute capability 9.0); the target is sm_100a"),
])
def test_targets_other_than_sm_90a_refused_at_the_line(tmp_path, cc, message):
    fn, path = _load(tmp_path, _product(64, "f16"))
    with pytest.raises(CompilerError, match=re.escape(message)) as info:
        compile_ptx(fn, SIG, cc=cc)
    assert info.value.loc.filename == path and info.value.loc.line == 11  # the fence: the first sm_90a instruction


def _build(fn, sig, options, cc=(9, 0), until="link"):
    from cudalite.cuda._compiler.stages import make_job, run_build

    return run_build(make_job(fn, sig, options, cc), until=until)


def test_the_jit_compiles_sm_90a_where_the_code_needs_it(tmp_path):
    from cudalite.cuda._compiler.options import JitOptions

    fn, _ = _load(tmp_path, _product(64, "f16"))
    state = _build(fn, SIG, JitOptions())
    assert state.artifact.arch == "sm_90a" and ".target sm_90a" in state.result.artifacts["ptx"].data
    plain, _ = _load(tmp_path, ["out[0, 0] = n"])
    assert _build(plain, SIG, JitOptions()).artifact.arch == "sm_90"  # other kernels keep sm_90


def test_a_fatbin_of_wgmma_for_other_targets_is_refused(tmp_path):
    fn, _ = _load(tmp_path, _product(64, "f16"))
    with pytest.raises(CompilerError, match="uses sm_90a-only instructions .* cannot be built for sm_100"):
        cuda.compile(fn, SIG, cc=[90, 100], output="fatbin")
    from cudalite.cuda._compiler.options import JitOptions
    from cudalite.cuda._compiler.stages import make_job, run_build

    state = run_build(make_job(fn, SIG, JitOptions(), (9, 0), archs=["sm_90a"], output="fatbin"), until="link")
    assert [arch for arch, _ in state.cubins] == ["sm_90a"]  # (packing it needs nvFatbin: not here)


SETMAXNREG = ["if cuda.threadIdx.x < 128:", "    cuda.setmaxnreg.dec(40)", "else:", "    cuda.setmaxnreg.inc(232)",
              "out[0, cuda.threadIdx.x] = n"]


def test_setmaxnreg_goes_through_lto_without_advisories(tmp_path):
    from cudalite.cuda._compiler.options import JitOptions

    fn, _ = _load(tmp_path, SETMAXNREG)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NumbaPerformanceWarning)  # no C7504/C7508: ptxas honours it
        state = _build(fn, SIG, JitOptions(launch_bounds=(384, 1)))
    assert "ltoir" in state.result.artifacts and "ptx" not in state.result.artifacts
    assert state.artifact.arch == "sm_90a"
    ptx = compile_ptx(fn, SIG, cc="sm_90a", launch_bounds=(384, 1))[0]
    assert "setmaxnreg.dec.sync.aligned.u32 40;" in ptx and "setmaxnreg.inc.sync.aligned.u32 232;" in ptx


@pytest.mark.parametrize("bounds", [None, (384,), (384, 2)])
def test_setmaxnreg_needs_the_launch_bounds(tmp_path, bounds):
    fn, path = _load(tmp_path, SETMAXNREG)
    with pytest.raises(CompilerError, match=r"launch_bounds=\(threads_per_block, 1\)") as info:
        compile_ptx(fn, SIG, cc="sm_90a", launch_bounds=bounds)
    assert info.value.loc.filename == path and info.value.loc.line == 7


def test_serialised_wgmma_is_a_performance_warning(tmp_path):
    """A call inside the MMA pipeline (print) makes ptxas serialise it (C7509): a warning
    at the kernel's line, not a silent slowdown."""
    from cudalite.cuda._compiler.options import JitOptions

    body = TILE + ["acc = cuda.wgmma.zeros(64)", "for j in range(n):", "    cuda.wgmma.fence()",
                   "    acc = cuda.wgmma.mma_async(acc, da, db, 'f16', j > 0)", "    cuda.wgmma.commit_group()",
                   "    print(j)", "acc = cuda.wgmma.wait_group(0, acc)", "cuda.wgmma.store(acc, out, 0, 0)"]
    fn, path = _load(tmp_path, body)
    with pytest.warns(NumbaPerformanceWarning, match=r"C7509.*serialized") as record:
        _build(fn, SIG, JitOptions())
    assert any(w.filename == path and w.lineno == 5 for w in record)


@pytest.mark.parametrize("line, message", [
    ("cuda.wgmma.mma_async((types.float32(0), types.float32(1)), da, db, 'f16')",
     "accumulator must be a tuple of N/2 float32"),
    ("cuda.wgmma.mma_async(cuda.wgmma.zeros(64), da, db, 'f32')", "dtype must be one of"),
    ("cuda.wgmma.mma_async(cuda.wgmma.zeros(64), da, db, 'tf32', True, False, True)",
     "tf32 tiles cannot be transposed"),
    ("cuda.wgmma.wait_group(0, (n, n))", "argument 1 must be a fragment"),
    ("cuda.wgmma.scale_rows(cuda.wgmma.zeros(64), sa, 1.0)", "lo must be a real number"),
    ("cuda.wgmma.mma_async(cuda.wgmma.zeros(64), (n, n), db, 'f16')", "A from registers must be a tuple of 4 uint32"),
    ("cuda.wgmma.mma_async(cuda.wgmma.zeros(64), 1.5, db, 'f16')", "a must be a shared-memory descriptor"),
    ("cuda.wgmma.zeros(12)", "N must be a constant multiple of 8 from 8 to 256"),
    ("cuda.wgmma.zeros(n)", "must be a compile-time constant"),
    ("cuda.wgmma.wait_group(8)", "group count must be a constant from 0 to 7"),
    ("cuda.wgmma.make_desc(sa, 0, 48, 16, 1024)", "swizzle must be the constant 0, 32, 64 or 128"),
    ("cuda.wgmma.make_desc(sa, 0, 128, 20, 1024)", "leading_bytes must be a multiple of 16"),
    ("cuda.wgmma.make_desc(sa, (0, 0), 128, 16, 1024)", "the index must be an integer"),
    ("cuda.wgmma.store(cuda.wgmma.zeros(64), sa, 0, 0)", "destination must be a 2-d array"),
    ("cuda.setmaxnreg.inc(20)", "register count must be a constant multiple of 8 from 24 to 256"),
    ("cuda.setmaxnreg.dec(n)", "must be a compile-time constant"),
])
def test_misuse_is_located(tmp_path, line, message):
    fn, path = _load(tmp_path, TILE + [line])
    with pytest.raises(TypingError, match=re.escape(message)) as info:
        compile_ptx(fn, SIG, cc="sm_90a")
    assert info.value.loc.filename == path and info.value.loc.line == 10



def test_store_is_bounds_checked_under_boundscheck(tmp_path):
    """With boundscheck the store checks the thread's last row and column (an IndexError
    record naming the index), without it no check is emitted."""
    fn, _ = _load(tmp_path, ["cuda.wgmma.store(cuda.wgmma.zeros(64), out, n, 0)"])
    checked = cuda.jit(boundscheck=True)(fn).compile_ptx_for(SIG, cc=(8, 0))
    plain = cuda.jit(fn).compile_ptx_for(SIG, cc=(8, 0))
    assert "setp.lt.u64" in checked and "__cudalite_exc" in checked  # the compare, the IndexError record
    assert "setp" not in plain and "__cudalite_exc" not in plain
