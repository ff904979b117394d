"""cudalite.cuda.tma_pipeline: a ring of shared-memory stages between producer threads
(TMA loads) and consumer threads (MMAs), so a kernel writes its loop and not the
barrier arithmetic.

Two arrays of ``stages`` mbarriers (``cuda.shared.array(stages, np.uint64)``) drive the
ring: stage ``s`` is *full* once the producer's copies into it have landed (one arrival,
the producer's, plus the copies' bytes), *empty* once every consumer has released it
(``consumers`` arrivals).  A loop counter ``it`` (0, 1, 2, ... over everything the ring
carries, across tiles) picks the stage, ``it % stages``, and the phase, ``it // stages``
-- the producer's first pass waits on phase parity 1, which a fresh barrier has
completed, so it fills every stage before it waits for the consumers::

    from cudalite.cuda import tma_pipeline as pipe

    if cuda.threadIdx.x == 0:
        pipe.init(full, empty, 256)          # 256 consumer threads release each stage
    cuda.syncthreads()
    if producer:
        for it in range(n):
            s = pipe.producer_acquire(empty, it)   # the stage is free again
            pipe.producer_commit(full, s, nbytes)  # the copies below complete it
            cuda.tma.load(tile_of(s), tmap, coords, full, s)
    else:
        for it in range(n):
            s = pipe.consumer_wait(full, it)       # its data has landed
            ...                                    # compute on tile_of(s)
            pipe.consumer_release(empty, s)        # every consumer thread, once

The functions are ``@cuda.jit(device=True, forceinline=True)`` functions: always inlined
(a call left inside a wgmma pipeline would make ptxas serialise it, which the jit reports
as a warning).  ``examples/wgmma_gemm.py`` and ``examples/flash_attention.py`` use them.
"""

from __future__ import annotations

from cudalite import cuda

__all__ = ["init", "producer_acquire", "producer_commit", "consumer_wait", "consumer_release"]


@cuda.jit(device=True, forceinline=True)
def init(full, empty, consumers):
    """Initialise every stage's barriers (one thread): ``full[s]`` expects the producer's
    one arrival, ``empty[s]`` ``consumers`` arrivals; then the barrier-init fence."""
    for s in range(full.shape[0]):
        cuda.mbarrier.init(full, s, 1)
        cuda.mbarrier.init(empty, s, consumers)
    cuda.mbarrier.fence_init()


@cuda.jit(device=True, forceinline=True)
def producer_acquire(empty, it):
    """Wait until the stage of step ``it`` is free (its previous contents consumed) and
    return its index."""
    stages = empty.shape[0]
    s = it % stages
    cuda.mbarrier.wait(empty, s, ((it // stages) & 1) ^ 1)
    return s


@cuda.jit(device=True, forceinline=True)
def producer_commit(full, s, nbytes):
    """Arrive on stage ``s``'s full barrier expecting ``nbytes`` from the copies issued
    next (``cuda.tma.load(..., full, s)``)."""
    cuda.mbarrier.arrive_expect_tx(full, s, nbytes)


@cuda.jit(device=True, forceinline=True)
def consumer_wait(full, it):
    """Wait until the data of step ``it`` has landed and return its stage index."""
    stages = full.shape[0]
    s = it % stages
    cuda.mbarrier.wait(full, s, (it // stages) & 1)
    return s


@cuda.jit(device=True, forceinline=True)
def consumer_release(empty, s):
    """This thread is done with stage ``s`` (each consumer thread calls it once per step)."""
    cuda.mbarrier.arrive(empty, s)
