"""CUDA graphs for ``cudalite.cuda``: ``with stream.capture() as graph:``.

Launches (``kernel[grid, block, stream](...)``), copies and memsets queued on the
stream inside the ``with`` block are recorded, not run; on exit the graph is
instantiated, and ``graph.launch()`` runs all of it as one submission (one driver call
instead of one per operation).  Arguments change without capturing again through
``graph.kernel_nodes()[i].set_args(...)`` (the driver's in-place update of one kernel
node), or by capturing the same launches again into the same graph
(``stream.capture(graph=graph)``), which updates the instantiated graph in place when
its shape is unchanged and instantiates it again otherwise.

What may run during a capture is the driver's rule for the capture mode: in the
default ``"global"`` mode, nothing that synchronizes or allocates (``copy_to_host``
without a stream, ``cuda.to_device`` of a new array, ``cuda.synchronize``...) is
allowed in any thread; allocate device arrays before the ``with`` block.  Such a call
raises, and the capture is then discarded with a :class:`GraphCaptureError` naming
the stream.  Kernels compiled with ``debug=True`` or ``boundscheck=True`` synchronize
after each launch and cannot be captured.
"""

from __future__ import annotations

import ctypes

from cudalite.driver import CudaDriverError
from cudalite.driver.graph import CAPTURE_MODES, begin_capture, end_capture, is_capturing

from .._runtime.record import jit_runtime
from .keys import key_to_type
from .kinds import flatten

__all__ = ["CUDAGraph", "GraphKernelNode", "GraphCaptureError"]


class GraphCaptureError(CudaDriverError):
    """A stream capture that failed or was invalidated; the graph holds what it held
    before the capture (nothing, for a first capture)."""


class GraphKernelNode:
    """One captured kernel launch of a :class:`CUDAGraph`: ``.kernel`` (the compiled
    specialization), ``.grid``, ``.block``, ``.shared_mem``, and :meth:`set_args`."""

    __slots__ = ("_graph", "_node", "kernel")

    def __init__(self, graph, node, kernel):
        self._graph, self._node, self.kernel = graph, node, kernel

    grid = property(lambda self: self._node.grid)
    block = property(lambda self: self._node.block)
    shared_mem = property(lambda self: self._node.shared_mem)

    def set_args(self, *args):
        """Give this launch new arguments for the next ``graph.launch()`` (the graph is
        updated in place; launches already queued keep their arguments).

        Parameters
        ----------
        *args
            The kernel's arguments, of the same types as the captured launch's
            (device arrays, CUDA-array-interface/DLPack objects, scalars).

        Raises
        ------
        TypeError
            The number or the types of ``args`` differ from the captured
            specialization's (a graph node cannot switch to another specialization).
        """

        kernel = self.kernel
        name = kernel.py_func.__name__
        if len(args) != len(kernel.argtypes):
            raise TypeError(f"{name}() takes {len(kernel.argtypes)} arguments ({len(args)} given)")
        kind = jit_runtime().kind
        kinds = [kind(type(a), a) for a in args]
        types = tuple(key_to_type(k.key(a)) for k, a in zip(kinds, args))
        if types != kernel.argtypes:
            raise TypeError(f"the graph's launch of {name} was captured for arguments of types "
                            f"({', '.join(map(str, kernel.argtypes))}); got ({', '.join(map(str, types))}); "
                            "pass values of those types (e.g. np.float32(x) for a float32 scalar)")
        values = flatten(kinds, args, kernel.abi.args, self._graph._stream_handle)  # as a launch converts them
        layout = kernel.launcher.layout
        storage = (ctypes.c_char * max(layout.size, 1))()
        layout.struct.pack_into(storage, 0, *values)
        base = ctypes.addressof(storage)
        pointers = (ctypes.c_void_p * max(len(layout.offsets), 1))(*[base + off for off in layout.offsets])
        self._graph._exec.set_kernel_params(self._node, ctypes.addressof(pointers))  # copied by the driver
        self._graph._keep[int(self._node.node)] = args  # alive while the graph may run them (one per node)


