"""Kernel arguments: type keys, flattened parameter values, per-class handlers.

Every argument is handled by an :class:`ArgHandler` chosen once per Python class
(:func:`handler_for`; the dispatcher caches them in a dict keyed by ``type(arg)``).
A handler gives

* ``key(arg)``: a hashable type key -- ``(np.dtype, ndim, layout)`` for every kind
  of array (so a DeviceNDArray, a CuPy array and a torch tensor of the same type
  share one specialization), the Python class for scalars, ``("tuple", *keys)``;
* ``flat(arg, spec, stream_handle)``: the flattened kernel parameter values for
  ``spec``, the :class:`cudalite.core.abi.ArgABI` of the compiled parameter (its type
  and slots: the number and order of the values come from the kernel ABI, the one
  definition of docs/abi.md), doing CUDA-array-interface v3 stream ordering on the way;
* ``snippet(i, a, spec, key, ns)``: Python source (guard, values) that
  :mod:`._fastpath` inlines into the generated per-specialization launch code (the
  values spelled slot by slot when the code is generated, not per launch).

Every array's layout ('C', 'F' or 'A', NumPy's relaxed rule) comes from one function,
:func:`._array_layout.layout_of`, whatever its source: DeviceNDArray, CAI, DLPack,
NumPy, CuPy or torch.

Kinds: DeviceNDArray (its ``_type_key``/``_kernel_params``), NumPy arrays (copied
in and back by the dispatcher, with a :class:`NumbaPerformanceWarning`), CuPy
arrays and torch tensors (fast paths reading their attributes directly: no
``__cuda_array_interface__`` dict per call), any other CAI object, Python and
NumPy scalars, tuples of these.  ``key_to_type`` maps keys to cudalite types.
"""

from __future__ import annotations

import enum
import functools
import sys

from cudalite.core.numpy_support import lazy_numpy as np  # NumPy loads on first use

from cudalite.core.abi import Role, kernel_abi
from cudalite.core.errors import NumbaPerformanceWarning
from cudalite.core.types import (
    BFloat16, Fp8, bfloat16_bits, bfloat16_dtype, fp8_bits,
    Array, Boolean, Complex, CPointer, Float, Integer, NamedTuple, Tuple, type_from_dtype, typeof_constant,
)

from . import _array_layout as L
from ._argbase import ArgHandler, _array_flat  # noqa: F401  (re-exported: the handlers' base)

__all__ = [
    "ArgHandler", "handler_for", "key_to_type", "compatible", "eager_rank", "NumbaPerformanceWarning",
    "CudalitePerformanceWarning", "is_device_array_like",
]


# A launch that works but is slow (host arrays copied to and from the device): numba's
# class (cudalite.core.errors), also under cudalite's older name.
CudalitePerformanceWarning = NumbaPerformanceWarning

_SCALAR_CLASSES = {float: "float64", int: "int64", bool: "bool", complex: "complex128"}
_NAMED_KEYS = ("namedtuple", "namedtuple-host")


def is_device_array_like(obj) -> bool:
    """A cudalite DeviceNDArray, a host-mapped/managed array (numba's
    ``__cuda_ndarray__`` marker), or anything following the device array's
    kernel-argument contract."""
    if getattr(obj, "__cuda_ndarray__", False):
        return True
    return hasattr(obj, "_type_key") and hasattr(obj, "_kernel_params")


def key_to_type(key):
    """A type key -> the cudalite type compiled for it."""
    if isinstance(key, enum.Enum):
        return typeof_constant(key)
    if isinstance(key, tuple):
        if key and key[0] in _NAMED_KEYS:  # ("namedtuple", class, *item keys)
            return NamedTuple([key_to_type(k) for k in key[2:]], key[1])
        if key and isinstance(key[0], str):
            return Tuple([key_to_type(k) for k in key[1:]])
        dtype, ndim, layout = key
        et = type_from_dtype(dtype)
        if et is None:
            raise TypeError(f"arrays of dtype {dtype} cannot be passed to a kernel")
        return Array(et, ndim, layout)
    if key in _SCALAR_CLASSES:
        return type_from_dtype(np.dtype(_SCALAR_CLASSES[key]))
    t = type_from_dtype(key)
    if t is None:
        what = key.__name__ if isinstance(key, type) else f"record of dtype {key}"
        raise TypeError(f"a {what} cannot be passed to a kernel")
    return t


