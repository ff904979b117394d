"""The numba.cuda runtime API: devices, streams, events, synchronization.

Thin wrappers over :mod:`cudalite.driver` objects with numba.cuda's names and
behaviour: ``cuda.stream()`` creates a *blocking* stream (it synchronizes with the
legacy default stream, as numba's does), ``default_stream()`` is handle 0 (legacy),
``Device`` attributes read the driver attribute of the same name
(``dev.MULTIPROCESSOR_COUNT``).  Nothing touches the GPU at import.
"""

from __future__ import annotations

import contextlib
import operator
import threading
from typing import TYPE_CHECKING, Any

import cudalite.driver as _drv

from ..config import load_config

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "Device", "Stream", "Event", "gpus", "select_device", "get_current_device", "list_devices",
    "detect", "is_available", "close", "synchronize", "stream", "default_stream",
    "legacy_default_stream", "per_thread_default_stream", "external_stream", "event",
    "event_elapsed_time", "driver_stream",
]


# -- streams and events -----------------------------------------------------------------
class Stream:
    """A CUDA stream (numba's ``Stream``): ``.handle``, ``int(s)``, ``.synchronize()``,
    ``.query()``, ``.auto_synchronize()``, ``.wait_event(e)``; ``.capture()`` records
    its work into a CUDA graph.

    Obtain one from :func:`stream`, :func:`default_stream`, :func:`external_stream`,
    :func:`legacy_default_stream` or :func:`per_thread_default_stream` rather than
    constructing it.

    Parameters
    ----------
    drv_stream : cudalite.driver.Stream
        The driver-layer stream it wraps.
    """

    __slots__ = ("_drv", "_handle", "__weakref__")

    def __init__(self, drv_stream: Any) -> None:
        self._drv = drv_stream
        self._handle = drv_stream.handle  # int, for the launch path

    @property
    def handle(self) -> Any:
        """The cuda.bindings ``CUstream`` (``int(s.handle)`` is the raw handle)."""
        return self._drv.cu_stream

    @property
    def device_id(self) -> Any:
        """Ordinal of the device the stream was created on (None for a wrapped stream)."""
        return self._drv.device_id

    @property
    def external(self) -> bool:
        """True for a stream created elsewhere and wrapped (``cuda.external_stream``,
        or the stream of an imported ``__cuda_array_interface__``)."""
        return not self._drv.owned and self._handle not in (0, 1, 2)

    def __int__(self) -> int:
        return self._handle

    def __index__(self) -> int:
        return self._handle

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, Stream):
            return other._handle == self._handle
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("cudalite.cuda.Stream", self._handle))

    def __repr__(self) -> str:
        names = {0: "default", 1: "legacy default", 2: "per-thread default"}
        kind = names.get(self._handle, "owned" if self._drv.owned else "external")
        return f"<CUDA stream {self._handle:#x} ({kind})>"

    def _ensure_context(self) -> None:
        """A default stream (handle 0, legacy, per-thread) belongs to whichever context
        is current: make the current device's primary context current first (numba's
        default streams work before anything else touched the GPU)."""
        if self._handle in (0, 1, 2):
            _drv.current_device()

    def synchronize(self) -> None:
        """Wait for all work queued on this stream."""
        self._ensure_context()
        self._drv.synchronize()

    def query(self) -> bool:
        """True when all queued work has completed."""
        self._ensure_context()
        return self._drv.query()

    def wait_event(self, event: Event) -> None:
        """Make work queued on this stream from now on wait until ``event`` completes.

        Parameters
        ----------
        event : Event
            A recorded event.
        """
        self._drv.wait_event(event._drv)

    @contextlib.contextmanager
    def auto_synchronize(self) -> Iterator[Stream]:
        """``with s.auto_synchronize():`` synchronizes the stream on exit."""
        yield self
        self.synchronize()

    def capture(self, graph: Any = None, mode: str = "global") -> Any:
        """Record the work queued on this stream into a CUDA graph instead of running it.

        ``with s.capture() as graph:`` records the launches, copies and memsets queued
        on ``s`` inside the block; ``graph.launch()`` then runs all of it as one
        submission (see docs/graphs.md).

        Parameters
        ----------
        graph : CUDAGraph, optional
            A graph captured before: the new capture replaces its work, updating its
            instantiated graph in place when the shape (nodes and edges) is unchanged.
        mode : str
            The driver's capture mode: ``"global"`` (default), ``"thread_local"`` or
            ``"relaxed"``; it decides which calls are refused while the capture lasts.

        Returns
        -------
        CUDAGraph
            A context manager; the graph itself after the ``with`` block.

        Raises
        ------
        ValueError
            This is a default stream (they cannot be captured) or ``mode`` is unknown.
        """
        if graph is None:
            return _graphs().CUDAGraph(self, mode)
        if not isinstance(graph, _graphs().CUDAGraph):
            raise TypeError(f"graph must be a CUDAGraph from an earlier capture, not {type(graph).__name__}")
        if graph._stream_handle != self._handle:
            raise ValueError(f"that graph was captured on {graph._stream!r}; capture it again on the same stream")
        if mode != graph._mode:
            raise ValueError(f"that graph was captured in mode {graph._mode!r}, not {mode!r}")
        return graph

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self._handle)

    def add_callback(self, callback: Any, arg: Any = None) -> None:
        """Call ``callback(stream, status, arg)`` from a CUDA driver thread once all
        work queued so far on this stream is complete (numba's ``add_callback``;
        cuStreamAddCallback).  ``status`` is the stream's ``CUresult`` (0: success).
        The callback must not call CUDA functions and should return quickly (it
        blocks later work on the stream); an exception in it becomes a warning.

        Parameters
        ----------
        callback : callable
            Called as ``callback(stream, status, arg)``.
        arg : object, optional
            Passed to ``callback`` as its third argument (default None).

        Raises
        ------
        TypeError
            If ``callback`` is not callable.
        """
        if not callable(callback):
            raise TypeError(f"callback must be callable, not {type(callback).__name__}")

        def call(status, stream=self, callback=callback, arg=arg) -> None:
            callback(stream, status, arg)

        _drv.add_callback(self._drv, call)

    def async_done(self) -> Any:
        """An asyncio future (of the running loop) resolved with this stream once all
        work queued so far is complete; it fails with an exception when the stream
        reports an error."""
        import asyncio

        loop = asyncio.get_running_loop()
        future = loop.create_future()

        def resolve(status) -> None:
            if future.done():
                return
            if status == 0:
                future.set_result(self)
            else:
                future.set_exception(Exception(f"Stream error {status}"))

        def callback(_stream, status, _arg) -> None:
            loop.call_soon_threadsafe(resolve, status)

        self.add_callback(callback)
        return future


