"""Argument kinds of device arrays: cudalite's, CuPy's, torch's, and any CUDA array
interface (CAI v0-v3) object.

Every array is keyed ``(dtype, ndim, layout)``, its layout ('C', 'F' or 'A', NumPy's
relaxed rule) from the one classifier :func:`cudalite.cuda._memory.layout.layout_of`,
so arrays of the same type from any library share one specialization.  Its values
are the parameter's slots in order -- data pointer, extents, and byte strides for an
'A' parameter -- spelled once by :func:`slot_source` from the kernel ABI's slots;
:func:`array_flat` is that source compiled per parameter.  CuPy arrays and torch
tensors are read through their own attributes (no CAI dict per launch).

Stream ordering (CAI v3): a CUDA-array-interface argument whose ``stream`` names a
stream other than the launch's has that stream synchronized by the host before the
launch (numba's ``CUDA_ARRAY_INTERFACE_SYNC`` rule, :func:`sync_producer`; nothing with
``CUDALITE_CUDA_ARRAY_INTERFACE_SYNC=0``); the check is made where the argument is
converted, so an argument naming no stream costs nothing.  CuPy arrays (read without
their CAI dict) keep a device-side wait of the launch stream for CuPy's current stream.
"""

from __future__ import annotations

import functools
import sys

from cudalite.core.abi import Role, kernel_abi
from cudalite.core.numpy_support import lazy_numpy as np
from cudalite.core.types import bfloat16_dtype
from cudalite.driver import Event, Stream, pointer_attributes

from .._memory import layout as L
from .._runtime.api import external_stream
from ..config import load_config
from .devices import ANY
from .keys import key_to_type
from .kinds import ArgKind

__all__ = ["DeviceArrayKind", "CAIKind", "CupyKind", "TorchKind", "is_device_array_like", "slot_source",
           "array_flat", "needs_wait", "stream_wait", "sync_producer", "KINDS"]


def slot_source(spec, data, shape, stride) -> str:
    """Source of an array's values in the slot order of ``spec`` (an ArgABI): ``data``
    for the data pointer, ``shape(d)``/``stride(d)`` for the extent/byte stride along
    ``d``.  The one definition of an array argument's values."""
    out = []
    for s in spec.slots:
        if s.role is Role.DATA:
            out.append(data)
        elif s.role is Role.SHAPE:
            out.append(shape(s.dim))
        elif s.role is Role.STRIDE:
            out.append(stride(s.dim))
        else:
            raise TypeError(f"an array cannot fill a {s.role.value} parameter")
    return ", ".join(out)


@functools.lru_cache(maxsize=256)
def _slot_function(spec):
    src = slot_source(spec, "p", lambda d: f"s[{d}]", lambda d: f"t[{d}]")
    ns = {}
    exec(compile(f"def values(p, s, t):\n    return ({src},)\n", "<cudalite array values>", "exec"), ns)
    return ns["values"]


def array_flat(ptr, shape, strides, spec) -> tuple:
    """The values of an array (data pointer, extents, byte strides) for the parameter
    ``spec``: :func:`slot_source` compiled once per parameter."""
    return _slot_function(spec)(ptr, shape, strides)


def _unpack(prefix, n, expr) -> list:
    """Prelude lines unpacking the ``n`` items of ``expr`` into ``{prefix}_0`` ...
    (none for a 0-d array: it has no extents or strides)."""
    if not n:
        return []
    return [f"{', '.join(f'{prefix}_{j}' for j in range(n))}, = {expr}"]


def _has_strides(spec) -> bool:
    return any(s.role is Role.STRIDE for s in spec.slots)


def is_device_array_like(obj) -> bool:
    """A cudalite DeviceNDArray, a host-mapped/managed array (numba's
    ``__cuda_ndarray__`` marker), or anything following the device array's
    kernel-argument contract (``_type_key`` and ``_kernel_params``)."""
    if getattr(obj, "__cuda_ndarray__", False):
        return True
    return hasattr(obj, "_type_key") and hasattr(obj, "_kernel_params")


def pointer_devices(ptr):
    """``(device,)`` of a device address (``(ANY,)`` for managed or mapped host
    memory, ``()`` for NULL), asking the driver (cuPointerGetAttributes)."""


    if not ptr:
        return ()
    attrs = pointer_attributes(ptr)
    if attrs.is_managed or attrs.memory_type == "host" or attrs.device_ordinal is None:
        return (ANY,)
    return (attrs.device_ordinal,)


def stream_wait(consumer, producer):
    """Make work on stream ``consumer`` wait for what is queued on ``producer``."""

    Stream.external(consumer).wait_event(Event(timing=False).record(Stream.external(producer)))


