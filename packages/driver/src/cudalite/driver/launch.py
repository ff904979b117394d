"""The kernel launch path, built for speed.

``Function.launcher(param_format)`` -> :class:`Launcher`.  Its ``launch(grid, block,
shared_mem, stream_handle, *values)`` does, per call: one ``threading.local`` lookup
for the calling thread's pre-built argument buffer and ``void*`` array, one
``struct.pack_into`` of the values, and one call of ``cuLaunchKernel`` through
``cuda.bindings`` (Cython) with cached function/stream objects.  The buffers are per
thread, so threads may launch the same kernel concurrently.  ``grid``/``block`` are
3-tuples of ints, ``stream_handle`` an int (0: legacy default stream), pointer
values ints.

Backends (``backend=`` or ``CUDALITE_LAUNCH_BACKEND``; default ``shim``,
i.e. ``config.DEFAULT_LAUNCH_BACKEND``, the fastest measured by benchmarks/launch.py):
``shim`` (a cffi API-mode extension compiled on first use, see ``_shim``: the ints
are converted in C and libcuda's ``cuLaunchKernel`` is called through its address;
without a C compiler it silently becomes ``bindings``), ``bindings``, ``cffi``
(ABI mode: libffi marshals 11 arguments, ~0.7 µs) and ``ctypes``.  A nonzero CUresult
raises :class:`CudaDriverError` (invalid configurations are rejected by the driver
itself, at no cost on the happy path); a launch refused for want of the right context (a thread with none current,
or another device's) is retried once: in the thread's own device's context when the function is there (a new thread
gets its device, see ``Driver.current``), else with the function's context pushed for that launch only.

``launch(fn, grid, block, args=[(value, code), ...])`` is the generic, slower path.
"""

from __future__ import annotations

import ctypes
import threading

from ._cu import cu
from ._state import get_driver
from .errors import raise_for
from .params import param_layout
from .stream import stream_handle

__all__ = ["Launcher", "launch", "launch_cooperative"]

_INVALID_CONTEXT = 201


def _buffers_factory(tls, layout):
    """A function creating the calling thread's (memoryview, void** address, ...)."""
    size, offsets = max(layout.size, 1), layout.offsets

    def buffers():
        storage = (ctypes.c_char * size)()
        base = ctypes.addressof(storage)
        array = (ctypes.c_void_p * max(len(offsets), 1))(*[base + off for off in offsets])
        entry = (memoryview(storage).cast("B"), ctypes.addressof(array), storage, array)
        tls.b = entry
        return entry

    return buffers


def _retry_factory(device_id, bindings):
    def retry(rc, name, fn, args):
        rc = int(rc)
        if rc == _INVALID_CONTEXT:  # no (or another device's) context current here
            d = get_driver()
            if d.current() == device_id:  # the thread's own device (device 0 in a new thread)
                rc = int(fn(*args)[0]) if bindings else fn(*args)
            else:  # the function's device just for this launch: the thread keeps its device
                d.push(device_id)
                try:
                    rc = int(fn(*args)[0]) if bindings else fn(*args)
                finally:
                    d.pop()
            if not rc:
                return
        raise_for(rc, name)

    return retry


# The per-call code, generated once per parameter count so that the values are
# plain positional parameters (measured ~2x less Python overhead than *values and
# indexing grid[0], grid[1], ...).
_TEMPLATE = """
def {fname}(grid, block, shared_mem, stream_handle{params}):
    try:
        b = tls.b
    except AttributeError:
        b = buffers()
    pack_into(b[0], 0{params})
{stream}
    gx, gy, gz = grid
    bx, by, bz = block
    err = {raw}({lead}f, gx, gy, gz, bx, by, bz, shared_mem, s, b[1]{extra}){index}
    if err:
        retry(err, "{call}", {raw}, ({lead}f, gx, gy, gz, bx, by, bz, shared_mem, s, b[1]{extra}))
"""

_STREAM_BINDINGS = """    s = streams.get(stream_handle)
    if s is None:
        s = stream_obj(stream_handle)"""
_STREAM_NATIVE = "    s = stream_handle"


