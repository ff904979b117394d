"""Kernel arguments from cuda.core and from DLPack-only producers.

numba-cuda 0.30 accepts, and so does cudalite:

* ``cuda.core.utils.StridedMemoryView`` -- typed as an array of its dtype, rank and
  layout (numba-cuda refuses non-contiguous views; cudalite passes them as 'A'
  arrays with their strides); a view of memory the device cannot access is refused.
* ``cuda.core.Buffer`` -- a 1-d C-contiguous ``uint8`` array of ``buffer.size`` bytes.
* objects exporting only DLPack (``__dlpack__``/``__dlpack_device__``), read by the
  hand-written reader of :mod:`._dlpack` (``byte_offset`` honoured).  The capsule is
  consumed **once** per launch (the type key and the values come from the same export,
  for the launch stream the producer is told to order its work before), and the
  producer object stays referenced until the kernel has run: a host callback enqueued
  on the launch stream after the kernel (``cudalite.driver.add_callback``) marks it
  done, and a later launch drops the reference on its own thread -- never on the
  driver's callback thread, where a producer's destructor calling the CUDA API is not
  allowed.  (cuda.core 1.2's ``StridedMemoryView.from_dlpack`` is not used for these:
  it ignores ``byte_offset``, cuda-python #2592, and a process that used it crashed in
  its final garbage collection once a cuda.core stream had been created.)

cuda.core is never imported by ``import cudalite``: only when one of its objects, or
a DLPack-only object, is passed.
"""

from __future__ import annotations

import threading

import numpy as np
import cudalite.driver as _drv
from cudalite.driver import graph as _graph

from .._memory import layout as L
from .._memory.dlpack import read_dlpack
from .arrays import array_flat, slot_source
from .kinds import ArgKind

__all__ = ["CoreViewKind", "CoreBufferKind", "DLPackKind", "KeepUntilDone", "import_dlpack", "KINDS"]

_KDL_CUDA = 2  # DLPack's kDLCUDA device type (kDLCUDAHost 3 and kDLCUDAManaged 13 have no one device)


def _view_layout(view):
    """``(ptr, shape, byte strides, NumPy dtype)`` of a StridedMemoryView."""
    dtype = view.dtype
    shape = tuple(int(n) for n in view.shape)
    strides = view.strides
    strides = L.c_strides(shape, dtype.itemsize) if strides is None else tuple(int(s) * dtype.itemsize
                                                                                 for s in strides)
    return int(view.ptr), shape, strides, dtype


def import_dlpack(obj, stream):
    """Consume ``obj.__dlpack__`` once, for the consumer stream ``stream`` (DLPack's
    convention: 1 is the legacy default stream): ``(ptr, shape, byte strides, dtype,
    owner)``; ``owner`` (the producer: it keeps the memory) is to be kept until the
    kernel has run.  The capsule itself is released at once."""

    return (*read_dlpack(obj, stream=stream), obj)