def driver_stream(stream: Any) -> Any:
    """``None`` for ``0``/``None`` (synchronous operations), else a stream object or
    handle that :mod:`cudalite.driver` accepts."""
    if stream is None:
        return None
    if isinstance(stream, Stream):
        return stream._drv
    if isinstance(stream, _drv.Stream):
        return stream
    if isinstance(stream, int):
        return stream or None
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        return int(proto()[1])
    return int(stream)


def stream() -> Stream:
    """A new stream on the current device.

    It is blocking with respect to the legacy default stream, as numba's
    ``cuda.stream()``; it is destroyed when the returned object is collected.

    Returns
    -------
    Stream
        Use it as ``kernel[grid, block, stream](...)``, in ``to_device(..., stream=)``,
        ``copy_to_host(stream=)``, and as a context manager (``with stream.auto_synchronize():``).
    """
    return Stream(_drv.Stream(nonblocking=False))


def default_stream() -> Stream:
    """The default stream (handle 0: the legacy default stream)."""
    return Stream(_drv.Stream.external(0))


def legacy_default_stream() -> Stream:
    """The legacy default stream (``CU_STREAM_LEGACY``), which synchronizes with every
    blocking stream of its context.

    Returns
    -------
    Stream
    """
    return Stream(_drv.Stream.legacy_default())


def per_thread_default_stream() -> Stream:
    """The calling thread's per-thread default stream (``CU_STREAM_PER_THREAD``).

    Returns
    -------
    Stream
    """
    return Stream(_drv.Stream.per_thread_default())


def external_stream(ptr: int) -> Stream:
    """Wrap a stream created elsewhere (CuPy, torch, C++); cudalite never destroys it.

    Parameters
    ----------
    ptr : int
        The stream's handle (``CUstream`` as an int, e.g. ``cupy_stream.ptr``).

    Returns
    -------
    Stream

    Raises
    ------
    TypeError
        ``ptr`` is not an int.
    """
    if not isinstance(ptr, int):
        raise TypeError("ptr for external stream must be an int")
    return Stream(_drv.Stream.external(ptr))