def _generate(namespace, count, bindings, shim=False):
    """Compile launch/launch_cooperative for ``count`` parameters over ``namespace``
    (which provides raw, raw_coop, f, tls, buffers, pack_into, retry, streams...;
    for the shim also ``entry``/``entry_coop``, the driver addresses passed first)."""
    params = "".join(f", a{i}" for i in range(count))
    stream = _STREAM_BINDINGS if bindings else _STREAM_NATIVE
    index = "[0]" if bindings else ""
    lead, lead_coop, extra = ("entry, ", "entry_coop, ", "") if shim else ("", "", ", 0")
    src = _TEMPLATE.format(fname="launch", params=params, stream=stream, raw="raw", extra=extra,
                           index=index, call="cuLaunchKernel", lead=lead)
    src += _TEMPLATE.format(fname="launch_cooperative", params=params, stream=stream, raw="raw_coop",
                            extra="", index=index, call="cuLaunchCooperativeKernel", lead=lead_coop)
    exec(compile(src, f"<cudalite.driver launcher/{count}>", "exec"), namespace)
    return namespace["launch"], namespace["launch_cooperative"]


def _bindings_launchers(function, layout):
    """launch/launch_cooperative calling cuda.bindings directly (Cython; the
    fastest measured: no libffi marshalling of 11 arguments)."""
    driver = cu()
    CUstream = driver.CUstream
    tls = threading.local()
    streams = {}  # int handle -> CUstream (a value cache, bounded)

    def stream_obj(handle):
        if len(streams) > 256:
            streams.clear()
        s = streams[handle] = CUstream(handle)
        return s

    ns = dict(raw=driver.cuLaunchKernel, raw_coop=driver.cuLaunchCooperativeKernel, f=function._cu,
              tls=tls, buffers=_buffers_factory(tls, layout), pack_into=layout.struct.pack_into,
              retry=_retry_factory(function.device_id, True), streams=streams, stream_obj=stream_obj)
    return _generate(ns, layout.count, bindings=True)


def _native_launchers(function, layout, backend):
    """launch/launch_cooperative calling libcuda through cffi (ABI mode) or ctypes,
    every handle an int."""
    lib = get_driver().native(backend)
    tls = threading.local()
    ns = dict(raw=lib.cuLaunchKernel, raw_coop=lib.cuLaunchCooperativeKernel, f=function.handle,
              tls=tls, buffers=_buffers_factory(tls, layout), pack_into=layout.struct.pack_into,
              retry=_retry_factory(function.device_id, False))
    return _generate(ns, layout.count, bindings=False)


def _shim_launchers(function, layout, native):
    """launch/launch_cooperative calling the compiled cffi API-mode shim, which calls
    libcuda's entry points from C (``native`` = (Shim, launch address, coop address))."""
    shim, entry, entry_coop = native
    tls = threading.local()
    ns = dict(raw=shim.lib.cl_launch, raw_coop=shim.lib.cl_launch_coop, entry=entry, entry_coop=entry_coop,
              f=function.handle, tls=tls, buffers=_buffers_factory(tls, layout),
              pack_into=layout.struct.pack_into, retry=_retry_factory(function.device_id, False))
    return _generate(ns, layout.count, bindings=False, shim=True)


class Launcher:
    """Prepared launches of one :class:`~cudalite.driver.Function` with one
    parameter format.  Use ``launch``/``launch_cooperative`` (instance attributes
    that are plain closures: no bound-method or attribute work per call).

    ``launch(grid, block, shared_mem, stream_handle, *values)`` and
    ``launch_cooperative(...)`` take 3-tuples of ints for ``grid``/``block``, the
    dynamic shared memory in bytes, an int stream handle (0: legacy default stream)
    and one value per parameter (pointers as ints); a nonzero CUresult raises
    :class:`CudaDriverError`.

    Parameters
    ----------
    function : Function
        The kernel.
    param_format : str
        Its parameter format (see :func:`param_layout`).
    backend : str, optional
        ``"shim"``, ``"bindings"``, ``"cffi"`` or ``"ctypes"``; ``None`` (default)
        takes ``CUDALITE_LAUNCH_BACKEND`` (``"shim"`` unless set).

    Raises
    ------
    ValueError
        If ``backend`` is unknown or ``param_format`` is invalid.
    """

    def __init__(self, function, param_format, backend=None):
        driver = get_driver()
        self.function = function
        self.layout = layout = param_layout(param_format)
        self.backend = backend = backend or driver.config.launch_backend
        if backend == "shim":
            native = driver.native("shim")  # None: no compiler/headers -> bindings, silently
            if native is not None:
                self.launch, self.launch_cooperative = _shim_launchers(function, layout, native)
                return
            self.backend = backend = "bindings"
        if backend == "bindings":
            self.launch, self.launch_cooperative = _bindings_launchers(function, layout)
        elif backend in ("cffi", "ctypes"):
            self.launch, self.launch_cooperative = _native_launchers(function, layout, backend)
        else:
            raise ValueError(f"unknown launch backend {backend!r}")

    @property
    def param_format(self) -> str:
        """The normalized parameter format."""
        return self.layout.format

    def __repr__(self):
        return f"<cudalite.driver.Launcher {self.function.name!r} {self.layout.format!r} via {self.backend}>"