def needs_wait(producer, sh) -> bool:
    """CAI v3: the consumer's stream must wait for the producer's, unless they are
    the same stream or both the legacy default stream (0 and 1 are the same there)."""
    return producer is not None and producer != sh and not (producer <= 1 and sh <= 1)


def sync_producer(producer):
    """numba's launch-time rule for a ``__cuda_array_interface__`` argument whose
    producer named a stream (``CUDALITE_CUDA_ARRAY_INTERFACE_SYNC``, default on): the
    host waits for that stream (``Stream.synchronize`` of the public stream class,
    ``cuda.cudadrv.driver.Stream``); with the switch off nothing is done and ordering
    is the caller's.  The caller asks only when :func:`needs_wait` says the launch
    stream is another stream."""
    if not load_config().cuda_array_interface_sync:
        return
    external_stream(producer).synchronize()


class DeviceArrayKind(ArgKind):
    """cudalite DeviceNDArray (and host-mapped/managed arrays): ``_type_key`` and
    ``_kernel_params``, its values for its own layout (the kernel ABI's)."""

    order = 50

    @classmethod
    def recognise(cls, pycls, sample):
        return is_device_array_like(sample)

    @classmethod
    def make(cls, pycls, sample, resolve):
        return cls(pycls)

    def __init__(self, cls):
        self.cls = cls

    def key(self, arg):
        return arg._type_key

    def devices(self, arg):
        routing = getattr(arg, "_routing_device", None)  # DeviceNDArray; host-mapped arrays: any device
        return () if routing is None else (routing(),)

    def device_guard(self, i, a, ns):
        if not hasattr(self.cls, "_routing_device"):
            return None
        return f"{a}._device in DEVS"  # None (not known yet) misses: the slow path finds it

    def direct_group(self, spec, key):
        """The array's ``_kernel_params`` when they are the parameter's values (its own
        layout), checked by ``_type_key`` -- the guard of :meth:`source`, in C.  A class
        declaring ``_kernel_params_fixed = True`` itself (DeviceNDArray: both attributes
        are set once) lets C keep the values of the last two arrays it saw."""
        if kernel_abi((key_to_type(key),)).n_values(0) != spec.count:
            return None
        stable = self.cls if self.cls.__dict__.get("_kernel_params_fixed") is True else None
        return ("attrs", "_type_key", key, "_kernel_params", spec.count, stable)

    def source(self, i, a, spec, key, ns):
        # no class check: any object whose _type_key matches follows the contract (an
        # object without _type_key raises AttributeError, which the guard treats as a miss);
        # DeviceNDArray interns its keys, so `is` decides without comparing the tuples
        ns[f"K{i}"] = key
        guard = f"({a}._type_key is K{i} or {a}._type_key == K{i})"
        if kernel_abi((key_to_type(key),)).n_values(0) == spec.count:
            names = [f"_cl_v{i}_{j}" for j in range(spec.count)]
            return guard, [f"{', '.join(names)}, = {a}._kernel_params"], ", ".join(names)
        # a C/F array for an 'A' parameter: its strides, which its own values leave implicit
        ndim, itemsize = key[1], key[0].itemsize
        ns[f"ST{i}"] = L.c_strides if key[2] == "C" else L.f_strides
        pre = [f"_cl_p{i} = {a}._kernel_params", f"_cl_s{i} = _cl_p{i}[1:{1 + ndim}]",
               f"_cl_t{i} = ST{i}(_cl_s{i}, {itemsize})"]
        vals = slot_source(spec, f"_cl_p{i}[0]", lambda d: f"_cl_s{i}[{d}]", lambda d: f"_cl_t{i}[{d}]")
        return guard, pre, vals


class CAIKind(ArgKind):
    """Any object with ``__cuda_array_interface__`` (v0-v3)."""

    order = 130

    @classmethod
    def recognise(cls, pycls, sample):
        return hasattr(sample, "__cuda_array_interface__")

    def devices(self, arg):
        return pointer_devices(arg.__cuda_array_interface__["data"][0])

    def _read(self, arg):
        cai = arg.__cuda_array_interface__
        dtype = np.dtype(cai["typestr"])
        if dtype.kind == "V" and not dtype.fields:  # "<V2" (bfloat16's typestr): the object's dtype says which
            own = getattr(arg, "dtype", None)
            if isinstance(own, np.dtype) and own.itemsize == dtype.itemsize:
                dtype = own
        shape = tuple(cai["shape"])
        strides = cai.get("strides")
        strides = L.c_strides(shape, dtype.itemsize) if strides is None else tuple(strides)
        return cai, dtype, shape, strides, L.layout_of(shape, strides, dtype.itemsize)

    def key(self, arg):
        _cai, dtype, shape, _strides, layout = self._read(arg)
        return (dtype, len(shape), layout)

    def flat(self, arg, spec, sh):
        cai, _dtype, shape, strides, _layout = self._read(arg)
        stream = cai.get("stream")
        if stream is not None and needs_wait(stream, sh):  # no stream named: nothing more to do
            sync_producer(stream)
        return array_flat(cai["data"][0] or 0, shape, strides, spec)


