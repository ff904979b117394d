"""``cuda.vectorize``: CUDA ufuncs (numba.cuda's ``@vectorize(..., target='cuda')``).

``vectorize(['float32(float32, float32)', ...])(func)`` makes a :class:`CUDAUFunc`:
calling it broadcasts its inputs as NumPy does, picks the first signature the
input dtypes cast to safely (NumPy's rule; Python scalars are "weak" and fit any
signature of their kind), and runs one generated kernel over the elements.  With
no signature (``@vectorize`` / ``@vectorize()``) a loop is compiled per input
dtypes on first call, its result type inferred from the function.

The kernel (:func:`elementwise_source`) is Python source generated per
(signature, number of dimensions, which arguments are scalars) and compiled with
``cuda.jit``: a grid-stride loop over the output's elements that unravels the
flat index (one dimension when every array is C-contiguous and of the output's
shape), converts each input element to the signature's type and stores
``func(...)`` (compiled as a device function) into the output.  Broadcast inputs
are zero-stride views of the device copies.  NumPy inputs are copied to the
device and the result back; when any input (or ``out=``) is a device array
(or a CUDA-array-interface / DLPack array) the result stays on the device.

This module also holds what :mod:`._gufunc` shares: signature lists, loop
resolution, argument classification, the launch configuration and the
compilation of generated source.
"""

from __future__ import annotations

import inspect
import linecache
import pickle
import threading
import warnings
from typing import Any

from cudalite.core import device_api
from cudalite.core.numpy_support import lazy_numpy as np  # NumPy loads on first use
from cudalite.core.types import dtype_of, parse_signature, type_from_dtype

from .._compiler.carry import carried_code, make_bundle
from .._compiler.compile_code import compile_code
from .._compiler.options import JitOptions
from .._dispatch.decorator import jit
from .._dispatch.device import DeviceDispatcher
from .._dispatch.kernel import CUDADispatcher
from .._dispatch.pickling import reduce_ufunc, ufunc_reduction
from .._launch.arrays import needs_wait as _needs_wait
from .._launch.arrays import stream_wait as _stream_wait
from .._launch.config import stream_handle_of
from .._launch.devices import current_id
from .._memory.layout import type_key
from .._memory.api import as_cuda_array, device_array, is_cuda_array, new_vector, to_device
from ..config import load_config
from .._runtime.api import get_current_device
from ..devicearray import DeviceNDArray, is_device_array
from .keys import key_reader
from .reduce import Reduce

__all__ = ["CUDAUFunc", "vectorize", "elementwise_source", "select_loop", "broadcast_shape",
           "parse_signatures", "check_target"]

_TPB = 128  # threads per block of the generated kernels
_BLOCKS_PER_SM = 32  # a grid of at most this many blocks per multiprocessor (grid-stride loops)
_VECTORIZE_OPTIONS = {"fastmath", "debug", "lineinfo", "opt"}  # passed to cuda.jit


def check_target(target: Any, what: Any) -> None:
    """Refuse targets other than CUDA (cudalite has no CPU target)."""
    if target not in ("cuda", "gpu"):
        raise ValueError(f"Unsupported target: {target!r}: cudalite's {what} compiles for the GPU only "
                         "(target='cuda'); cudalite has no CPU target")


def parse_signatures(sigs: Any) -> Any:
    """``[(return type or None, argtypes)]`` of a signature list (strings, ``Signature``
    objects such as ``float32(float32, float32)`` or tuples of argument types)."""

    if isinstance(sigs, str):
        sigs = [sigs]
    return [parse_signature(sig) for sig in sigs]


def dtype_of_type(t: Any) -> Any:
    return np.dtype(dtype_of(t))


def type_of_dtype(dtype: Any) -> Any:
    t = type_from_dtype(np.dtype(dtype))
    if t is None:
        raise TypeError(f"unsupported dtype {np.dtype(dtype)} for a CUDA ufunc")
    return t


# -- arguments ---------------------------------------------------------------------------------

_WEAK_KINDS = {bool: "?biufc", int: "iufc", float: "fc", complex: "c"}


def numpy_scalar_classes() -> Any:
    """NumPy's number scalar classes (a dtype each): the scalar inputs the fast path takes."""
    return frozenset(np.dtype(c).type for c in "?bBhHiIlLqQefdgFDG")