def _dim3(d):
    if isinstance(d, int):
        return (d, 1, 1)
    d = tuple(int(x) for x in d)
    if not 1 <= len(d) <= 3:
        raise ValueError(f"launch dimensions must have 1 to 3 entries, got {d!r}")
    return d + (1,) * (3 - len(d))


def _value(value, code):
    if code in "QqPNn" and not isinstance(value, int):
        ptr = getattr(value, "ptr", None)
        if isinstance(ptr, int):
            return ptr
        cai = getattr(value, "__cuda_array_interface__", None)
        if cai is not None:
            return cai["data"][0]
    return value


def launch(fn, grid, block, args=(), shared_mem=0, stream=None, cooperative=False):
    """Generic launch: ``args`` is a sequence of ``(value, code)`` with struct codes
    (``"Q"`` pointers -- ints, DeviceMemory or CUDA-array-interface objects --,
    ``"f"``, ``"i"``, ...); grid/block ints or 1-3 tuples; stream a Stream/int/None.

    Parameters
    ----------
    fn : Function
        The kernel.
    grid : int or tuple of int
        Grid dimensions: an int or a 1- to 3-tuple.
    block : int or tuple of int
        Block dimensions: an int or a 1- to 3-tuple.
    args : sequence of (value, str), optional
        One ``(value, code)`` pair per kernel parameter; ``code`` is a struct code
        (``"Q"`` for a pointer, given as an int, a :class:`DeviceMemory` or an object
        with ``__cuda_array_interface__``; ``"f"``, ``"i"``, ...).
    shared_mem : int, optional
        Dynamic shared memory per block, in bytes (default 0).
    stream : Stream or int, optional
        The stream to launch on; ``None`` (default) is the legacy default stream.
    cooperative : bool, optional
        Launch with cuLaunchCooperativeKernel (default False).

    Raises
    ------
    ValueError
        If a dimension has more than 3 entries.
    CudaDriverError
        If the driver rejects the launch.
    """
    args = list(args)
    fmt = "".join(code for _, code in args)
    values = [_value(v, c) for v, c in args]
    lau = fn.launcher(fmt)
    call = lau.launch_cooperative if cooperative else lau.launch
    call(_dim3(grid), _dim3(block), int(shared_mem), stream_handle(stream), *values)


def launch_cooperative(fn, grid, block, args=(), shared_mem=0, stream=None):
    """Generic cooperative launch (cuLaunchCooperativeKernel; grid.sync() capable).

    Parameters
    ----------
    fn : Function
        The kernel.
    grid : int or tuple of int
        Grid dimensions: an int or a 1- to 3-tuple.
    block : int or tuple of int
        Block dimensions: an int or a 1- to 3-tuple.
    args : sequence of (value, str), optional
        One ``(value, code)`` pair per kernel parameter; ``code`` is a struct code
        (``"Q"`` for a pointer, given as an int, a :class:`DeviceMemory` or an object
        with ``__cuda_array_interface__``; ``"f"``, ``"i"``, ...).
    shared_mem : int, optional
        Dynamic shared memory per block, in bytes (default 0).
    stream : Stream or int, optional
        The stream to launch on; ``None`` (default) is the legacy default stream.

    Raises
    ------
    CudaDriverError
        If the driver rejects the launch (e.g. too many blocks to be co-resident).
    """
    launch(fn, grid, block, args, shared_mem, stream, cooperative=True)