class CupyKind(CAIKind):
    """CuPy arrays without building the CAI dict: ``data.ptr``, ``shape``, ``strides``;
    stream ordering against CuPy's current stream (what its CAI would report).

    The type key's layout comes from :func:`._array_layout.layout_of`.  The generated
    guard reads CuPy's own contiguity flags instead (attribute reads, no call): that
    is safe whatever rule CuPy's flags follow, as long as they are *sound* (a flag
    claims only true contiguity).  A guard accepting 'C' (or 'F') means the array is
    C- (or F-) contiguous, so the extents alone address it exactly as the kernel
    derives; an 'A' specialization gets the real strides.  Where the flags and
    ``layout_of`` disagree the guard misses and the launch takes the slow path, which
    keys by ``layout_of`` (slower, never wrong).  CuPy's flags use NumPy's relaxed
    rule (size-1 extents ignored, empty arrays both), so they agree in practice.
    """

    order = 100

    @classmethod
    def recognise(cls, pycls, sample):
        module = getattr(pycls, "__module__", "") or ""
        return module.startswith("cupy") and hasattr(sample, "data") and hasattr(sample, "strides")

    @classmethod
    def make(cls, pycls, sample, resolve):
        return cls(pycls, sample)

    def __init__(self, cls, sample):
        cupy = sys.modules["cupy"]  # loaded: one of its arrays is here (jit does not import cupy)
        self.cls = cls
        get = cupy.cuda.get_current_stream
        # The launch code calls get_current_stream() and reads ``.ptr`` only when the
        # stream is not CuPy's null-stream object (~90 ns less per launch, measured
        # with CuPy 14 on an H100); any other object (an ExternalStream(0) included)
        # goes through ``.ptr`` and the CAI v3 rule.
        self.get_stream = get
        self.null_stream = getattr(cupy.cuda.Stream, "null", None) or object()

        def current_stream():
            return get().ptr

        self.current_stream = current_stream
        self.has_flags = hasattr(sample, "_c_contiguous")

    def key(self, arg):
        return (arg.dtype, arg.ndim, L.layout_of(arg.shape, arg.strides, arg.dtype.itemsize))

    def devices(self, arg):
        return (arg.data.device_id,)

    def device_guard(self, i, a, ns):
        return f"{a}.data.device_id == DEV"

    def flat(self, arg, spec, sh):
        cs = self.current_stream()
        if needs_wait(cs, sh) and cs != 0:
            stream_wait(sh, cs)
        return ArgKind.flat(self, arg, spec, sh)  # the values: source() compiled

    def source(self, i, a, spec, key, ns):
        dtype, ndim, layout = key
        ns[f"C{i}"], ns[f"D{i}"], ns["WAIT"], ns["NEEDS_WAIT"] = self.cls, dtype, stream_wait, needs_wait
        ns["CUPY_STREAM"], ns["CUPY_NULL"] = self.get_stream, self.null_stream
        c, f = (f"{a}._c_contiguous", f"{a}._f_contiguous") if self.has_flags else (
            f"{a}.flags.c_contiguous", f"{a}.flags.f_contiguous")
        lay = {"C": c, "F": f"(not {c} and {f})", "A": f"(not {c} and not {f})"}[layout]
        guard = f"type({a}) is C{i} and {a}.dtype == D{i} and {a}.ndim == {ndim} and {lay}"
        pre = _unpack(f"_cl_s{i}", ndim, f"{a}.shape")
        if _has_strides(spec):
            pre += _unpack(f"_cl_t{i}", ndim, f"{a}.strides")
        vals = slot_source(spec, f"{a}.data.ptr", lambda d: f"_cl_s{i}_{d}", lambda d: f"_cl_t{i}_{d}")
        return guard, pre, vals

    # Identity cache: a CuPy array's data pointer, dtype, size and strides cannot be
    # reassigned; its shape can (``a.shape = ...``, a no-copy reshape in place of the
    # same size, which also recomputes the strides and contiguity).  Same object and
    # same shape => same flattened values.  With at most one dimension the shape is
    # ``(size,)`` or ``()``, so the same ``ndim`` means the same shape: ``a.ndim`` is a
    # C-level read (~30 ns) where ``a.shape`` builds a tuple (~90 ns), per argument.
    cache_fields = 1

    def cache_snippet(self, a, fields, values, ns, key):
        if key[1] <= 1:
            return [f"{a}.ndim == {fields[0]}"], [f"{a}.ndim"]
        return [f"{a}.shape == {fields[0]}"], [f"{a}.shape"]

    def direct_cache_checks(self, key):
        return (("ndim" if key[1] <= 1 else "shape", False, ("field", 0)),)


