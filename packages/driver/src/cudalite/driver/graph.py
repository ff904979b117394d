"""CUDA graphs made by stream capture: capture, instantiate, launch, update.

``begin_capture(stream, mode)`` starts recording the work queued on a stream (kernel
launches, copies, memsets) into a graph instead of running it; ``end_capture(stream)``
returns that :class:`Graph`.  ``Graph.instantiate()`` gives a :class:`GraphExec`, which
``launch(stream)`` runs as one submission.  An executable graph is updated in place,
without instantiating again, from another capture of the same shape
(``GraphExec.update(graph)``, ``cuGraphExecUpdate``) or one kernel node at a time
(``GraphExec.set_kernel_params``, ``cuGraphExecKernelNodeSetParams``).  Both objects
destroy their driver handle when collected.  The capture modes are the driver's:
``"global"`` (the default, as the CUDA runtime's), ``"thread_local"`` and ``"relaxed"``.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from ._cu import call, cu
from ._state import get_driver
from .errors import raise_for
from .stream import _destroy, as_custream, stream_handle

__all__ = ["Graph", "GraphExec", "KernelNode", "begin_capture", "end_capture", "is_capturing", "CAPTURE_MODES"]

CAPTURE_MODES = ("global", "thread_local", "relaxed")


def _mode(mode):
    if mode not in CAPTURE_MODES:
        raise ValueError(f"capture mode must be one of {', '.join(map(repr, CAPTURE_MODES))}, got {mode!r}")
    return getattr(cu().CUstreamCaptureMode, f"CU_STREAM_CAPTURE_MODE_{mode.upper()}")


def begin_capture(stream, mode="global"):
    """Start capturing the work queued on ``stream`` (not the legacy default stream)
    into a graph.

    Parameters
    ----------
    stream : Stream or int
        The stream to capture; work queued on it is recorded, not run, until
        :func:`end_capture`.
    mode : str
        ``"global"``, ``"thread_local"`` or ``"relaxed"``: which calls from other
        threads (or this one) the driver refuses while the capture lasts.

    Raises
    ------
    ValueError
        ``stream`` is the legacy default stream (it cannot be captured), or ``mode`` is unknown.
    """
    if stream_handle(stream) in (0, 1):
        raise ValueError("the legacy default stream cannot be captured: capture a stream made with Stream() "
                         "(cuda.stream())")
    call("cuStreamBeginCapture", as_custream(stream), _mode(mode))
    get_driver().captures += 1  # the device pools do not synchronize until it ends


def end_capture(stream) -> Graph:
    """End the capture on ``stream`` and return what it recorded.

    Parameters
    ----------
    stream : Stream or int
        The stream :func:`begin_capture` was called on.

    Returns
    -------
    Graph
        The captured work, not yet instantiated.

    Raises
    ------
    CudaDriverError
        The capture was invalidated (an operation the capture mode forbids ran while it
        lasted), or ``stream`` is not capturing.
    """
    d = get_driver()
    # active or invalidated: either way this call ends the capture begin_capture counted
    counted = int(call("cuStreamIsCapturing", as_custream(stream))) != int(
        cu().CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE)
    try:
        graph = call("cuStreamEndCapture", as_custream(stream))
    finally:
        if counted:
            d.captures = max(0, d.captures - 1)
    return Graph._own(graph, d.current())


def is_capturing(stream) -> bool:
    """Whether ``stream`` is capturing now.

    Parameters
    ----------
    stream : Stream or int
        The stream to ask about.
    """
    status = call("cuStreamIsCapturing", as_custream(stream))
    return int(status) == int(cu().CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE)


@dataclass(frozen=True)
class KernelNode:
    """A kernel node of a :class:`Graph`: the node handle, the ``CUfunction`` handle
    it launches, and its launch configuration (as captured)."""

    node: object  # cuda.bindings CUgraphNode
    function: int
    grid: tuple
    block: tuple
    shared_mem: int


class Graph:
    """A captured (or built) CUDA graph; see :func:`end_capture`."""

    __slots__ = ("_cu", "handle", "device_id", "_finalizer", "__weakref__")

    @classmethod
    def _own(cls, cugraph, device_id):
        self = cls.__new__(cls)
        self._cu, self.handle, self.device_id = cugraph, int(cugraph), device_id
        self._finalizer = weakref.finalize(self, _destroy, "cuGraphDestroy", cugraph, device_id)
        return self

    def nodes(self) -> list:
        """The graph's nodes (cuda.bindings ``CUgraphNode`` objects), in the driver's order."""
        _, count = call("cuGraphGetNodes", self._cu, 0)
        if not count:
            return []
        nodes, _ = call("cuGraphGetNodes", self._cu, count)
        return list(nodes[:count])

    def kernel_nodes(self) -> list:
        """The kernel nodes, in capture order for a graph captured from one stream.

        Returns
        -------
        list of KernelNode
        """
        kernel = cu().CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL
        out = []
        for node in self.nodes():
            if call("cuGraphNodeGetType", node) != kernel:
                continue
            p = call("cuGraphKernelNodeGetParams", node)
            out.append(KernelNode(node, int(p.func), (p.gridDimX, p.gridDimY, p.gridDimZ),
                                  (p.blockDimX, p.blockDimY, p.blockDimZ), p.sharedMemBytes))
        return out

    def instantiate(self) -> GraphExec:
        """An executable graph of this graph (``cuGraphInstantiate``)."""
        return GraphExec._own(call("cuGraphInstantiate", self._cu, 0), self.device_id)

    def __repr__(self):
        return f"<cudalite.driver.Graph 0x{self.handle:x} on device {self.device_id}>"


class GraphExec:
    """An instantiated graph; ``launch(stream)`` runs it."""

    __slots__ = ("_cu", "handle", "device_id", "_finalizer", "_native", "__weakref__")

    @classmethod
    def _own(cls, cuexec, device_id):
        self = cls.__new__(cls)
        self._cu, self.handle, self.device_id = cuexec, int(cuexec), device_id
        self._finalizer = weakref.finalize(self, _destroy, "cuGraphExecDestroy", cuexec, device_id)
        self._native = _native_graph_launch()
        return self

    def launch(self, stream=None):
        """Queue one run of the whole graph on ``stream``.

        Parameters
        ----------
        stream : Stream, int or None
            Where to run it (``None``/``0``: the legacy default stream).
        """
        native = self._native
        if native is None:
            call("cuGraphLaunch", self._cu, as_custream(stream))
            return
        rc = native[0](native[1], self.handle, stream if type(stream) is int else stream_handle(stream))
        if rc:
            raise_for(rc, "cuGraphLaunch")

    def update(self, graph: Graph) -> bool:
        """Take the node parameters of ``graph``, a graph of the same shape (the same
        nodes and edges, e.g. a capture of the same launches with other arguments),
        without instantiating again.

        Parameters
        ----------
        graph : Graph
            The new graph.

        Returns
        -------
        bool
            True when the driver updated this executable graph; False when the shapes
            differ (or a change it cannot apply in place), and it is unchanged.
        """
        from .errors import CudaDriverError

        try:
            call("cuGraphExecUpdate", self._cu, graph._cu)
        except CudaDriverError as e:
            if e.code == int(cu().CUresult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE):
                return False
            raise
        return True

    def set_kernel_params(self, node: KernelNode, params_address: int):
        """Replace the arguments of one kernel node (same function and configuration).

        Parameters
        ----------
        node : KernelNode
            A node of the graph this executable graph was instantiated from.
        params_address : int
            The address of the ``void*`` array of argument pointers (as for
            ``cuLaunchKernel``); the driver copies the values during the call.
        """
        p = cu().CUDA_KERNEL_NODE_PARAMS()
        p.func = cu().CUfunction(node.function)
        p.gridDimX, p.gridDimY, p.gridDimZ = node.grid
        p.blockDimX, p.blockDimY, p.blockDimZ = node.block
        p.sharedMemBytes = node.shared_mem
        p.kernelParams = params_address
        call("cuGraphExecKernelNodeSetParams", self._cu, node.node, p)

    def __repr__(self):
        return f"<cudalite.driver.GraphExec 0x{self.handle:x} on device {self.device_id}>"


def _native_graph_launch():
    """``(cl_call2, cuGraphLaunch's address)`` of the launch shim -- a graph launch without
    cuda.bindings' per-call conversions -- or None (launch backend other than ``shim``,
    or no shim here: cuda.bindings)."""
    driver = get_driver()
    if driver.config.launch_backend != "shim":
        return None
    native = driver.native("shim")
    return None if native is None else (native[0].lib.cl_call2, native[3])