class Arg:
    """One call argument: ``kind`` is ``"device"`` (a DeviceNDArray), ``"host"`` (a
    NumPy array) or ``"scalar"``; ``weak`` is the Python type of a Python scalar;
    ``producer`` the stream handle a ``__cuda_array_interface__`` v3 producer named
    (the launch waits for it on the device, as kernel launches do)."""

    __slots__ = ("kind", "value", "dtype", "shape", "weak", "producer")

    def __init__(self, kind: Any, value: Any, dtype: Any, shape: Any, weak: Any = None, producer: Any = None) -> None:
        self.kind, self.value, self.dtype, self.shape, self.weak = kind, value, dtype, shape, weak
        self.producer = producer


def classify(obj: Any) -> Arg:
    """The :class:`Arg` of a call argument (device arrays are never copied)."""
    if type(obj) is DeviceNDArray:  # the common case first
        return Arg("device", obj, obj.dtype, obj.shape)

    if is_device_array(obj):
        return Arg("device", obj, obj.dtype, tuple(obj.shape))
    if not isinstance(obj, np.ndarray) and (is_cuda_array(obj) or hasattr(obj, "__dlpack_device__")):
        # not synchronized on the host: the launch stream waits for the producer's stream
        dev = as_cuda_array(obj, sync=False)
        producer = stream_handle_of(dev.stream) if dev.stream else None
        return Arg("device", dev, dev.dtype, tuple(dev.shape), producer=producer)
    for pytype in (bool, int, float, complex):
        if type(obj) is pytype:
            return Arg("scalar", obj, np.asarray(obj).dtype, (), weak=pytype)
    arr = np.asarray(obj)
    if arr.dtype == object:
        raise TypeError(f"cannot pass {type(obj).__name__} to a CUDA ufunc: it is not an array of numbers")
    if arr.ndim == 0:
        return Arg("scalar", arr[()], arr.dtype, ())
    return Arg("host", arr, arr.dtype, tuple(arr.shape))


def _fits(arg, dtype, casting):
    if arg.weak is not None and casting == "safe":
        return dtype.kind in _WEAK_KINDS[arg.weak] and (arg.weak is not int or dtype.kind != "?")
    return np.can_cast(arg.dtype, dtype, casting)


def select_loop(loops: Any, args: Any, casting: str = "safe") -> Any:
    """The index of the first loop (a sequence of argument dtypes) whose types all
    input :class:`Arg` s match exactly, else the first they cast to under ``casting``
    (Python scalars fit any loop of their kind); None if none."""
    for i, dts in enumerate(loops):
        if all(a.dtype == d for a, d in zip(args, dts)):
            return i
    for i, dts in enumerate(loops):
        if all(_fits(a, d, casting) for a, d in zip(args, dts)):
            return i
    return None


def no_loop_error(name: Any, loops: Any, args: Any) -> Any:
    have = ", ".join("(" + ", ".join(str(d) for d in dts) + ")" for dts in loops)
    got = ", ".join(str(a.dtype) for a in args)
    return TypeError(f"{name}: no loop for input types ({got}) under the casting rule 'safe'; "
                     f"the signatures take {have}")


def broadcast_shape(shapes: Any) -> Any:
    """NumPy's broadcast of ``shapes`` (ValueError naming them when they do not broadcast)."""
    first = shapes[0]
    if all(sh == first for sh in shapes):  # the common case, without NumPy's dummy arrays
        return tuple(first)
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError("operands could not be broadcast together with shapes "
                         + " ".join(str(tuple(s)) for s in shapes)) from None


def broadcast_view(dev: Any, shape: Any) -> Any:
    """A zero-stride view of device array ``dev`` broadcast to ``shape``."""
    if tuple(dev.shape) == tuple(shape):
        return dev
    k = len(shape) - dev.ndim
    src_shape = (1,) * k + tuple(dev.shape)
    src_strides = (0,) * k + tuple(dev.strides)
    strides = tuple(0 if s == 1 and t != 1 else st for s, t, st in zip(src_shape, shape, src_strides))
    return dev._view(0, tuple(shape), strides)


def to_device_array(arg: Any, stream: Any, dtype: Any = None) -> Any:
    """The device array of an array :class:`Arg` (NumPy arrays copied, as ``dtype`` when given)."""

    if arg.kind == "device":
        return arg.value
    host = np.asarray(arg.value if dtype is None else np.asarray(arg.value).astype(dtype, copy=False))
    if not host.flags.c_contiguous:
        host = host.copy(order="C")
    return to_device(host, stream=stream)


