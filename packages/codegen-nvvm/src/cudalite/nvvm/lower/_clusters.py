"""Thread-block clusters (sm_90+): ``cuda.cg.this_cluster()`` and its methods.

``sync()`` is ``barrier.cluster.arrive`` + ``barrier.cluster.wait`` (release/acquire:
shared-memory writes before it are visible to the cluster after it); the ranks and
shapes read the ``%cluster_*`` special registers; ``map_shared_rank(array, rank)``
returns the array with its data pointer mapped by ``mapa.u64`` to the same offset in
block ``rank``'s shared memory (a generic address: loads and stores reach the other
block's shared memory, i.e. distributed shared memory).  The array must be in this
block's shared memory: that is checked at run time (``isspacep.shared``), a kernel
that maps anything else traps.  Using any of it for a target below sm_90 is a located
error.
"""

from __future__ import annotations

from llvmlite import ir

from cudalite.core import device_api as api
from cudalite.core.typing.rules.groups import ClusterGroup

from ._intrinsics import call_intrinsic, inline_asm, require_cc, tuple_value
from ._irtypes import EMPTY, I32, I64
from ._registry import lowerings

__all__ = []


def _need_sm90(lc, node, what):
    require_cc(lc, node, what, (9, 0), "thread-block clusters")


def _sreg(lc, name):
    return inline_asm(lc, I32, f"mov.u32 $0, %{name};", "=r", side_effect=False)


@lowerings.call(api.cg.this_cluster)
def _this_cluster(lc, node, args, info):
    _need_sm90(lc, node, "cuda.cg.this_cluster()")
    return ir.Constant(EMPTY, None)


@lowerings.method(ClusterGroup, "sync")
def _cluster_sync(lc, node, args, info):
    _need_sm90(lc, node, "cluster.sync()")
    inline_asm(lc, ir.VoidType(), "barrier.cluster.arrive;\n\tbarrier.cluster.wait;", "~{memory}")
    return ir.Constant(EMPTY, None)


@lowerings.method(ClusterGroup, "block_rank")
def _block_rank(lc, node, args, info):
    _need_sm90(lc, node, "cluster.block_rank()")
    return _sreg(lc, "cluster_ctarank")


@lowerings.method(ClusterGroup, "num_blocks")
def _num_blocks(lc, node, args, info):
    _need_sm90(lc, node, "cluster.num_blocks()")
    return _sreg(lc, "cluster_nctarank")


def _dim3(lc, prefix, ty):
    return tuple_value(lc, ty, [_sreg(lc, f"{prefix}.{axis}") for axis in "xyz"])


@lowerings.method(ClusterGroup, "block_index")
def _block_index(lc, node, args, info):
    _need_sm90(lc, node, "cluster.block_index()")
    return _dim3(lc, "cluster_ctaid", info.sig.return_type)


@lowerings.method(ClusterGroup, "dim_blocks")
def _dim_blocks(lc, node, args, info):
    _need_sm90(lc, node, "cluster.dim_blocks()")
    return _dim3(lc, "cluster_nctaid", info.sig.return_type)


@lowerings.method(ClusterGroup, "map_shared_rank")
def _map_shared_rank(lc, node, args, info):
    _need_sm90(lc, node, "cluster.map_shared_rank()")
    b = lc.builder
    arr, rank = args[1], args[2]
    data = b.extract_value(arr, 0)
    addr = b.ptrtoint(data, I64)
    shared = inline_asm(lc, I32, "{\n\t.reg .pred p;\n\tisspacep.shared p, $1;\n\tselp.u32 $0, 1, 0, p;\n\t}",
                        "=r,l", [addr], side_effect=False)
    with b.if_then(b.icmp_unsigned("==", shared, ir.Constant(I32, 0)), likely=False):
        call_intrinsic(lc, "llvm.trap", ir.VoidType(), [])
    mapped = inline_asm(lc, I64, "mapa.u64 $0, $1, $2;", "=l,l,r", [addr, rank], side_effect=False)
    return b.insert_value(arr, b.inttoptr(mapped, data.type), 0)
