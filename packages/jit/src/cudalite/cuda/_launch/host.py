"""Argument kinds of host data the launch copies: NumPy arrays, record scalars, and
any other object exporting the buffer protocol (``memoryview``, ``array.array``,
``bytearray``, ``bytes``...).

A host argument is copied to the device before the kernel (:meth:`ArgKind.stage_in`)
and back after it, then the stream is synchronized, as numba does (with a
``NumbaPerformanceWarning`` for arrays).  A launch with host data never takes the
generated fast path.
"""

from __future__ import annotations

from cudalite.core.numpy_support import lazy_numpy as np
from cudalite.driver import Stream

from .._memory import layout as L
from .._memory.api import to_device
from .kinds import ArgKind

__all__ = ["HostArrayKind", "RecordScalarKind", "DeviceRecordKind", "HostBufferKind", "DeviceRecord", "RecordCopyBack",
           "KINDS"]


class HostArrayKind(ArgKind):
    """NumPy arrays: copied in before and back after the launch."""

    order = 60
    inline = False

    @classmethod
    def recognise(cls, pycls, sample):
        return issubclass(pycls, np.ndarray)

    def key(self, arg):
        return (arg.dtype, arg.ndim, L.layout_of(arg.shape, arg.strides, arg.dtype.itemsize))

    def needs_copy(self, arg):
        return True

    def stage_in(self, arg, stream, after):
        d = to_device(arg, stream=stream)
        after.append(lambda: d.copy_to_host(arg, stream=stream))
        return d


class DeviceRecord:
    """A record's device copy (a 1-element device array) as a kernel argument."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


class RecordCopyBack:
    """Copies a record's device copy back into the record (after the kernel ran)."""

    def __init__(self, target, host):
        self.target, self.host = target, host

    def copy_back(self, device, stream):
        device.copy_to_host(self.host, stream=stream)
        _synchronize(stream)
        try:
            for name in self.host.dtype.names:
                self.target[name] = self.host[0][name]
        except (TypeError, ValueError):  # a read-only record scalar: nothing to update
            pass


def _synchronize(stream):
    Stream.external(int(stream) if stream else 0).synchronize()


class RecordScalarKind(ArgKind):
    """A NumPy record scalar (``a[i]`` of a structured array, ``np.void``/``np.record``):
    passed, as numba passes it, by reference to a device copy that is copied back into
    the record after the launch (the kernel's writes are seen); no performance warning."""

    order = 140
    inline = False

    @classmethod
    def recognise(cls, pycls, sample):
        return issubclass(pycls, np.void) and bool(sample.dtype.names)

    def key(self, arg):
        return arg.dtype

    def needs_copy(self, arg):
        return True

    def warns_copy(self, arg):
        return False

    def stage_in(self, arg, stream, after):
        host = np.empty(1, dtype=arg.dtype)
        host[0] = arg
        d = to_device(host, stream=stream)
        back = RecordCopyBack(arg, host)
        after.append(lambda: back.copy_back(d, stream))
        return DeviceRecord(d)


class DeviceRecordKind(ArgKind):
    """The device copy of a record scalar: one pointer."""

    order = 150
    inline = False

    @classmethod
    def recognise(cls, pycls, sample):
        return pycls is DeviceRecord

    def key(self, arg):
        return arg.array.dtype

    def flat(self, arg, spec, sh):
        return (arg.array.__cuda_array_interface__["data"][0],)


class HostBufferKind(ArgKind):
    """Any other object exporting the Python buffer protocol (``memoryview``,
    ``array.array``, ``bytearray``, ``bytes``, a ctypes array...): the array NumPy reads
    through the buffer (its format's dtype, its shape and strides), so it is keyed -- and
    specialized -- as the NumPy array of that view.  Copied in before the launch; copied
    back after it unless the buffer is read-only (``bytes``, a read-only memoryview).
    Asked last: every other kind (NumPy arrays, numbers, records) exports a buffer too."""

    order = 200
    inline = False

    @classmethod
    def recognise(cls, pycls, sample):
        try:
            memoryview(sample).release()
        except (TypeError, ValueError):  # no buffer, or one NumPy cannot describe
            return False
        return True

    @staticmethod
    def _view(arg):
        try:
            return np.asarray(memoryview(arg))
        except (TypeError, ValueError) as e:  # e.g. a format NumPy has no dtype for
            raise TypeError(f"a {type(arg).__name__} buffer cannot be passed to a kernel: {e}") from None

    def key(self, arg):
        view = self._view(arg)
        return (view.dtype, view.ndim, L.layout_of(view.shape, view.strides, view.dtype.itemsize))

    def needs_copy(self, arg):
        return True

    def stage_in(self, arg, stream, after):
        view = self._view(arg)  # shares the buffer's memory
        d = to_device(view, stream=stream)
        if view.flags.writeable:
            after.append(lambda: d.copy_to_host(view, stream=stream))
        else:
            after.append(lambda: d)  # nothing to copy back: keeps the device copy until the kernel ran
        return d


KINDS = (HostArrayKind, RecordScalarKind, DeviceRecordKind, HostBufferKind)