class KeepUntilDone:
    """References kept until the work queued on a stream before them has run.

    :meth:`add` enqueues a host callback that only marks its record done; :meth:`prune`
    (called by every :meth:`add`, on the launching thread) drops the done records, so a
    kept object is never released on the driver's callback thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self._records = []  # [done, kept]

    def prune(self):
        with self._lock:
            self._records = [r for r in self._records if not r[0]]

    def add(self, sh, kept):
        """Keep ``kept`` until the work queued so far on stream handle ``sh`` has run.  A
        stream being captured gets no callback (a driver call it refuses would end the
        capture): the graph's launches use the memory, and the program keeps what its
        graphs use alive, as for every argument of a captured launch."""

        self.prune()
        if sh != 0 and _graph.is_capturing(sh):
            return
        rec = [False, kept]
        with self._lock:
            self._records.append(rec)
        _drv.add_callback(_drv.Stream.external(sh), lambda status, rec=rec: rec.__setitem__(0, True))

    def __len__(self):
        with self._lock:
            return len(self._records)


def _is_core(pycls) -> bool:
    return (getattr(pycls, "__module__", "") or "").startswith("cuda.core")


class DLPackKind(ArgKind):
    """Objects that export only DLPack: one export per launch (see the module doc)."""

    order = 120

    @classmethod
    def recognise(cls, pycls, sample):
        return hasattr(sample, "__dlpack__") and not hasattr(sample, "__cuda_array_interface__") and (
            _is_core(pycls) or hasattr(sample, "__dlpack_device__"))

    @classmethod
    def make(cls, pycls, sample, resolve):
        return cls(pycls)

    def __init__(self, cls=None):
        self.cls = cls  # the producer's class: the generated launcher's guard checks it
        self._tls = threading.local()  # .made: (obj, stream, layout tuple, owner); .owner: to release
        self.kept = KeepUntilDone()

    def _export(self, arg, stream):
        made = getattr(self._tls, "made", None)
        if made is not None and made[0] is arg and made[1] == stream:
            return made
        ptr, shape, strides, dtype, owner = import_dlpack(arg, stream)
        made = self._tls.made = (arg, stream, (ptr, shape, strides, dtype), owner)
        return made

    def devices(self, arg):
        kind, dev = arg.__dlpack_device__()
        return (int(dev),) if int(kind) == _KDL_CUDA else ()

    def key(self, arg, stream=1):
        _ptr, shape, strides, dtype = self._export(arg, stream)[2]
        return (dtype, len(shape), L.layout_of(shape, strides, dtype.itemsize))

    def flat(self, arg, spec, sh):
        made = self._export(arg, sh if sh > 0 else 1)
        self._tls.made = None  # the next launch exports again
        self._tls.owner = made[3]
        ptr, shape, strides, _dtype = made[2]
        return array_flat(ptr, shape, strides, spec)

    def after_launch(self, sh):
        owner, self._tls.owner = getattr(self._tls, "owner", None), None
        if owner is not None:
            self.kept.add(sh, owner)

    def source(self, i, a, spec, key, ns):
        ns[f"H{i}"], ns[f"K{i}"], ns[f"P{i}"], ns[f"C{i}"] = self, key, spec, self.cls
        # the key is read from the export made for this launch's stream; flat() reuses it.  The class
        # check first: another object that also exports DLPack (a device array) has its own handler
        return (f"type({a}) is C{i} and H{i}.key({a}, SH if SH > 0 else 1) == K{i}",
                [f"_cl_v{i} = H{i}.flat({a}, P{i}, SH)"], f"*_cl_v{i}")


def _core_devices(obj):
    """``(device_id,)`` of a cuda.core view or buffer, ``()`` when it has none (host)."""
    dev = getattr(obj, "device_id", None)
    return (int(dev),) if isinstance(dev, int) and dev >= 0 else ()


class CoreViewKind(ArgKind):
    """cuda.core ``StridedMemoryView`` arguments."""

    order = 110

    @classmethod
    def recognise(cls, pycls, sample):
        return _is_core(pycls) and pycls.__name__ == "StridedMemoryView" and hasattr(sample, "ptr")

    def devices(self, arg):
        return _core_devices(arg)

    def key(self, arg):
        if not arg.is_device_accessible:
            raise TypeError("a StridedMemoryView of memory the device cannot access cannot be passed to a kernel")
        _ptr, shape, strides, dtype = _view_layout(arg)
        return (dtype, len(shape), L.layout_of(shape, strides, dtype.itemsize))

    def flat(self, arg, spec, sh):
        ptr, shape, strides, _dtype = _view_layout(arg)
        return array_flat(ptr, shape, strides, spec)

    # Identity cache: a view's pointer, shape, strides and dtype are fixed when it is made
    # (cuda.core gives them no setter); ``ptr`` is checked as well, a C-level read.
    cache_fields = 1

    def cache_snippet(self, a, fields, values, ns, key):
        return [f"{a}.ptr == {fields[0]}"], [f"{a}.ptr"]

    def direct_cache_checks(self, key):
        return (("ptr", False, ("field", 0)),)


class CoreBufferKind(ArgKind):
    """cuda.core ``Buffer`` arguments: ``size`` bytes as a 1-d ``uint8`` array."""

    order = 111

    @classmethod
    def recognise(cls, pycls, sample):
        return (_is_core(pycls) and pycls.__name__ == "Buffer" and hasattr(sample, "handle")
                and hasattr(sample, "size"))

    def devices(self, arg):
        return _core_devices(arg)

    def key(self, arg):
        return (np.dtype(np.uint8), 1, "C")

    def source(self, i, a, spec, key, ns):
        # every Buffer has the one key: its class is the whole guard; ``handle`` may be an int or a
        # driver pointer object (int() of it), 0/None once the buffer is closed
        ns[f"C{i}"] = self.pycls
        vals = slot_source(spec, f"int({a}.handle or 0)", lambda d: f"{a}.size", lambda d: "1")
        return f"type({a}) is C{i}", [], vals

    # Identity cache: a Buffer's size never changes and its handle only when it is closed
    # (then 0 or None): the same object with the same handle has the same values.
    cache_fields = 1

    def cache_snippet(self, a, fields, values, ns, key):
        return [f"{a}.handle == {fields[0]}"], [f"{a}.handle"]

    def direct_cache_checks(self, key):
        return (("handle", False, ("field", 0)),)


KINDS = (CoreViewKind, CoreBufferKind, DLPackKind)
