"""Streams and events.

``Stream()`` creates an owned non-blocking stream on the current device, destroyed
when the object dies.  ``Stream.legacy_default()`` (``CU_STREAM_LEGACY``, handle 1),
``Stream.per_thread_default()`` (``CU_STREAM_PER_THREAD``, handle 2) and
``Stream.external(handle)`` wrap streams that are not owned and never destroyed.
Anywhere a stream is taken, ``None`` or ``0`` means the legacy default stream.
``Event(timing=True)`` records into a stream; ``elapsed_time(start, end)`` is in ms.
``add_callback(stream, fn)`` runs ``fn(status)`` on a driver thread once the work
queued so far on the stream is complete (cuStreamAddCallback).
"""

from __future__ import annotations

import weakref
from typing import Any

from ._cu import call, call_status, cu
from ._state import get_driver, peek_driver

__all__ = ["Stream", "Event", "elapsed_time", "stream_handle", "as_custream", "add_callback", "stream_device"]

CU_STREAM_LEGACY = 1
CU_STREAM_PER_THREAD = 2


def stream_handle(stream: Any) -> int:
    """The raw handle of a :class:`Stream`, an int, a cuda.bindings CUstream or None (0)."""
    if stream is None:
        return 0
    if isinstance(stream, Stream):
        return stream.handle
    return int(stream)


def as_custream(stream: Any) -> Any:
    """A cuda.bindings ``CUstream`` for ``stream`` (see :func:`stream_handle`)."""
    if isinstance(stream, Stream):
        return stream._cu
    return cu().CUstream(stream_handle(stream))


def stream_device(stream: Any) -> Any:
    """The ordinal of the device ``stream`` belongs to, or None for the default
    streams (handles 0, 1, 2: they follow whichever context is current) and for a
    foreign stream that is being captured into a graph (the driver refuses the query).  An owned
    :class:`Stream` knows its device; any other handle is asked (cuStreamGetDevice).

    Parameters
    ----------
    stream : Stream, int or None

    Returns
    -------
    int or None

    Raises
    ------
    CudaDriverError
        If the handle is not a valid stream.
    """
    if isinstance(stream, Stream) and stream.device_id is not None:
        return stream.device_id
    handle = stream_handle(stream)
    if handle in (0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD):
        return None
    get_driver().current()
    custream = cu().CUstream(handle)
    # A stream being captured into a graph (or whose capture failed) is not asked: the
    # driver refuses cuStreamGetDevice then, and the refusal invalidates the capture.
    if int(call("cuStreamIsCapturing", custream)) != 0:  # not CU_STREAM_CAPTURE_STATUS_NONE
        return None
    return int(call("cuStreamGetDevice", custream))


def _destroy(kind, handle, device_id) -> None:
    d = peek_driver()
    if d is None:  # interpreter exit after the contexts were released
        return
    try:
        d.push(device_id)
        try:
            getattr(cu(), kind)(handle)
        finally:
            d.pop()
    except Exception:
        pass


class Stream:
    """A CUDA stream. ``Stream()`` creates an owned non-blocking stream.

    The stream belongs to the current device and is destroyed when the object dies
    (or by :meth:`close`).  :meth:`legacy_default`, :meth:`per_thread_default` and
    :meth:`external` wrap streams that are not owned.

    Parameters
    ----------
    nonblocking : bool, optional
        ``True`` (default): the stream does not synchronize with the legacy default
        stream (``CU_STREAM_NON_BLOCKING``).
    priority : int, optional
        Stream priority; lower numbers are higher priority (default 0).
    """

    __slots__ = ("handle", "device_id", "owned", "_cu", "_finalizer", "__weakref__")

    def __init__(self, *, nonblocking: bool = True, priority: int = 0) -> None:
        dev = get_driver().current()
        flags = int(cu().CUstream_flags.CU_STREAM_NON_BLOCKING) if nonblocking else 0
        obj = call("cuStreamCreateWithPriority", flags, priority)
        self._init(obj, dev, True)
        self._finalizer = weakref.finalize(self, _destroy, "cuStreamDestroy", obj, dev)

    def _init(self, obj, device_id, owned) -> None:
        self._cu = obj
        self.handle = int(obj)
        self.device_id = device_id
        self.owned = owned

    @classmethod
    def _wrap(cls, handle):
        self = cls.__new__(cls)
        self._init(cu().CUstream(handle), None, False)
        self._finalizer = None
        return self

    @classmethod
    def legacy_default(cls) -> Any:
        """The legacy default stream (synchronizes with all blocking streams)."""
        return cls._wrap(CU_STREAM_LEGACY)

    @classmethod
    def per_thread_default(cls) -> Any:
        """The calling thread's per-thread default stream."""
        return cls._wrap(CU_STREAM_PER_THREAD)

    @classmethod
    def external(cls, handle: Any) -> Any:
        """Wrap a stream created elsewhere (CuPy, torch, ...); never destroyed here.

        Parameters
        ----------
        handle : int
            The ``CUstream`` handle (as an int, or anything ``int()`` accepts).

        Returns
        -------
        Stream
            A borrowed stream (``owned`` False).
        """
        return cls._wrap(int(handle))

    @property
    def cu_stream(self) -> Any:
        """The cuda.bindings ``CUstream`` object (``.handle`` is its int value)."""
        return self._cu

    def __int__(self) -> int:
        return self.handle

    def __repr__(self) -> str:
        kind = "owned" if self.owned else "borrowed"
        return f"<cudalite.driver.Stream {self.handle:#x} ({kind})>"

    def synchronize(self) -> None:
        """Wait until all work queued on the stream has finished."""
        call("cuStreamSynchronize", self._cu)

    def query(self) -> bool:
        """True when all queued work has finished."""
        return call_status("cuStreamQuery", self._cu) == 0

    def wait_event(self, event: Any) -> None:
        """Make future work on this stream wait for ``event`` (cuStreamWaitEvent).

        Parameters
        ----------
        event : Event
            A recorded event; work queued after this call waits until it completes.
        """
        call("cuStreamWaitEvent", self._cu, event._cu, 0)

    def close(self) -> None:
        """Destroy an owned stream now (no-op for borrowed ones)."""
        if self._finalizer is not None:
            self._finalizer()