def _scalar_rank(t):
    return 0 if isinstance(t, Boolean) else 1 if isinstance(t, Integer) else 2 if isinstance(t, Float) else 3


def _same_size_numbers(a, b) -> bool:
    return (isinstance(a, (Integer, Float, Complex)) and isinstance(b, (Integer, Float, Complex))
            and not isinstance(a, Boolean) and not isinstance(b, Boolean) and a.bitwidth == b.bitwidth)


def compatible(key, param, reinterpret=False) -> int:
    """How well an argument of type ``key`` fits a declared parameter type:
    -1 (not at all), 0 (by conversion), 1 (exactly).  With ``reinterpret`` (a kernel
    with one eager signature, as numba's "specialized" dispatcher) an array whose
    element type differs from the declared one but has the same size also fits: its
    memory is read as the declared type."""
    actual = key_to_type(key)
    if actual == param:
        return 1
    if isinstance(param, Array) and isinstance(actual, Array):
        same = actual.dtype == param.dtype or (reinterpret and _same_size_numbers(actual.dtype, param.dtype))
        ok = same and actual.ndim == param.ndim and (param.layout == "A" or param.layout == actual.layout)
        return 0 if ok else -1
    if isinstance(param, Tuple) and isinstance(actual, Tuple) and len(param) == len(actual):
        if isinstance(param, NamedTuple) != isinstance(actual, NamedTuple) or (
                isinstance(param, NamedTuple) and param.cls is not actual.cls):
            return -1
        items = key[2:] if key[0] in _NAMED_KEYS else key[1:]
        scores = [compatible(k, p, reinterpret) for k, p in zip(items, param.types)]
        return -1 if min(scores, default=1) < 0 else min(scores, default=1)
    if isinstance(param, CPointer) and isinstance(actual, Integer) and not isinstance(actual, Boolean):
        return 0  # an int address (numba's: e.g. a device array's __cuda_array_interface__ data pointer)
    scalar = (Boolean, Integer, Float, Complex)
    if isinstance(param, scalar) and isinstance(actual, scalar):
        return 0 if _scalar_rank(actual) <= _scalar_rank(param) else -1
    return -1


def eager_rank(keys, params, reinterpret=False):
    """``(unsafe, safe, promote)`` conversion counts of argument type ``keys`` to an
    eager signature's ``params`` (lower is better: numba's kinds, see
    ``cudalite.core.typing.rules.conversion_rank``), or None when one does not fit."""
    from cudalite.core.typing.rules.conversion_rank import PROMOTE, SAFE, UNSAFE, conversion_rank

    counts = {UNSAFE: 0, SAFE: 0, PROMOTE: 0}
    for key, param in zip(keys, params):
        fit = compatible(key, param, reinterpret)
        if fit < 0:
            return None
        if fit == 0:  # by conversion: numbers by numba's kinds; arrays (layout, reinterpreted) promote
            rank = conversion_rank(key_to_type(key), param)
            counts[PROMOTE if rank is None or rank not in counts else rank] += 1
    return counts[UNSAFE], counts[SAFE], counts[PROMOTE]


_INT_CODES = frozenset("bBhHiIlLqQnN")  # struct codes of integer parameters


@functools.lru_cache(maxsize=None)  # a handful of format codes
def _int_wrap(code):
    """``(half, mask)`` of the integer parameter ``code``: an int becomes the parameter's
    value as numba converts it (C's modular conversion: ``0xFFFFFFFF`` for an int32
    parameter is -1) with ``((v + half) & mask) - half`` (signed; ``half`` 0: unsigned)."""
    import struct

    bits = 8 * struct.calcsize("@" + code)
    return (1 << (bits - 1)) if code.islower() else 0, (1 << bits) - 1


def _int_param(value, code):
    half, mask = _int_wrap(code)
    return ((int(value) + half) & mask) - half


bf16_bits = bfloat16_bits  # a bfloat16 parameter is passed as its bits