class Event:
    """A CUDA event (numba's ``Event``); :func:`event` makes one.

    Parameters
    ----------
    timing : bool, optional
        Record timestamps (default), so that :meth:`elapsed_time` works.
    """

    __slots__ = ("_drv", "__weakref__")

    def __init__(self, timing: bool = True) -> None:
        self._drv = _drv.Event(timing=timing)

    @property
    def handle(self) -> Any:
        """The cuda.bindings ``CUevent``."""
        return self._drv.cu_event

    def record(self, stream: Any = 0) -> Event:
        """Record the event in ``stream`` (default: the default stream).

        Parameters
        ----------
        stream : Stream or int, optional
            The stream; 0 (default) is the default stream.

        Returns
        -------
        Event
            This event.
        """
        self._drv.record(driver_stream(stream))
        return self

    def synchronize(self) -> None:
        """Wait until the work recorded before the event has completed."""
        self._drv.synchronize()

    def query(self) -> bool:
        """True when the work recorded before the event has completed (does not block)."""
        return self._drv.query()

    def wait(self, stream: Any = 0) -> None:
        """Make work queued on ``stream`` from now on wait for this event.

        Parameters
        ----------
        stream : Stream or int, optional
            The stream; 0 (default) is the default stream.
        """
        s = driver_stream(stream)
        if not isinstance(s, _drv.Stream):
            s = _drv.Stream.external(s or 0)
        s.wait_event(self._drv)

    def elapsed_time(self, evtend: Event) -> float:
        """Milliseconds from this event to ``evtend``.

        Parameters
        ----------
        evtend : Event
            The later event; both must be recorded, completed and made with timing.

        Returns
        -------
        float

        Raises
        ------
        CudaDriverError
            If an event has no timing, was not recorded or has not completed.
        """
        return _drv.elapsed_time(self._drv, evtend._drv)


def event(timing: bool = True) -> Event:
    """A new CUDA event on the current device.

    Parameters
    ----------
    timing : bool, optional
        Record timestamps (default), so that ``elapsed_time`` works; ``False``
        makes a lighter event for synchronization only.

    Returns
    -------
    Event
        ``record(stream=0)``, ``synchronize()``, ``query()``, ``wait(stream=0)``,
        ``elapsed_time(other)`` in milliseconds.
    """
    return Event(timing=timing)


def event_elapsed_time(evtstart: Event, evtend: Event) -> float:
    """Milliseconds between two recorded, completed events.

    Parameters
    ----------
    evtstart : Event
        The earlier event.
    evtend : Event
        The later event.

    Returns
    -------
    float

    Raises
    ------
    CudaDriverError
        If an event has no timing, was not recorded or has not completed.
    """
    return evtstart.elapsed_time(evtend)


def synchronize() -> None:
    """Wait for all work on the current device (cuCtxSynchronize)."""
    _drv.synchronize()


# -- devices ------------------------------------------------------------------------------
class Device:
    """A CUDA device with numba's attributes: ``.id``, ``.name`` (str, as in current
    numba-cuda), ``.compute_capability``, ``.uuid`` (``"GPU-..."``) and every driver
    attribute by name (``dev.MAX_THREADS_PER_BLOCK``)."""

    def __init__(self, devnum: int) -> None:
        self._dev = _drv.get_device(devnum)
        self.id = devnum
        self._entered = threading.local()  # per thread: the devices current before each ``with``

    def __enter__(self) -> Device:
        """``with device:`` makes this device current in the calling thread (numba's
        ``with cuda.gpus[i]:``); the previous one is restored on exit."""
        stack = self._entered.__dict__.setdefault("stack", [])
        stack.append(_drv.current_device().id)
        _drv.set_current_device(self.id)
        return self

    def __exit__(self, *exc: Any) -> None:
        _drv.set_current_device(self._entered.stack.pop())

    @property
    def name(self) -> str:
        return self._dev.name

    @property
    def compute_capability(self) -> tuple[int, int]:
        return self._dev.compute_capability

    @property
    def uuid(self) -> str:
        u = self._dev.uuid.hex()
        return f"GPU-{u[:8]}-{u[8:12]}-{u[12:16]}-{u[16:20]}-{u[20:]}"

    def get_device_identity(self) -> dict[str, int]:
        """``{"pci_domain_id", "pci_bus_id", "pci_device_id"}`` (numba's identity of
        a device across processes, e.g. in IPC handles)."""
        return {"pci_domain_id": self.PCI_DOMAIN_ID, "pci_bus_id": self.PCI_BUS_ID,
                "pci_device_id": self.PCI_DEVICE_ID}

    @property
    def supports_float16(self) -> bool:
        return self.compute_capability >= (5, 3)

    @property
    def supports_bfloat16(self) -> bool:
        return self.compute_capability >= (8, 0)

    @property
    def supports_fp8(self) -> bool:
        return self.compute_capability >= (8, 9)

    def __getattr__(self, attr: str) -> Any:
        if not attr.isupper():
            raise AttributeError(attr)
        try:
            value = self._dev.attribute(attr)
        except ValueError:
            raise AttributeError(f"unknown device attribute {attr!r}") from None
        setattr(self, attr, value)
        return value

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"<CUDA device {self.id:d} '{self.name}'>"

    def reset(self) -> None:
        """Synchronize the device (the primary context is kept)."""
        self.synchronize()

    def synchronize(self) -> None:
        """Wait for all work on this device (cuCtxSynchronize in its context)."""
        self._dev.synchronize()


