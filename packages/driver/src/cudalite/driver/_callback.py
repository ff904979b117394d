"""The C trampoline of stream callbacks (``cudalite.driver.add_callback``).

One ctypes ``CFUNCTYPE`` object per process, kept by the driver
(``Driver.native("stream_callback")``); it imports nothing of the driver state.
"""

from __future__ import annotations

import warnings

__all__ = ["make_callback_trampoline"]


def make_callback_trampoline():
    """The C function (a ctypes ``CFUNCTYPE`` object) every stream callback goes
    through: ``userData`` is a Python callable whose reference :func:`add_callback`
    took; the trampoline drops that reference and calls it with the ``CUresult``
    status.  Made once per process and kept by the driver (``Driver.native``)."""
    import ctypes

    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
    decref = ctypes.pythonapi.Py_DecRef
    decref.argtypes = [ctypes.py_object]
    decref.restype = None

    def trampoline(_stream, status, data):
        fn = ctypes.cast(data, ctypes.py_object).value
        decref(fn)  # the reference add_callback took (``fn`` holds its own)
        try:
            fn(int(status))
        except Exception as exc:  # never let an exception unwind into the driver
            warnings.warn(f"Exception in stream callback: {exc!r}", RuntimeWarning, stacklevel=1)

    return proto(trampoline)