def _scalar_flat(value, spec):
    """The values of a number for the parameter ``spec``, by the roles of its slots."""
    if isinstance(spec.type, BFloat16):
        return (bf16_bits(value),)
    if isinstance(spec.type, Fp8):
        return (fp8_bits(value, spec.type),)
    first = spec.slots[0]
    if first.role is Role.REAL:
        c = complex(value)
        return (c.real, c.imag)
    if first.role is Role.BOOL:
        return (1 if value else 0,)
    if first.code in _INT_CODES:
        return (_int_param(value, first.code),)
    return (float(value),)


def _slot_exprs(spec, data, shape, stride) -> str:
    """Source of an array's values in slot order: ``data`` for the data pointer,
    ``shape(d)``/``stride(d)`` for the extent/stride along ``d``."""
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


def _unpack(prefix, n, expr) -> list:
    """Prelude lines unpacking the ``n`` items of ``expr`` into ``{prefix}_0`` ...
    (none for a 0-d array: it has no extents or strides)."""
    if not n:
        return []
    return [f"{', '.join(f'{prefix}_{j}' for j in range(n))}, = {expr}"]


def _has_strides(spec) -> bool:
    return any(s.role is Role.STRIDE for s in spec.slots)


class _NoDevice:
    """Mixin of the handlers of values that have no device (scalars, enums)."""

    def device_guard(self, i, a, ns):
        return None


class ScalarHandler(_NoDevice, ArgHandler):
    def __init__(self, cls):
        self.cls = cls

    def key(self, arg):
        return self.cls

    def flat(self, arg, spec, sh):
        return _scalar_flat(arg, spec)

    def snippet(self, i, a, spec, key, ns):
        ns[f"C{i}"] = self.cls
        first = spec.slots[0]
        if first.role is Role.REAL:
            val = f"{a}.real, {a}.imag" if self.cls is not bool else f"(1.0 if {a} else 0.0), 0.0"
        elif isinstance(spec.type, BFloat16):
            ns[f"B{i}"] = bf16_bits
            val = f"B{i}({a})"
        elif isinstance(spec.type, Fp8):
            ns[f"B{i}"], ns[f"T{i}"] = fp8_bits, spec.type
            val = f"B{i}({a}, T{i})"
        elif first.role is Role.BOOL or self.cls is bool or issubclass(self.cls, np.bool_):
            val = f"(1 if {a} else 0)"
        elif first.code in _INT_CODES:  # wrapped to the parameter's width, as numba converts
            half, mask = _int_wrap(first.code)
            v = f"int({a})" if issubclass(self.cls, np.generic) else a
            val = f"((({v} + {half}) & {mask}) - {half})" if half else f"({v} & {mask})"
        else:
            val = a
        return f"type({a}) is C{i}", [], val


class DateTimeHandler(_NoDevice, ArgHandler):
    """A ``numpy.datetime64`` / ``timedelta64`` scalar: keyed by its dtype (the unit is
    part of the type), passed as its int64 value (NaT: the smallest int64)."""

    def __init__(self, cls):
        self.cls = cls

    def key(self, arg):
        return arg.dtype

    def flat(self, arg, spec, sh):
        return (int(arg.view(np.int64)),)


class IntEnumHandler(ScalarHandler):
    """An ``IntEnum`` member: passed as the int it is (numba's ``IntEnumMember``)."""

    def key(self, arg):
        return int


class EnumMemberHandler(_NoDevice, ArgHandler):
    """A plain ``Enum`` member: the kernel is specialized on the member, a compile-time
    constant in device code as a global member is (its type key is the member), so it
    takes no parameter slots; numba passes the member's value instead, with the same
    results for what device code can do with a member (compare it)."""

    def key(self, arg):
        return arg

    def flat(self, arg, spec, sh):
        return []