class _DeviceContext:
    """``with cuda.gpus[i]:`` makes device ``i`` current and restores the previous one."""

    def __init__(self, devnum) -> None:
        self._id = devnum
        self._prev = threading.local()  # per thread: the devices current before each ``with``

    @property
    def device(self):
        return Device(self._id)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.device, name)

    def __enter__(self):
        self._prev.__dict__.setdefault("stack", []).append(_drv.current_device().id)
        _drv.set_current_device(self._id)
        return self

    def __exit__(self, *exc) -> None:
        _drv.set_current_device(self._prev.stack.pop())

    def __repr__(self) -> str:
        return f"<Managed Device {self._id}>"


class _DeviceList:
    """``cuda.gpus``: indexable (an int, or a slice: a list), iterable, ``len()``;
    ``.current`` is the current device."""

    def __getitem__(self, i):
        n = len(self)
        if isinstance(i, slice):  # cuda.gpus[1:], as numba's device list
            return [_DeviceContext(k) for k in range(*i.indices(n))]
        i = operator.index(i)
        if not -n <= i < n:
            raise IndexError(f"device index {i} out of range ({n} devices)")
        return _DeviceContext(i % n)

    def __len__(self) -> int:
        return _drv.device_count()

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    @property
    def current(self):
        return get_current_device()

    def __repr__(self) -> str:
        return "<cudalite.cuda.gpus>"


gpus = _DeviceList()  # stateless: every access asks the driver


def select_device(device_id: int) -> Device:
    """Make a device current for the calling thread (its primary context).

    Parameters
    ----------
    device_id : int
        The device ordinal, ``0 <= device_id < len(cuda.gpus)``.

    Returns
    -------
    Device
        The device now current.
    """
    _drv.set_current_device(device_id)
    return Device(device_id)


def _graphs():
    """The CUDA-graph module, loaded at the first capture (it loads the driver's graph API)."""
    from .._launch import graphs  # lazy: the driver's graph API loads at the first capture

    return graphs


def get_current_device() -> Device:
    """The calling thread's current device (device 0 unless another was selected).

    Returns
    -------
    Device
        With ``id``, ``name``, ``compute_capability`` and the driver's attributes.
    """
    return Device(_drv.current_device().id)


def list_devices() -> list[Any]:
    """Every CUDA device, in ordinal order.

    Returns
    -------
    list of Device
    """
    return list(gpus)


def is_available() -> bool:
    """True when a CUDA driver and at least one device can be used (never raises)."""
    try:
        if load_config().disable_cuda:
            return False
        return _drv.device_count() > 0
    except Exception:
        return False


def close() -> None:
    """Synchronize every device (numba destroys its contexts; cudalite keeps the
    retained primary contexts, so device arrays stay valid)."""
    for i in range(_drv.device_count()):
        Device(i).synchronize()


def detect() -> bool:
    """Print a summary of the CUDA devices; True when a supported one was found."""
    if not is_available():
        print("Found 0 CUDA devices")
        return False
    devs = [Device(i) for i in range(_drv.device_count())]
    print(f"Found {len(devs)} CUDA devices")
    supported = 0
    for dev in devs:
        cc = dev.compute_capability
        ok = cc >= (7, 5)
        supported += ok
        print("id %d    %20s %40s" % (dev.id, dev.name, "[SUPPORTED]" if ok else "[NOT SUPPORTED: CC < 7.5]"))
        attrs = [
            ("Compute Capability", "%d.%d" % cc),
            ("PCI Device ID", dev.PCI_DEVICE_ID),
            ("PCI Bus ID", dev.PCI_BUS_ID),
            ("UUID", dev.uuid),
            ("Watchdog", "Enabled" if dev.KERNEL_EXEC_TIMEOUT else "Disabled"),
            ("FP32/FP64 Performance Ratio", dev.SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO),
            ("FP16 Support", "Yes" if dev.supports_float16 else "No"),
            ("BF16 Support", "Yes" if dev.supports_bfloat16 else "No"),
        ]
        for key, val in attrs:
            print("%40s: %s" % (key, val))
    print("Summary:")
    print(f"\t{supported}/{len(devs)} devices are supported")
    return supported > 0