def multiprocessors() -> int:
    """The current device's multiprocessor count (80 when it cannot be read)."""
    try:
            return int(get_current_device().MULTIPROCESSOR_COUNT)
    except Exception:
        return 80


def launch_config(n: Any, sms: Any) -> Any:
    """``(blocks, threads)`` for a grid-stride loop over ``n`` items on a device of ``sms``
    multiprocessors."""
    blocks = max(1, -(-n // _TPB))
    return min(blocks, sms * _BLOCKS_PER_SM), _TPB


def order_after_producers(args: Any, stream: Any) -> None:
    """CUDA array interface v3: the launch stream waits (on the device) for the streams
    the arguments' producers named, unless ``CUDALITE_CUDA_ARRAY_INTERFACE_SYNC=0``."""
    producers = {a.producer for a in args if a is not None and a.producer is not None}
    if not producers:
        return
    sh = stream_handle_of(stream)
    waits = [p for p in producers if _needs_wait(p, sh)]
    if not waits:  # the launch stream itself, or both the legacy default stream
        return

    if load_config().cuda_array_interface_sync:
        for p in waits:
            _stream_wait(sh, p)


def compile_source(source: Any, entry: Any, namespace: Any, jit_options: Any) -> Any:
    """``cuda.jit`` of function ``entry`` defined by generated ``source`` (registered in
    linecache under a name derived from the text, so errors and the compiler see it)."""

    import hashlib  # lazy: only a ufunc build names its source

    filename = f"<cudalite-ufunc-{hashlib.sha1(source.encode()).hexdigest()[:16]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns = dict(namespace)
    exec(compile(source, filename, "exec"), ns)
    return jit(**jit_options)(ns[entry])


def loop_kernel(source: Any, entry: Any, argtypes: Any, device_fn: Any, jit_options: Any) -> Any:
    """Kernel ``entry`` of generated ``source``, which calls ``device_fn`` (``_F``) on
    arguments of ``argtypes`` (``_T0``, ``_T1``, ...), with the device API as ``_cuda``."""

    ns = {"_cuda": device_api, "_F": device_fn}
    ns.update({f"_T{j}": t for j, t in enumerate(argtypes)})
    return compile_source(source, entry, ns, jit_options)


def device_function(func: Any, jit_options: Any) -> Any:
    """``func`` as a device function (an existing ``cuda.jit(device=True)`` one is used as is)."""

    if isinstance(func, DeviceDispatcher):
        return func
    if isinstance(func, CUDADispatcher):
        raise TypeError(f"{func!r} is a kernel: vectorize a Python function or a device function")
    if not callable(func):
        raise TypeError(f"cannot vectorize {func!r}: it is not a function")
    return jit(device=True, **jit_options)(func)


def infer_return(func: Any, argtypes: Any) -> Any:
    """The return type of ``func`` typed for ``argtypes`` (compiled without a GPU)."""

    py = func.py_func if isinstance(func, DeviceDispatcher) else func
    return compile_code(py, tuple(argtypes), JitOptions(), None, device=True, until="typed-ir").return_type


def stream_sync(stream: Any) -> None:
    if stream:
        stream.synchronize()


# -- the element-wise kernel --------------------------------------------------------------------

KERNEL_NAME = "cudalite_ufunc_kernel"


def unflatten_lines(prefix: Any, shaped: Any, ndim: Any) -> Any:
    """Kernel lines (loop-body indentation) that split the flat index ``i`` into
    ``<prefix>0 .. <prefix><ndim-1>`` over the C-ordered shape of array ``shaped``."""
    lines = ["        r = i"]
    for d in range(ndim - 1, 0, -1):
        lines.append(f"        {prefix}{d} = r % {shaped}.shape[{d}]")
        lines.append(f"        r = r // {shaped}.shape[{d}]")
    lines.append(f"        {prefix}0 = r")
    return lines


def elementwise_source(nargs: Any, ndim: Any, scalars: Any) -> Any:
    """The source of the element-wise kernel ``(out, a0, ..., a<nargs-1>)`` over an
    ``ndim``-dimensional output (``ndim >= 1``); ``scalars[j]`` marks scalar inputs.
    It calls ``_F`` and converts input ``j`` with ``_T<j>``."""
    names = [f"a{j}" for j in range(nargs)]
    lines = [f"def {KERNEL_NAME}(out, {', '.join(names)}):",
             "    n = out.size",
             "    for i in range(_cuda.grid(1), n, _cuda.gridsize(1)):"]
    if ndim == 1:
        idx = "i"
    else:
        lines += unflatten_lines("i", "out", ndim)
        idx = ", ".join(f"i{d}" for d in range(ndim))
    vals = [f"_T{j}({a})" if scalars[j] else f"_T{j}({a}[{idx}])" for j, a in enumerate(names)]
    lines.append(f"        out[{idx}] = _F({', '.join(vals)})")
    return "\n".join(lines) + "\n"


class _Loop:
    __slots__ = ("argtypes", "dtypes", "restype", "out_dtype")

    def __init__(self, restype, argtypes) -> None:
        self.argtypes = tuple(argtypes)
        self.dtypes = tuple(dtype_of_type(t) for t in self.argtypes)
        self.restype = restype
        self.out_dtype = dtype_of_type(restype)


class CUDAUFunc:
    """A CUDA ufunc (what ``cuda.vectorize`` returns): call it like a NumPy ufunc:
    ``f(a, b, out=None, stream=0)``; ``f.reduce(arr, stream=0)`` folds a 1-d array."""

    def __init__(self, func: Any, sigs: Any = (), identity: Any = None, jit_options: Any = None) -> None:
        self.py_func = getattr(func, "py_func", func)
        self.__name__ = getattr(self.py_func, "__name__", "ufunc")
        self.__qualname__ = getattr(self.py_func, "__qualname__", self.__name__)
        self.__doc__ = getattr(self.py_func, "__doc__", None)
        self.__wrapped__ = self.py_func
        self.identity = identity
        self._jit_options = dict(jit_options or {})
        self._device_fn = device_function(func, self._jit_options)
        self._lock = threading.Lock()
        self._kernels: dict = {}  # (loop index, ndim, scalar mask) -> CUDADispatcher
        self._sms: dict = {}  # device id -> multiprocessor count (the grid-stride loop's grid)
        self._fast: dict = {}  # (args' and out's _type_key, ...) -> loop kernel of the fast path (_fast_call)
        self._fast_new: dict = {}  # (args' keys, ...) -> (loop kernel, out dtype, its type key): without out=
        self._last_out = None  # (foreign out=, its key/shape/pointer, the device array over it) of the last fast call
        self._last_config = None  # (n, stream, (blocks, threads, stream)) of the last fast call
        self._scalar_classes = None  # numpy_scalar_classes(), on the first call (NumPy loads on first use)
        self._key_readers: dict = {}  # class of a foreign array -> how the fast path reads its key (keys.key_reader)
        self._held = None  # per input position: (CuPy array, its reading, reader) when it launched as a kept view
        self._reducers: dict = {}  # loop index -> Reduce
        self._carried: dict = {}  # (loop argtypes, ndim, scalar mask) -> _carry.CarriedCode (from a pickle)
        self._loops = []
        self._dynamic = not sigs
        self._sigs = sigs  # as given: pickling remakes the ufunc from them
        for restype, argtypes in parse_signatures(sigs):
            if restype is None:  # a tuple of argument types: the result type is inferred
                restype = infer_return(func, argtypes)
            else:  # type-check now: errors at decoration, as numba
                infer_return(func, argtypes)
            self._loops.append(_Loop(restype, argtypes))
        nins = {len(lp.argtypes) for lp in self._loops}
        if len(nins) > 1:
            raise TypeError(f"vectorize {self.__name__}: the signatures take different numbers of arguments")

        try:
            self.nin: int | None = nins.pop() if nins else len(inspect.signature(self.py_func).parameters)
        except (TypeError, ValueError):
            self.nin = None

    nout = 1

    def __reduce__(self) -> Any:  # by reference when its module names it, else by value (_dispatch.pickling)
        return reduce_ufunc(self)

    __cudalite_by_value__ = ufunc_reduction  # inside a by-value pickle (_dispatch.pickling)

    def _carried_kernels(self):
        """``((loop argtypes, ndim, scalar mask), bundle), ...``: the compiled code of the
        loop kernels, carried by a pickle of this ufunc by value (``_carry``)."""

        out = {}
        for key, carried in self._carried.items():  # received and not used here: passed on
            if carried.artifacts:
                out[key] = make_bundle({}, carried)
        for (index, ndim, scalars), kernel in list(self._kernels.items()):
            bundle = carried_code(kernel)
            if bundle is not None:
                out[(self._loops[index].argtypes, ndim, scalars)] = bundle
        return tuple(out.items())

    def _add_carried(self, key, carried):
        """Load the loop kernel of ``key`` (see :meth:`_carried_kernels`) from ``carried``."""
        if not (type(key) is tuple and len(key) == 3):
            raise pickle.UnpicklingError(f"the compiled code carried in the pickle of ufunc {self.__qualname__} "
                                         "is malformed: the pickle was not made by cudalite, or was altered")
        self._carried[key] = carried

    @property
    def nargs(self) -> Any:
        return None if self.nin is None else self.nin + 1

    @property
    def types(self) -> Any:
        """NumPy-style loop strings, e.g. ``['ff->f', 'dd->d']``."""
        return ["".join(d.char for d in lp.dtypes) + "->" + lp.out_dtype.char for lp in self._loops]

    @property
    def ntypes(self) -> int:
        return len(self._loops)

    def __repr__(self) -> str:
        return f"<CUDA ufunc {self.__name__!r} ({', '.join(self.types) or 'compiled per call'})>"

    # -- loop selection ----------------------------------------------------------------------
    def _loop_for(self, args):
        loops = [lp.dtypes for lp in self._loops]
        i = select_loop(loops, args)
        if i is not None:
            return i
        if not self._dynamic:
            raise no_loop_error(self.__name__, loops, args)
        argtypes = tuple(type_of_dtype(a.dtype) for a in args)
        loop = _Loop(infer_return(self._device_fn, argtypes), argtypes)
        with self._lock:
            self._loops.append(loop)
            return len(self._loops) - 1

    def _multiprocessors(self):
        """The current device's multiprocessor count, read once per device."""
        dev = current_id()
        sms = self._sms.get(dev)
        if sms is None:
            sms = self._sms[dev] = multiprocessors()
        return sms

    def _kernel(self, index, ndim, scalars):
        key = (index, ndim, scalars)
        kernel = self._kernels.get(key)
        if kernel is None:
            kernel = loop_kernel(elementwise_source(len(scalars), ndim, scalars), KERNEL_NAME,
                                 self._loops[index].argtypes, self._device_fn, self._jit_options)
            carried = self._carried.get((self._loops[index].argtypes, ndim, scalars))
            if carried is not None:  # compiled code from a pickle: loaded, not compiled
                kernel._compiler = carried
            with self._lock:
                kernel = self._kernels.setdefault(key, kernel)
        return kernel

    # -- calling -----------------------------------------------------------------------------
    def __call__(self, *args: Any, out: Any = None, stream: Any = 0, **kws: Any) -> Any:
        if not kws:
            done = self._fast_call(args, out, stream)
            if done is not None:
                return done
        if kws:
            raise TypeError(f"{self.__name__}() got unexpected keyword arguments {sorted(kws)}")
        nin = self.nin if self.nin is not None else len(args)
        if len(args) == nin + 1:
            if out is not None:
                raise ValueError("cannot specify argument 'out' as both positional and keyword")
            args, out = args[:-1], args[-1]
        if len(args) != nin:
            raise TypeError(f"{self.__name__}() takes {nin} positional arguments (inputs) or {nin + 1} "
                            f"(inputs and output); got {len(args)}")
        ins = [classify(a) for a in args]
        index = self._loop_for(ins)
        loop = self._loops[index]
        shape = broadcast_shape([a.shape for a in ins])
        out_arg = None if out is None else classify(out)
        if out_arg is not None:
            if out_arg.kind == "scalar":
                raise TypeError("out= must be an array")
            if broadcast_shape([shape, out_arg.shape]) != out_arg.shape:
                raise ValueError(f"non-broadcastable output operand with shape {out_arg.shape} "
                                 f"doesn't match the broadcast shape {shape}")
            shape = out_arg.shape
        on_device = any(a.kind == "device" for a in ins) or (out_arg is not None and out_arg.kind == "device")
        result = self._run(ins, loop, index, shape, out_arg, stream)
        if out_arg is not None:
            if out_arg.kind == "device":
                return out_arg.value
            host = result.copy_to_host(stream=stream)
            stream_sync(stream)
            out_arg.value[...] = host.reshape(out_arg.shape)
            return out_arg.value
        if on_device:
            return result if shape else result.reshape(())
        host = result.copy_to_host(stream=stream)
        stream_sync(stream)
        return host.reshape(shape)[()] if not shape else host.reshape(shape)

    def _fast_call(self, args, out, stream):
        """The common call -- ``out`` and the array inputs device arrays or foreign CUDA
        arrays (CuPy, ...: ``__cuda_array_interface__``), 1-d and C-contiguous, of one
        length, the other inputs Python floats or NumPy number scalars -- launched
        straight away with the loop and kernel the general path (:meth:`_run`) chose the
        first time, without classifying, broadcasting or choosing again (the kernel
        launch orders it after a foreign array's stream, as the general path does; a
        CuPy array seen before launches as its kept device-array view while CuPy's
        current stream is its null stream: :mod:`.keys`).  Without ``out`` the result is
        a new device array of the loop's dtype, as on the general path.  ``out`` (a
        device array over it when it is a foreign array, as the general path and numba
        return), the new array, or None when the call is not such a call (the general
        path then takes it)."""
        if len(args) != self.nin:
            return None
        readers = self._key_readers
        held = self._held
        if held is None or len(held) != len(args):
            held = self._held = [None] * len(args)
        views = None  # the reader whose kept views stand for CuPy arrays in this launch
        launch_out = out
        if out is None:
            out_key = shape = None  # the shape: the first array input's
        elif type(out) is DeviceNDArray:
            out_key, shape = out._type_key, out.shape
        else:
            t = type(out)
            reader = readers.get(t)
            if reader is None:
                reader = readers[t] = key_reader(t, out, self.nin + 1)
            out_found = reader(out)
            if out_found is None:
                return None
            out_key, shape, launch_out = out_found[0], out_found[1], out_found[3]
            if launch_out is not out:
                views = reader
        scalars = self._scalar_classes
        if scalars is None:
            scalars = self._scalar_classes = numpy_scalar_classes()
        key = []
        largs = None  # the launch values, when a view stands for an argument
        for i, a in enumerate(args):
            t = type(a)
            if t is DeviceNDArray:
                if shape is None:
                    shape = a.shape
                elif a.shape != shape:
                    return None
                key.append(a._type_key)
            elif t is float or t in scalars:
                key.append(t)
            else:
                hit = held[i]  # (the CuPy array launched as its view here last time, its reading, reader)
                if hit is not None and hit[0] is a and a.ndim == 1:  # (a CuPy array's rule: keys.cupy_keys)
                    found, reader = hit[1], hit[2]
                else:
                    reader = readers.get(t)
                    if reader is None:
                        reader = readers[t] = key_reader(t, a, self.nin + 1)
                    found = reader(a)
                    if found is None:
                        return None
                    held[i] = (a, found, reader) if found[3] is not a else None  # (no array held longer)
                if shape is None:
                    shape = found[1]
                elif found[1] != shape:
                    return None
                key.append(found[0])
                if found[3] is not a:
                    if largs is None:
                        largs = list(args)
                    largs[i], views = found[3], reader
        n = shape[0] if shape is not None and len(shape) == 1 else 0
        if not n:
            return None
        if out is None:
            made = self._fast_new.get(tuple(key))
            if made is None:
                made = self._fast_new_kernel(tuple(key))
                if made is None:
                    return None
            kernel, out = made[0], new_vector(n, made[1], stream, made[2])
            launch_out = out
        else:
            key.append(out_key)
            key = tuple(key)
            kernel = self._fast.get(key)
            if kernel is None:
                kernel = self._fast_kernel(key)
                if kernel is None:
                    return None
        last = self._last_config  # the same length and stream: the same configuration (the
        if last is not None and last[0] == n and last[1] is stream:  # kernel's current launcher:
            config = last[2]  # a configured launch kept here would go stale when it is replaced)
        else:
            config = (*launch_config(n, self._multiprocessors()), stream)
            self._last_config = (n, stream, config)
        if views is not None and (views.current_stream is None or views.current_stream() is not views.null_stream):
            largs, launch_out = None, out  # CuPy's current stream is another: the CuPy launch path orders
        kernel[config](launch_out, *(args if largs is None else largs))
        if type(out) is not DeviceNDArray:  # a foreign out=: a device array over it, as numba returns
            if type(launch_out) is DeviceNDArray:
                return launch_out  # the reader's kept view
            # (the last one kept: the same object with the same memory and shape gets the same view)
            last = self._last_out
            if last is not None and last[0] is out and last[1] == out_found[:3]:
                return last[2]
            view = as_cuda_array(out, sync=False)
            self._last_out = (out, out_found[:3], view)
            return view
        return out

    def _fast_new_kernel(self, key):
        """``(loop kernel, out dtype, its interned type key)`` of a :meth:`_fast_call` without ``out`` (``key``:
        the inputs' keys), kept; None as :meth:`_fast_kernel`."""
        probe = [Arg("scalar", 0.0, np.dtype(np.float64), (), weak=float) if k is float
                 else Arg("scalar", None, np.dtype(k), ()) if type(k) is not tuple
                 else Arg("device", None, k[0], (1,)) for k in key]
        index = select_loop([lp.dtypes for lp in self._loops], probe)
        if index is None:
            return None
        out_dtype = self._loops[index].out_dtype
        kernel = self._fast_kernel(key + ((out_dtype, 1, "C"),))
        if kernel is None:
            return None
        self._fast_new[key] = made = (kernel, out_dtype, type_key(out_dtype, 1, "C"))
        return made

    def _fast_kernel(self, key):
        """The loop kernel of a :meth:`_fast_call` key (``float`` for a Python float input,
        else the arrays' type keys; out's last), kept; None when the arrays are not 1-d C
        arrays, or the loop the general path would choose (:func:`select_loop`, a float
        being a weak float64 scalar) does not give out's dtype or is still to compile."""
        if any(type(k) is tuple and (k[1] != 1 or k[2] != "C") for k in key):
            return None
        probe = [Arg("scalar", 0.0, np.dtype(np.float64), (), weak=float) if k is float
                 else Arg("scalar", None, np.dtype(k), ()) if type(k) is not tuple  # a NumPy scalar class
                 else Arg("device", None, k[0], (1,)) for k in key[:-1]]
        index = select_loop([lp.dtypes for lp in self._loops], probe)
        if index is None or self._loops[index].out_dtype != key[-1][0]:
            return None  # a loop to compile, an error to raise, or a cast of the result: the general path
        kernel = self._kernel(index, 1, tuple(type(k) is not tuple for k in key[:-1]))
        self._fast[key] = kernel
        return kernel

    def _run(self, ins, loop, index, shape, out_arg, stream):
        """Launch over ``shape`` and return the device output (1 element for shape ``()``)."""

        size = 1
        for n in shape:
            size *= n
        if out_arg is not None and out_arg.kind == "device" and out_arg.dtype == loop.out_dtype:
            dout = out_arg.value
        else:
            dout = device_array(shape or (1,), loop.out_dtype, stream=stream)
        if size == 0:
            return dout
        work_shape = shape or (1,)
        values = []
        for a, dt in zip(ins, loop.dtypes):
            if a.kind == "scalar":
                values.append(a.value)
            else:
                values.append(broadcast_view(to_device_array(a, stream), work_shape))
        arrays = [v for a, v in zip(ins, values) if a.kind != "scalar"] + [dout]
        target = dout
        if len(work_shape) > 1 and all(tuple(v.shape) == tuple(work_shape) and v.is_c_contiguous()
                                       for v in arrays):
            values = [v if a.kind == "scalar" else v.reshape(size) for a, v in zip(ins, values)]
            target = dout.reshape(size)
        elif not shape:
            values = [v if a.kind == "scalar" else v.reshape(1) for a, v in zip(ins, values)]
        scalars = tuple(a.kind == "scalar" for a in ins)
        kernel = self._kernel(index, target.ndim, scalars)
        blocks, threads = launch_config(size, self._multiprocessors())
        order_after_producers(ins + [out_arg], stream)
        kernel[blocks, threads, stream](target, *values)
        if out_arg is not None and out_arg.kind == "device" and dout is not out_arg.value:
            cast = dout.copy_to_host(stream=stream).astype(out_arg.dtype)
            stream_sync(stream)
            to_device(cast, stream=stream, to=out_arg.value)
        return dout

    # -- reduce ------------------------------------------------------------------------------
    def reduce(self, arr: Any, stream: Any = 0) -> Any:
        """Fold the 1-d array ``arr`` with this binary ufunc (assumed associative and
        commutative, as numba's); a NumPy scalar of the loop's type."""
        if self.nin != 2:
            raise ValueError(f"reduce only supported for binary functions; {self.__name__} takes {self.nin}")
        a = classify(arr)
        if a.kind == "scalar" or len(a.shape) != 1:
            raise ValueError(f"{self.__name__}.reduce reduces 1-d arrays, not shape {a.shape}")
        if a.shape[0] == 0:
            raise ValueError(f"zero-size array to reduction operation {self.__name__} which has no identity")
        index = self._loop_for([a, a])
        loop = self._loops[index]
        if loop.dtypes[0] != loop.dtypes[1] or loop.dtypes[0] != loop.out_dtype:
            raise TypeError(f"{self.__name__}.reduce needs a loop T(T, T); the loop for {a.dtype} is "
                            f"{loop.out_dtype}({loop.dtypes[0]}, {loop.dtypes[1]})")
        dt = loop.dtypes[0]
        if a.kind == "device" and a.dtype != dt:
            raise TypeError(f"{self.__name__}.reduce: a device array of {a.dtype} needs a loop of that type; "
                            f"the matching loop takes {dt}")
        src = a.value if a.kind == "device" else np.ascontiguousarray(a.value, dtype=dt)
        reducer = self._reducers.get(index)
        if reducer is None:
            with self._lock:
                reducer = self._reducers.setdefault(index, Reduce(self._device_fn))
        result = reducer(src, stream=stream)
        stream_sync(stream)
        return dt.type(result)


# -- the decorator -------------------------------------------------------------------------------

def split_options(kws: Any, what: Any) -> Any:
    """``(identity, jit options)`` of vectorize's keyword options (numba's messages)."""
    kws = dict(kws)
    identity = kws.pop("identity", None)
    kws.pop("cache", None)
    if "nopython" in kws:
        if kws.pop("nopython") is not True and what == "guvectorize":
            raise TypeError("nopython flag must be True")
        if what == "vectorize":
            warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning, stacklevel=3)
    jit_options = {k: kws.pop(k) for k in list(kws) if k in _VECTORIZE_OPTIONS}
    if kws:
        if what == "guvectorize":
            raise TypeError("The following target options are not supported: "
                            + ", ".join(repr(k) for k in kws))
        raise KeyError(f"Unrecognized options: {sorted(kws)}; cuda.vectorize takes "
                       f"{sorted(_VECTORIZE_OPTIONS | {'identity', 'cache', 'nopython', 'target'})}")
    return identity, jit_options


def vectorize(ftylist_or_function: Any = (), target: str = "cuda", **kws: Any) -> Any:
    """``@cuda.vectorize(['f4(f4, f4)', ...])``: a CUDA ufunc from a scalar function.

    Parameters
    ----------
    ftylist_or_function : str, list or function, optional
        A signature string, a list of signatures (strings or
        ``float32(float32, float32)`` objects), or the function itself (then loops
        are compiled per input types at call time, as ``@vectorize`` with no
        signature).
    target : str, optional
        Must be ``'cuda'`` (numba's ``vectorize(..., target='cuda')``).
    **kws
        ``identity``, ``cache`` (accepted), ``nopython`` (redundant: a warning),
        ``fastmath``/``debug``/``lineinfo``/``opt`` (as :func:`cuda.jit`).

    Returns
    -------
    decorator or ufunc
        Called on arrays (NumPy, device, CuPy, torch) with broadcasting,
        ``out=`` and ``stream=``, as numba's CUDA ufuncs.
    """
    check_target(target, "vectorize")
    identity, jit_options = split_options(kws, "vectorize")
    if callable(ftylist_or_function) and not isinstance(ftylist_or_function, (str, list, tuple)):
        return CUDAUFunc(ftylist_or_function, (), identity, jit_options)
    sigs = [ftylist_or_function] if isinstance(ftylist_or_function, str) else list(ftylist_or_function or ())

    def wrap(func):
        return CUDAUFunc(func, sigs, identity, jit_options)

    return wrap