class DeviceArrayHandler(ArgHandler):
    """cudalite DeviceNDArray: ``_type_key`` and ``_kernel_params`` (the kernel ABI)."""

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

    def flat(self, arg, spec, sh):
        params = arg._kernel_params  # the values for the array's own layout (array_values)
        if len(params) == spec.count:
            return params
        # a C/F array for an 'A' parameter: add the strides its values leave implicit
        ptr, shape = params[0], params[1:1 + arg._type_key[1]]
        strides = (L.c_strides if arg._layout == "C" else L.f_strides)(shape, arg._type_key[0].itemsize)
        return _array_flat(ptr, shape, strides, spec)

    def snippet(self, i, a, spec, key, ns):
        # no class check: any object whose _type_key matches follows the contract (an
        # object without _type_key raises AttributeError, which the guard treats as a miss)
        ns[f"K{i}"] = key
        guard = f"{a}._type_key == K{i}"
        if kernel_abi((key_to_type(key),)).n_values(0) != spec.count:  # C/F array, 'A' parameter
            ns[f"H{i}"], ns[f"P{i}"] = self, spec
            return guard, [f"_cl_v{i} = H{i}.flat({a}, P{i}, SH)"], f"*_cl_v{i}"
        names = [f"_cl_v{i}_{j}" for j in range(spec.count)]
        return guard, [f"{', '.join(names)}, = {a}._kernel_params"], ", ".join(names)


def _pointer_devices(ptr):
    """``(device,)`` of a device address (``(ANY,)`` for managed or mapped host
    memory, ``()`` for NULL), asking the driver (cuPointerGetAttributes)."""
    from cudalite.driver import pointer_attributes

    from ._devices import ANY

    if not ptr:
        return ()
    attrs = pointer_attributes(ptr)
    if attrs.is_managed or attrs.memory_type == "host" or attrs.device_ordinal is None:
        return (ANY,)
    return (attrs.device_ordinal,)


def _stream_wait(consumer, producer):
    """Make work on stream ``consumer`` wait for what is queued on ``producer``."""
    from cudalite.driver import Event, Stream

    Stream.external(consumer).wait_event(Event(timing=False).record(Stream.external(producer)))


def _needs_wait(producer, sh) -> bool:
    """CAI v3: the consumer's stream must wait for the producer's, unless they are
    the same stream or both the legacy default stream (0 and 1 are the same there)."""
    return producer is not None and producer != sh and not (producer <= 1 and sh <= 1)


class CAIHandler(ArgHandler):
    """Any object with ``__cuda_array_interface__`` (v0-v3)."""

    def devices(self, arg):
        ptr = arg.__cuda_array_interface__["data"][0]
        return _pointer_devices(ptr)

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
        if stream is not None and _needs_wait(stream, sh):
            _stream_wait(sh, stream)
        return _array_flat(cai["data"][0] or 0, shape, strides, spec)


class CupyHandler(CAIHandler):
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
        if _needs_wait(cs, sh) and cs != 0:
            _stream_wait(sh, cs)
        return _array_flat(arg.data.ptr, arg.shape, arg.strides, spec)

    def snippet(self, i, a, spec, key, ns):
        dtype, ndim, layout = key
        ns[f"C{i}"], ns[f"D{i}"], ns["WAIT"], ns["NEEDS_WAIT"] = self.cls, dtype, _stream_wait, _needs_wait
        ns["CUPY_STREAM"], ns["CUPY_NULL"] = self.get_stream, self.null_stream
        c, f = (f"{a}._c_contiguous", f"{a}._f_contiguous") if self.has_flags else (
            f"{a}.flags.c_contiguous", f"{a}.flags.f_contiguous")
        lay = {"C": c, "F": f"(not {c} and {f})", "A": f"(not {c} and not {f})"}[layout]
        guard = f"type({a}) is C{i} and {a}.dtype == D{i} and {a}.ndim == {ndim} and {lay}"
        pre = _unpack(f"_cl_s{i}", ndim, f"{a}.shape")
        if _has_strides(spec):
            pre += _unpack(f"_cl_t{i}", ndim, f"{a}.strides")
        vals = _slot_exprs(spec, f"{a}.data.ptr", lambda d: f"_cl_s{i}_{d}", lambda d: f"_cl_t{i}_{d}")
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


def _torch_version(t):
    """A tensor's version counter (bumped by every in-place op, including resize_,
    set_, as_strided_, transpose_...); None for inference tensors (no counter)."""
    try:
        return t._version
    except RuntimeError:
        return None


_TORCH_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "float32", "float64", "complex64", "complex128")