class Event:
    """A CUDA event on the current device (``timing=False`` makes it cheaper).

    Destroyed when the object dies.

    Parameters
    ----------
    timing : bool, optional
        Whether the event records timestamps for :func:`elapsed_time` (default True).
    """

    __slots__ = ("_cu", "timing", "_finalizer", "__weakref__")

    def __init__(self, timing: bool = True) -> None:
        dev = get_driver().current()
        driver = cu()
        flags = 0 if timing else int(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        self._cu = call("cuEventCreate", flags)
        self.timing = timing
        self._finalizer = weakref.finalize(self, _destroy, "cuEventDestroy", self._cu, dev)

    @property
    def handle(self) -> int:
        """The ``CUevent`` handle as an int."""
        return int(self._cu)

    @property
    def cu_event(self) -> Any:
        """The cuda.bindings ``CUevent`` object (``.handle`` is its int value)."""
        return self._cu

    def record(self, stream: Any = None) -> Event:
        """Record the event in ``stream`` (default: legacy default stream).

        Parameters
        ----------
        stream : Stream or int, optional
            The stream to record in; ``None`` (default) is the legacy default stream.

        Returns
        -------
        Event
            This event.
        """
        call("cuEventRecord", self._cu, as_custream(stream))
        return self

    def synchronize(self) -> None:
        """Wait until the work recorded before the event has completed."""
        call("cuEventSynchronize", self._cu)

    def query(self) -> bool:
        """True when the recorded work has completed."""
        return call_status("cuEventQuery", self._cu) == 0


def elapsed_time(start: Any, end: Any) -> float:
    """Milliseconds between two recorded, completed timing events.

    Parameters
    ----------
    start : Event
        The earlier event.
    end : Event
        The later event.

    Returns
    -------
    float
        Elapsed time in milliseconds.

    Raises
    ------
    CudaDriverError
        If an event was made with ``timing=False``, was not recorded, or has not completed.
    """
    return call("cuEventElapsedTime", start._cu, end._cu)


def add_callback(stream: Any, fn: Any) -> None:
    """Call ``fn(status)`` from a driver thread once all work queued so far on
    ``stream`` has completed (cuStreamAddCallback); ``status`` is the int CUresult of
    the stream (0: success).  ``fn`` must not call the CUDA API.  An exception in
    ``fn`` becomes a ``RuntimeWarning``.

    Parameters
    ----------
    stream : Stream, int or None
        The stream; ``None`` or 0 is the legacy default stream.
    fn : callable
        Called as ``fn(status)``.

    Raises
    ------
    TypeError
        If ``fn`` is not callable.
    """
    import ctypes

    if not callable(fn):
        raise TypeError(f"stream callback must be callable, not {type(fn).__name__}")
    d = get_driver()
    d.current()
    tramp = d.native("stream_callback")
    address = ctypes.cast(tramp, ctypes.c_void_p).value
    incref = ctypes.pythonapi.Py_IncRef
    incref.argtypes = [ctypes.py_object]
    incref.restype = None
    incref(fn)  # released by the trampoline (or below when the call fails)
    try:
        call("cuStreamAddCallback", as_custream(stream), cu().CUstreamCallback(address), id(fn), 0)
    except BaseException:
        ctypes.pythonapi.Py_DecRef.argtypes = [ctypes.py_object]
        ctypes.pythonapi.Py_DecRef(fn)
        raise
