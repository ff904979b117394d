"""GPU-less checks of the tensor-core, async-copy and TMA intrinsics: the PTX each
emits, and misuse refused at the call's line with the reason (the GPU tests check the
results: tests-integration/gpu/test_gpu_tensorcore.py)."""

from __future__ import annotations

import linecache
import re

import pytest

pytest.importorskip("llvmlite")

from cudalite import types  # noqa: E402
from cudalite.core.errors import CompilerError, TypingError  # noqa: E402
from cudalite.nvvm import compile_ptx  # noqa: E402

A16 = types.float16[:, ::1]


def _compile_src(tmp_path, body, sig, cc=(9, 0)):
    src = tmp_path / "user_kernel.py"
    src.write_text("import numpy as np\nfrom cudalite import cuda, types\n\n\ndef k(a, b):\n"
                   "    z = types.float32(0)\n    s = cuda.shared.array((16, 16), np.float16)\n"
                   "    bar = cuda.shared.array(1, np.uint64)\n" + "".join(f"    {line}\n" for line in body))
    ns = {}
    exec(compile(src.read_text(), str(src), "exec"), ns)
    linecache.checkcache(str(src))
    return compile_ptx(ns["k"], sig, cc=cc, device=True)[0], str(src)


@pytest.mark.parametrize("body, needle", [
    (["r = cuda.mma.ldmatrix(s, (0, 0), 4, True)"], "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"),
    (["r = cuda.mma.ldmatrix(s, (0, 0), 1)"], "ldmatrix.sync.aligned.m8n8.x1.shared.b16"),
    (["b[0] = cuda.mma.pack_bf16x2(z, z)"], "cvt.rn.bf16x2.f32"),
    (["b[0] = cuda.mma.to_tf32(z)"], "cvt.rna.tf32.f32"),
    (["r = cuda.mma.ldmatrix(s, (0, 0), 1)", "b[0] = r[0]"], "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r"),
    (["cuda.pipeline.memcpy_async(s, (0, 0), a, (0, 0), 8)", "cuda.pipeline.commit()", "cuda.pipeline.wait(3)"],
     "cp.async.ca.shared.global [%r"),
    (["cuda.pipeline.wait(3)"], "cp.async.wait_group 3;"),
    (["cuda.mbarrier.init(bar, 0, 2)"], "mbarrier.init.shared::cta.b64"),
    (["cuda.mbarrier.wait(bar, 0, 1)"], "mbarrier.try_wait.parity.shared::cta.b64"),
    (["cuda.tma.store(s, b, (0, 16))"], "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd"),
    (["cuda.tma.prefetch(b, (1, 2, 3))"], "cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%rd"),
    (["cuda.tma.load_multicast(s, b, (0, 0), bar, 0, 3)"],
     "mbarrier::complete_tx::bytes.multicast::cluster [d], [%rd"),
    (["b[0] = cuda.mbarrier.try_wait(bar, 0, 1)"], "mbarrier.try_wait.parity.shared::cta.b64 p, [a], %r"),
    (["cuda.mbarrier.arrive_cluster(bar, 0, 1)"], "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r];"),
    (["cuda.mbarrier.arrive_cluster(bar, 0, 1)"], "mapa.shared::cluster.u32 r, l, %r"),
    (["cuda.tma.store_commit()"], "cp.async.bulk.commit_group;"),
    (["cuda.tma.store_wait(2)"], "cp.async.bulk.wait_group 2;"),
    (["cuda.tma.store_wait()"], "cp.async.bulk.wait_group 0;"),
    (["cuda.tma.store_wait_read()"], "cp.async.bulk.wait_group.read 0;"),
])
def test_ptx(tmp_path, body, needle):
    ptx, _ = _compile_src(tmp_path, body, (A16, types.uint8[::1]))
    assert needle in ptx


def test_shared_operands_are_32_bit_and_hoisted(tmp_path):
    """ldmatrix and cp.async take 32-bit shared-window addresses: the array's data pointer
    is converted once (outside the loop), the element offsets are 32-bit arithmetic, and
    no 64-bit generic address is converted per call."""
    body = ["for i in range(b.shape[0]):",
            "    cuda.pipeline.memcpy_async(s, (i % 16, 8), a, (i, 0), 16)",
            "    r = cuda.mma.ldmatrix(s, (i % 16, 0), 4)",
            "    b[i] = r[3]"]
    ptx, _ = _compile_src(tmp_path, body, (A16, types.uint32[::1]))
    assert "cvta.to.shared.u64" not in ptx
    assert re.search(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16 \{%r\d+, %r\d+, %r\d+, %r\d+\}, \[%r\d+\];",
                     ptx), ptx
    assert re.search(r"cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16;", ptx), ptx


