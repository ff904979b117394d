"""Thread-block clusters, GPU-less: ``cluster_dims`` becomes PTX ``.explicitcluster`` /
``.reqnctapercluster``, is validated where it is given, and is refused (with the
reason) for a target below sm_90, as are the cluster intrinsics (a located error)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("llvmlite")

from cudalite import cuda, types  # noqa: E402
from cudalite.core.errors import CompilerError  # noqa: E402
from cudalite.nvvm import check_cluster_dims, compile_ptx, make_options  # noqa: E402


def k(a):
    cl = cuda.cg.this_cluster()
    buf = cuda.shared.array(8, np.float32)
    buf[0] = a[0]
    cl.sync()
    a[1] = cl.map_shared_rank(buf, cl.block_rank() ^ 1)[0]


def test_cluster_dims_reach_the_ptx():
    from cudalite.cuda._compiler.compile_code import compile_code

    d = cuda.jit(cluster_dims=(2, 1, 1))(k)
    ptx = compile_code(k, (types.float32[:],), d.options, (9, 0))["ptx"]
    ptx = str(ptx)
    assert ".explicitcluster" in ptx and ".reqnctapercluster 2, 1, 1" in ptx
    for op in ("barrier.cluster.arrive;", "barrier.cluster.wait;", "mapa.u64", "%cluster_ctarank", "isspacep.shared"):
        assert op in ptx, op


@pytest.mark.parametrize("dims, message", [
    (0, "must be a positive int or a tuple of 1 to 3 positive ints"),
    ((2, 2, 2, 1), "must be a positive int or a tuple of 1 to 3 positive ints"),
    ((True,), "must be a positive int"),
    ((4, 4), r"cluster_dims \(4, 4, 1\) has 16 blocks; a cluster has at most 8"),
])
def test_cluster_dims_are_validated_at_decoration(dims, message):
    with pytest.raises(ValueError, match=message):
        cuda.jit(cluster_dims=dims)(k)


def test_cluster_dims_normalize():
    assert check_cluster_dims(4) == (4, 1, 1) and check_cluster_dims((2, 2)) == (2, 2, 1)


def test_old_targets_are_refused():
    with pytest.raises(ValueError, match="cluster_dims needs compute capability 9.0 or newer .* the target is sm_80"):
        make_options(cc=(8, 0), cluster_dims=2)
    with pytest.raises(CompilerError, match=r"cuda.cg.this_cluster\(\) needs compute capability 9.0 or newer "
                                            r"\(thread-block clusters\); the target is sm_80") as info:
        compile_ptx(k, (types.float32[:],), cc=(8, 0), device=True)
    assert f"{__file__}:{k.__code__.co_firstlineno + 1}:" in str(info.value)