def _torch_version(t):
    """A tensor's version counter (bumped by every in-place op, including resize_,
    set_, as_strided_, transpose_...); None for inference tensors (no counter)."""
    try:
        return t._version
    except RuntimeError:
        return None


_TORCH_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "float32", "float64", "complex64", "complex128")


class TorchKind(ArgKind):
    """PyTorch CUDA tensors: ``data_ptr()``, ``shape``, ``stride()`` (elements).

    The key's layout comes from :func:`._array_layout.layout_of`; the generated guard
    of a 'C' specialization calls ``is_contiguous()`` instead, which is sound in the
    sense of :class:`CupyKind` (torch's rule is also NumPy's relaxed one)."""

    order = 90

    @classmethod
    def recognise(cls, pycls, sample):
        module = getattr(pycls, "__module__", "") or ""
        return module.startswith("torch") and hasattr(sample, "data_ptr")

    @classmethod
    def make(cls, pycls, sample, resolve):
        return cls(pycls)

    def __init__(self, cls):
        torch = sys.modules["torch"]  # loaded: one of its tensors is here (jit does not import torch)
        self.cls = cls
        self.dtypes = {getattr(torch, n): np.dtype(n) for n in _TORCH_DTYPES if hasattr(torch, n)}
        if "ml_dtypes" in sys.modules and hasattr(torch, "bfloat16"):  # torch.bfloat16: ml_dtypes' dtype
            self.dtypes[torch.bfloat16] = bfloat16_dtype()

    def _dtype(self, t):
        try:
            return self.dtypes[t.dtype]
        except KeyError:
            raise TypeError(f"torch tensors of dtype {t.dtype} cannot be passed to a kernel") from None

    def _info(self, t):
        if not t.is_cuda:
            raise TypeError(f"a torch tensor on {t.device} cannot be passed to a kernel: move it to a CUDA device")
        dtype = self._dtype(t)
        shape = tuple(t.shape)
        strides = tuple(s * dtype.itemsize for s in t.stride())
        return dtype, shape, strides

    def key(self, arg):
        dtype, shape, strides = self._info(arg)
        return (dtype, len(shape), L.layout_of(shape, strides, dtype.itemsize))

    def devices(self, arg):
        dev = arg.get_device()  # -1 for a CPU tensor (refused by key())
        return (dev,) if dev >= 0 else ()

    def device_guard(self, i, a, ns):
        return f"{a}.get_device() == DEV"

    def strided(self, arg, spec):
        """The values of a tensor for a parameter with strides (torch's are in
        elements: converted to bytes)."""
        _dtype, shape, strides = self._info(arg)
        return array_flat(arg.data_ptr(), shape, strides, spec)

    def source(self, i, a, spec, key, ns):
        dtype, ndim, layout = key
        torch_dtype = next(t for t, d in self.dtypes.items() if d == dtype)
        ns[f"C{i}"], ns[f"T{i}"], ns[f"H{i}"], ns[f"K{i}"] = self.cls, torch_dtype, self, key
        if layout == "C":
            guard = f"type({a}) is C{i} and {a}.dtype is T{i} and {a}.is_cuda and {a}.dim() == {ndim} " \
                    f"and {a}.is_contiguous()"
        else:
            guard = f"type({a}) is C{i} and H{i}.key({a}) == K{i}"
        if _has_strides(spec):
            ns[f"P{i}"] = spec
            return guard, [f"_cl_v{i} = H{i}.strided({a}, P{i})"], f"*_cl_v{i}"
        pre = _unpack(f"_cl_s{i}", ndim, f"{a}.shape")
        return guard, pre, slot_source(spec, f"{a}.data_ptr()", lambda d: f"_cl_s{i}_{d}", None)

    # Identity cache: every in-place op bumps ``_version`` (resize_, set_, as_strided_,
    # transpose_, t_, squeeze_/unsqueeze_ and data writes; verified on torch 2.11), so
    # the same tensor with the same version has the same shape, strides, dtype and data
    # pointer.  ``t.data = other`` bypasses the counter: the data pointer check catches
    # it when the storage changes (docs: a ``.data`` swap to a view of the same
    # storage at the same address is not detected).
    cache_fields = 1

    def cache_snippet(self, a, fields, values, ns, key):
        ns["TVER"] = _torch_version
        return [f"{a}._version == {fields[0]}", f"{a}.data_ptr() == {values[0]}"], [f"TVER({a})"]

    def direct_cache_checks(self, key):
        # the class's own data_ptr called with the tensor: C makes no bound method per launch
        return (("_version", False, ("field", 0)), (self.cls.data_ptr, True, ("value", 0)))


KINDS = (DeviceArrayKind, TorchKind, CupyKind, CAIKind)