@pytest.mark.parametrize("line, message", [
    ("cuda.mma.ldmatrix(s, (0, 0), 3)", "the matrix count must be the constant 1, 2 or 4, not 3"),
    ("cuda.mma.ldmatrix(s, 0, 4)", "the source index must be a tuple of 2 integers"),
    ("cuda.mma.m16n8k16_f16_f32((1, 2, 3, 4), (1, 2), (z, z, z, z))",
     "a must be a tuple of 4 32-bit integers (uint32 fragment registers), not UniTuple(int64 x 4)"),
    ("cuda.mma.m16n8k16_f16_f32((b[0], b[1], b[2], b[3]), (b[0], b[1]), (z, z, z, z))",
     "a must be a tuple of 4 32-bit integers (uint32 fragment registers), not UniTuple(uint8 x 4)"),
    ("cuda.mma.m16n8k32_s8_s32((types.uint32(1), types.uint32(1), types.uint32(1), types.uint32(1)), "
     "(types.uint32(1), types.uint32(1)), (z, z, z, z))",
     "c must be a tuple of 4 int32 (the accumulator fragment)"),
    ("cuda.pipeline.memcpy_async(s, (0, 0), a, (0, 0), 12)", "the byte count must be the constant 4, 8 or 16"),
    ("cuda.pipeline.wait(9)", "the number of groups left in flight must be a constant int from 0 to 7"),
    ("cuda.mbarrier.init(s, 0, 1)", "the barrier must be a 1-d shared array of uint64"),
    ("cuda.tma.load(s, b, (0, 0, 0, 0, 0, 0), bar, 0)", "the coordinates must be a tuple of 1 to 5 integers"),
    ("cuda.tma.store(s, a, (0, 0))", "the tensor map must be the descriptor array cuda.make_tensor_map returns"),
    ("cuda.tma.store(z, b, (0, 0))", "the source must be a shared array, not float32"),
    ("cuda.tma.prefetch(b, (0.5, 0))", "the coordinates must be a tuple of 1 to 5 integers"),
    ("cuda.tma.store_wait(8)", "the number of groups left in flight must be a constant int from 0 to 7, not 8"),
    ("cuda.tma.store_commit(1)", "takes no arguments"),
    ("cuda.mbarrier.arrive_cluster(bar, 0, 1.5)", "the block rank must be an integer, not float64"),
    ("cuda.mbarrier.try_wait(s, 0, 1)", "the barrier must be a 1-d shared array of uint64"),
    ("cuda.tma.load_multicast(s, b, (0, 0), bar, 0, 1 << 16)",
     "the block mask must have bits among the 16 block ranks of a cluster, not 65536"),
    ("cuda.tma.load_multicast(s, b, (0, 0), bar, 0, z)", "the block mask must be an integer"),
    ("cuda.tma.load_multicast(s, b, (0, 0), bar, 0)", "takes dst, tensor_map, coords, bar, bar_index and cta_mask"),
    ("cuda.tma.load_multicast(s, b, (0, 0), s, 0, 3)", "the barrier must be a 1-d shared array of uint64"),
])
def test_misuse_is_located(tmp_path, line, message):
    with pytest.raises(TypingError) as info:
        _compile_src(tmp_path, [line], (A16, types.uint8[::1]))
    assert message in str(info.value)
    assert ":9:" in str(info.value).splitlines()[0]


def test_old_targets_are_refused_at_the_line(tmp_path):
    with pytest.raises(CompilerError, match="cuda.mma.ldmatrix needs compute capability 8.0 or newer; the target "
                                            "is sm_75"):
        _compile_src(tmp_path, ["r = cuda.mma.ldmatrix(s, (0, 0), 4)"], (A16, types.uint8[::1]), cc=(7, 5))
    with pytest.raises(CompilerError, match=r"cuda.tma.load needs compute capability 9.0 or newer \(the Tensor "
                                            "Memory Accelerator\\); the target is sm_80"):
        _compile_src(tmp_path, ["cuda.tma.load(s, b, (0, 0), bar, 0)"], (A16, types.uint8[::1]), cc=(8, 0))


def test_tma_store_coordinates_are_innermost_first_and_it_assembles(tmp_path):
    """PTX wants the innermost coordinate first (array index order reversed), and the
    store, prefetch, commit and waits assemble for sm_90 (nvJitLink)."""
    from cudalite.linker import Linker, PTXSource

    ptx, _ = _compile_src(tmp_path, ["cuda.tma.store(s, b, (types.int32(7), types.int32(9)))"],
                          (A16, types.uint8[::1]))
    assert re.search(r"mov\.(?:b|u)32\s+(%r\d+), 9;.*mov\.(?:b|u)32\s+(%r\d+), 7;.*\[%rd\d+, \{\1, \2\}\], \[s\]",
                     ptx, re.S), ptx
    body = ["cuda.tma.prefetch(b, (0, 64))", "cuda.tma.store(s, b, (1, 2))", "cuda.tma.store_commit()",
            "cuda.tma.store_wait_read(1)", "cuda.tma.store_wait()"]
    ptx, _ = _compile_src(tmp_path, body, (A16, types.uint8[::1]))
    assert Linker("sm_90").add(PTXSource(ptx, name="k.ptx")).link().arch == "sm_90"


def test_tma_store_on_an_old_target_is_refused_at_the_line(tmp_path):
    with pytest.raises(CompilerError, match=r"cuda.tma.store needs compute capability 9.0 or newer \(the Tensor "
                                            "Memory Accelerator\\); the target is sm_80"):
        _compile_src(tmp_path, ["cuda.tma.store(s, b, (0, 0))"], (A16, types.uint8[::1]), cc=(8, 0))
