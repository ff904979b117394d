"""Pass device arrays between MPI ranks (mpi4py), running a cudalite kernel in each rank.

Two ranks: rank 0 fills a device array with a kernel and sends it to rank 1, which
applies another kernel and sends the result back; rank 0 checks it against NumPy.
Rank 0 also sends rank 1 a kernel made at run time (a closure, pickled by value with
its compiled code): rank 1 runs it without compiling when its GPU has the same
compute capability.

How a device array travels:

* ``--cuda-aware``: ``comm.Send([array, MPI.FLOAT], ...)`` straight from device memory.
  mpi4py takes any object with ``__cuda_array_interface__`` (cudalite's device arrays,
  CuPy arrays) as a buffer, but only a CUDA-aware MPI (e.g. Open MPI or MPICH built with
  CUDA support, UCX) can read it: a plain MPI would dereference a device address on the
  host and crash.  MPI cannot be asked portably whether it is CUDA-aware, so this is
  opt-in.
* by default, CUDA IPC, which any MPI can do between ranks on one node: the sender
  pickles ``array.get_ipc_handle()`` (64 bytes and the array's shape) through
  ``comm.send``; the receiver maps it (``with handle as remote:``), copies it
  device-to-device into its own array, and tells the sender it is done (until then the
  sender keeps its array alive and unchanged).  The PyPI ``mpich`` wheel, which the
  GPU tests use, is not CUDA-aware, hence this default.

Each rank uses GPU ``local rank % number of GPUs`` (two ranks may share one GPU).

    mpiexec -n 2 python examples/mpi_exchange.py [--n N] [--cuda-aware]

Rank 0 prints ``OK`` (exit status 1 on a wrong result).
"""

import argparse
import sys

import numpy as np
from mpi4py import MPI

from cudalite import cuda

THREADS = 256
TAG_DATA, TAG_DONE, TAG_INFO = 1, 2, 3  # message kinds: an array (or its handle), "copied", a report


@cuda.jit
def affine(x, a, b):
    """x = a * x + b, in place."""
    i = cuda.grid(1)
    if i < x.size:
        x[i] = a * x[i] + b


def make_clip(lo, hi):
    """A kernel made at run time: its bounds are closure values, frozen at compile time."""

    @cuda.jit
    def clip(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = min(max(x[i], lo), hi)

    return clip


def blocks(n):
    return (n + THREADS - 1) // THREADS


def send_array(comm, arr, dest, cuda_aware):
    """Send device array ``arr`` to rank ``dest`` (see the module docstring)."""
    cuda.synchronize()  # the kernels that wrote arr have finished
    if cuda_aware:
        comm.Send([arr, MPI.FLOAT], dest=dest, tag=TAG_DATA)
    else:
        comm.send(arr.get_ipc_handle(), dest=dest, tag=TAG_DATA)
        comm.recv(source=dest, tag=TAG_DONE)  # the receiver has copied it: arr may change now


def recv_array(comm, source, n, cuda_aware):
    """A device array of ``n`` float32 received from rank ``source``."""
    out = cuda.device_array(n, dtype=np.float32)
    if cuda_aware:
        comm.Recv([out, MPI.FLOAT], source=source, tag=TAG_DATA)
    else:
        handle = comm.recv(source=source, tag=TAG_DATA)
        with handle as remote:  # the sender's memory, mapped into this process
            out.copy_to_device(remote)
            cuda.synchronize()
        comm.send(True, dest=source, tag=TAG_DONE)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 20, help="elements (float32)")
    ap.add_argument("--cuda-aware", action="store_true", help="send device buffers through MPI directly")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    if comm.size != 2:
        if comm.rank == 0:
            print(f"run with 2 ranks (mpiexec -n 2), not {comm.size}", file=sys.stderr)
        sys.exit(2)
    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    if not args.cuda_aware and node.size != comm.size:
        if comm.rank == 0:
            print("CUDA IPC needs both ranks on one node; use --cuda-aware with a CUDA-aware MPI",
                  file=sys.stderr)
        sys.exit(2)
    cuda.select_device(node.rank % len(cuda.gpus))
    n = args.n
    cc = tuple(cuda.get_current_device().compute_capability)

    if comm.rank == 0:
        x = cuda.to_device(np.arange(n, dtype=np.float32))
        affine[blocks(n), THREADS](x, np.float32(2.0), np.float32(1.0))  # x = 2 i + 1
        clip = make_clip(np.float32(10.0), np.float32(1000.0))
        clip[blocks(n), THREADS](x)  # compiled here: the pickle below carries the code
        comm.send(clip, dest=1, tag=TAG_INFO)
        send_array(comm, x, dest=1, cuda_aware=args.cuda_aware)
        z = recv_array(comm, source=1, n=n, cuda_aware=args.cuda_aware).copy_to_host()
        report = comm.recv(source=1, tag=TAG_INFO)
        i = np.arange(n, dtype=np.float32)
        expected = 3 * np.clip(2 * i + 1, 10, 1000) - 1
        print(f"mpi_exchange: {n} float32 sent both ways by "
              f"{'CUDA-aware MPI' if args.cuda_aware else 'CUDA IPC handles over MPI'}; "
              f"rank 1 (cc {report['cc'][0]}.{report['cc'][1]}) ran the kernel it received: compiled "
              f"{report['compiled']} time(s), loaded {report['from_pickle']} from the pickle")
        ok = np.array_equal(z, expected) and (report["cc"] != cc or report["compiled"] == 0)
        print("OK" if ok else f"FAILED: max error {np.max(np.abs(z - expected))}")
        sys.exit(0 if ok else 1)
    else:
        clip = comm.recv(source=0, tag=TAG_INFO)
        y = recv_array(comm, source=0, n=n, cuda_aware=args.cuda_aware)
        clip[blocks(n), THREADS](y)  # idempotent: already clipped by rank 0
        affine[blocks(n), THREADS](y, np.float32(3.0), np.float32(-1.0))  # y = 3 x - 1
        send_array(comm, y, dest=0, cuda_aware=args.cuda_aware)
        comm.send({"cc": cc, "compiled": sum(clip.stats.cache_misses.values()),
                   "from_pickle": sum(clip.stats.pickle_loads.values())}, dest=0, tag=TAG_INFO)


if __name__ == "__main__":
    main()