class TorchHandler(ArgHandler):
    """PyTorch CUDA tensors: ``data_ptr()``, ``shape``, ``stride()`` (elements).

    The key's layout comes from :func:`._array_layout.layout_of`; the generated guard
    of a 'C' specialization calls ``is_contiguous()`` instead, which is sound in the
    sense of :class:`CupyHandler` (torch's rule is also NumPy's relaxed one)."""

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

    def flat(self, arg, spec, sh):
        _dtype, shape, strides = self._info(arg)
        return _array_flat(arg.data_ptr(), shape, strides, spec)

    def snippet(self, i, a, spec, key, ns):
        dtype, ndim, layout = key
        torch_dtype = next(t for t, d in self.dtypes.items() if d == dtype)
        ns[f"C{i}"], ns[f"T{i}"], ns[f"H{i}"], ns[f"K{i}"] = self.cls, torch_dtype, self, key
        if layout == "C":
            guard = f"type({a}) is C{i} and {a}.dtype is T{i} and {a}.is_cuda and {a}.dim() == {ndim} " \
                    f"and {a}.is_contiguous()"
        else:
            guard = f"type({a}) is C{i} and H{i}.key({a}) == K{i}"
        if _has_strides(spec):  # torch strides are in elements: converted by flat()
            ns[f"P{i}"] = spec
            return guard, [f"_cl_v{i} = H{i}.flat({a}, P{i}, SH)"], f"*_cl_v{i}"
        pre = _unpack(f"_cl_s{i}", ndim, f"{a}.shape")
        return guard, pre, _slot_exprs(spec, f"{a}.data_ptr()", lambda d: f"_cl_s{i}_{d}", None)

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


class HostArrayHandler(ArgHandler):
    """NumPy arrays: the dispatcher copies them in before and back after the launch."""

    host = True
    fast = False

    def key(self, arg):
        return (arg.dtype, arg.ndim, L.layout_of(arg.shape, arg.strides, arg.dtype.itemsize))


class RecordScalarHandler(ArgHandler):
    """A NumPy record scalar (``a[i]`` of a structured array, ``np.void``/``np.record``):
    passed, as numba passes it, by reference to a device copy that the dispatcher
    copies back into the record after the launch (the kernel's writes are seen)."""

    host = True
    fast = False

    def key(self, arg):
        return arg.dtype

    @staticmethod
    def to_device(arg, stream, to_device):
        """``(device argument, copy-back)`` of the record ``arg`` (``to_device``: the
        API's copy of a host array to the device)."""
        host = np.empty(1, dtype=arg.dtype)
        host[0] = arg
        return DeviceRecord(to_device(host, stream=stream)), RecordCopyBack(arg, host)