class CUDAGraph:
    """A graph captured from a stream (see :meth:`Stream.capture`).

    ``launch(stream=None)`` runs it (on the capture stream by default);
    ``kernel_nodes()`` lists its kernel launches; ``node_count`` counts all its nodes.
    """

    def __init__(self, stream, mode="global"):
        """Made by :meth:`Stream.capture` (``stream``: a ``cudalite.cuda`` stream)."""
        if int(stream) in (0, 1, 2):
            raise ValueError("the default streams cannot be captured: capture a stream made with cuda.stream()")
        if mode not in CAPTURE_MODES:
            raise ValueError(f"capture mode must be one of {', '.join(map(repr, CAPTURE_MODES))}, got {mode!r}")
        self._stream, self._mode = stream, mode
        self._stream_handle = int(stream)
        self._graph = self._exec = None
        self._keep = {}  # node handle -> the arguments set_args gave it (kept alive)
        self._capturing = False

    # -- capture -----------------------------------------------------------------------
    def __enter__(self):
        if self._capturing:
            raise RuntimeError("this graph is already capturing")
        self._stream._ensure_context()
        begin_capture(self._stream._drv, self._mode)
        self._capturing = True
        return self

    def __exit__(self, exc_type, exc, tb):
        self._capturing = False
        try:
            graph = end_capture(self._stream._drv)
        except CudaDriverError as e:
            if exc is not None:  # the error inside the block is the one to report
                return False
            raise GraphCaptureError(e.code, e.name, f"the capture on {self._stream!r} was invalidated: an "
                                    "operation that the capture mode does not allow ran while it lasted (a "
                                    "synchronizing call, an allocation, work on the legacy default stream); "
                                    f"driver: {e.message}", e.call) from None
        if exc is not None:
            return False  # the partial capture is dropped with ``graph``
        if self._exec is not None and self._exec.update(graph):
            self._graph, self._keep = graph, {}  # the new capture's arguments replace set_args's
            return False
        self._graph, self._exec, self._keep = graph, graph.instantiate(), {}
        return False

    # -- use ---------------------------------------------------------------------------
    def _require(self):
        if self._exec is None:
            raise RuntimeError("the graph has not been captured yet: use it as `with stream.capture() as graph:`")
        if self._capturing:
            raise RuntimeError("the graph is still capturing: launch it after the `with` block")

    def launch(self, stream=None):
        """Queue one run of the captured work.

        Parameters
        ----------
        stream : Stream, optional
            Where to run it: a ``cudalite.cuda`` or ``cuda.core`` stream, or a raw
            handle (``0``: the legacy default stream); the capture stream when omitted.
        """
        self._require()
        if stream is None:
            target = self._stream._drv
        elif hasattr(stream, "__cuda_stream__"):  # cudalite.cuda and cuda.core streams
            target = stream.__cuda_stream__()[1]
        else:
            target = int(stream)
        self._exec.launch(target)

    def kernel_nodes(self) -> list:
        """The captured kernel launches (:class:`GraphKernelNode`), in capture order.

        Raises
        ------
        RuntimeError
            The graph has not been captured yet.
        """
        self._require()
        kernels = jit_runtime().kernels
        out = []
        for node in self._graph.kernel_nodes():
            kernel = kernels.get(node.function)
            if kernel is not None:
                out.append(GraphKernelNode(self, node, kernel))
        return out

    @property
    def node_count(self) -> int:
        """The number of nodes (kernels, copies, memsets...) in the graph."""
        self._require()
        return len(self._graph.nodes())

    @property
    def capturing(self) -> bool:
        """True inside the ``with`` block (the stream is recording)."""
        return self._capturing and is_capturing(self._stream._drv)

    @property
    def driver_graph(self):
        """The :class:`cudalite.driver.graph.Graph` (``.handle``: the ``CUgraph``), for
        interop, e.g. adding it as a child graph elsewhere."""
        self._require()
        return self._graph

    def __repr__(self):
        state = "capturing" if self._capturing else ("empty" if self._exec is None else "instantiated")
        return f"<CUDAGraph on {self._stream!r} ({state})>"