class DeviceRecord:
    """A record's device copy (a 1-element device array) as a kernel argument."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


class DeviceRecordHandler(ArgHandler):
    fast = False

    def key(self, arg):
        return arg.array.dtype

    def flat(self, arg, spec, sh):
        return (arg.array.__cuda_array_interface__["data"][0],)


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
    from cudalite.driver import Stream

    Stream.external(int(stream) if stream else 0).synchronize()


def needs_host_copy(handler, arg) -> bool:
    """Whether the dispatcher must copy ``arg`` (or a host array or record inside
    the tuple ``arg``) to the device before the launch and back after it."""
    return handler.host or (isinstance(handler, TupleHandler) and handler.holds_host(arg))


class TupleHandler(ArgHandler):
    """Tuples (and namedtuples) of kernel arguments, nested ones included.  A tuple
    holding NumPy arrays or records is keyed ``("tuple-host", ...)``: the dispatcher
    copies its host items in (:meth:`to_device`) and back, as at the top level, and
    a launch with one never takes the fast path of a tuple of device arrays."""

    def __init__(self, resolve):
        self.resolve = resolve

    def holds_host(self, arg) -> bool:
        return any(needs_host_copy(self.resolve(type(x), x), x) for x in arg)

    def devices(self, arg):
        return tuple(d for x in arg for d in self.resolve(type(x), x).devices(x))

    def key(self, arg):
        keys = tuple(self.resolve(type(x), x).key(x) for x in arg)
        return ("tuple-host" if self.holds_host(arg) else "tuple", *keys)

    def rebuild(self, arg, items):
        return tuple(items)

    def to_device(self, arg, stream, to_device, copies):
        """``arg`` with its host arrays and records replaced by device copies; appends
        ``(device, host or RecordCopyBack)`` to ``copies`` for the copy back."""
        out = []
        for x in arg:
            h = self.resolve(type(x), x)
            if isinstance(h, RecordScalarHandler):
                d, back = h.to_device(x, stream, to_device)
                copies.append((d.array, back))
                x = d
            elif h.host:
                d = to_device(x, stream=stream)
                copies.append((d, x))
                x = d
            elif isinstance(h, TupleHandler) and h.holds_host(x):
                x = h.to_device(x, stream, to_device, copies)
            out.append(x)
        return self.rebuild(arg, out)

    def flat(self, arg, spec, sh):
        out = []
        for x, item in zip(arg, spec.items):
            out.extend(self.resolve(type(x), x).flat(x, item, sh))
        return tuple(out)

    def snippet(self, i, a, spec, key, ns):
        ns[f"C{i}"] = tuple
        guard, pre, vals = super().snippet(i, a, spec, key, ns)
        return f"type({a}) is tuple and {guard}", pre, vals


class NamedTupleHandler(TupleHandler):
    """Instances of one ``namedtuple`` class: keyed ``("namedtuple", cls, ...)``,
    passed as the tuple of their items (the field names are the type's)."""

    def __init__(self, resolve, cls):
        super().__init__(resolve)
        self.cls = cls

    def key(self, arg):
        kind, *keys = super().key(arg)
        return ("namedtuple-host" if kind == "tuple-host" else "namedtuple", self.cls, *keys)

    def rebuild(self, arg, items):
        return self.cls(*items)

    def snippet(self, i, a, spec, key, ns):
        guard, pre, vals = ArgHandler.snippet(self, i, a, spec, key, ns)
        ns[f"C{i}"] = self.cls
        return f"type({a}) is C{i} and {guard}", pre, vals


def handler_for(cls, sample, resolve) -> ArgHandler:
    """The handler for objects of class ``cls`` (``sample`` is one of them);
    ``resolve(cls, obj)`` looks up handlers of tuple items."""
    if issubclass(cls, (np.datetime64, np.timedelta64)):
        return DateTimeHandler(cls)
    if cls in _SCALAR_CLASSES or (issubclass(cls, np.generic) and not issubclass(cls, np.void)):
        if cls not in _SCALAR_CLASSES and type_from_dtype(cls) is None:
            raise TypeError(f"a {cls.__name__} scalar cannot be passed to a kernel")
        return ScalarHandler(cls)
    if issubclass(cls, int) and issubclass(cls, enum.Enum):
        return IntEnumHandler(cls)
    if issubclass(cls, enum.Enum):
        return EnumMemberHandler()
    if is_device_array_like(sample):
        return DeviceArrayHandler(cls)
    if issubclass(cls, np.ndarray):
        return HostArrayHandler()
    if cls is tuple:
        return TupleHandler(resolve)
    if issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple):
        return NamedTupleHandler(resolve, cls)
    module = getattr(cls, "__module__", "") or ""
    if module.startswith("torch") and hasattr(sample, "data_ptr"):
        return TorchHandler(cls)
    if module.startswith("cupy") and hasattr(sample, "data") and hasattr(sample, "strides"):
        return CupyHandler(cls, sample)
    if module.startswith("cuda.core") or (hasattr(sample, "__dlpack__") and hasattr(sample, "__dlpack_device__")
                                          and not hasattr(sample, "__cuda_array_interface__")):
        from ._foreign_args import DLPackHandler, foreign_handler

        handler = foreign_handler(cls, sample)
        if handler is not None:
            return handler
        if hasattr(sample, "__dlpack__") and not hasattr(sample, "__cuda_array_interface__"):
            return DLPackHandler(cls)
    if hasattr(sample, "__cuda_array_interface__"):
        return CAIHandler()
    if issubclass(cls, np.void) and sample.dtype.names:
        return RecordScalarHandler()
    if cls is DeviceRecord:
        return DeviceRecordHandler()
    raise TypeError(f"cannot pass an object of type {cls.__module__}.{cls.__qualname__} to a kernel "
                    "(expected a device array, a NumPy/CuPy array, a torch tensor, an object with "
                    "__cuda_array_interface__, a number, or a tuple of these)")
