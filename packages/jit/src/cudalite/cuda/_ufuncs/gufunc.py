"""``cuda.guvectorize``: CUDA generalized ufuncs (numba.cuda's ``@guvectorize``).

``guvectorize([void(float32[:, :], float32[:, :], float32[:, :])], '(m,n),(n,p)->(m,p)')``
makes a :class:`CUDAGUFunc`.  The layout (:func:`parse_layout`) names each
argument's core dimensions; the leading dimensions of the inputs are the loop
dimensions, broadcast as NumPy does, and each thread of the generated kernel
(:func:`gufunc_source`) runs the function on one loop index: it passes the core
sub-arrays (``a[l0, l1]``), or the element for a scalar type in the signature
(``void(int32, int32[:])`` with ``'()->()'``).  A core of no dimensions passed as
an array type is a 1-element array (numba's scalar outputs: ``r[0] = ...``).
Outputs are allocated from the inputs' core sizes unless given (positionally
after the inputs, or ``out=``).  NumPy inputs are copied to the device and the
outputs back; with any device input the outputs stay on the device.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from cudalite.core.types import Array

from .._memory.api import device_array
from .vectorize import (
    broadcast_shape,
    broadcast_view,
    check_target,
    classify,
    device_function,
    dtype_of_type,
    launch_config,
    loop_kernel,
    multiprocessors,
    no_loop_error,
    order_after_producers,
    parse_signatures,
    select_loop,
    split_options,
    stream_sync,
    to_device_array,
    unflatten_lines,
)

__all__ = ["CUDAGUFunc", "guvectorize", "parse_layout", "gufunc_source"]

_ARG = re.compile(r"\(\s*(\w+(?:\s*,\s*\w+)*)?\s*,?\s*\)")


def parse_layout(layout: Any) -> Any:
    """``(inputs, outputs)``, each a list of tuples of core dimension names:
    ``'(m,n),(n,p)->(m,p)'`` gives ``([('m','n'), ('n','p')], [('m','p')])``."""
    if not isinstance(layout, str) or "->" not in layout:
        raise ValueError(f"not a gufunc layout: {layout!r} (expected e.g. '(m,n),(n,p)->(m,p)')")
    text = re.sub(r"\s+", "", layout)
    ins, outs = text.split("->", 1)

    def side(part):
        args, pos = [], 0
        while pos < len(part):
            m = _ARG.match(part, pos)
            if m is None:
                raise ValueError(f"not a gufunc layout: {layout!r} (bad argument at {part[pos:]!r})")
            args.append(tuple(d for d in (m.group(1) or "").split(",") if d))
            pos = m.end()
            if pos < len(part):
                if part[pos] != ",":
                    raise ValueError(f"not a gufunc layout: {layout!r} (expected ',' at {part[pos:]!r})")
                pos += 1
        return args

    inputs, outputs = side(ins), side(outs)
    if not inputs or not outputs:
        raise ValueError(f"not a gufunc layout: {layout!r} (needs inputs and outputs)")
    for dims in outputs:
        for d in dims:
            if not any(d in i for i in inputs):
                raise NotImplementedError(f"gufunc layout {layout!r}: output dimension {d!r} is not an input "
                                          "dimension (its size would be unknown)")
    return inputs, outputs


KERNEL_NAME = "cudalite_gufunc_kernel"


def gufunc_source(nargs: Any, nloop: Any, scalars: Any) -> Any:
    """The kernel ``(n, a0, ..., a<nargs-1>)`` calling ``_F`` once per loop index:
    every array has ``nloop`` leading loop dimensions (the last argument, an output,
    has the full loop shape); ``scalars[j]`` passes element ``a<j>[l..., 0]``
    converted with ``_T<j>`` instead of the core sub-array."""
    names = [f"a{j}" for j in range(nargs)]
    last = names[-1]
    lines = [f"def {KERNEL_NAME}(n, {', '.join(names)}):",
             "    for i in range(_cuda.grid(1), n, _cuda.gridsize(1)):"]
    lines += unflatten_lines("l", last, nloop)
    idx = ", ".join(f"l{d}" for d in range(nloop))
    vals = [f"_T{j}({a}[{idx}, 0])" if scalars[j] else f"{a}[{idx}]" for j, a in enumerate(names)]
    lines.append(f"        _F({', '.join(vals)})")
    return "\n".join(lines) + "\n"


def _strip_ones(shape):
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


class CUDAGUFunc:
    """A CUDA generalized ufunc (what ``cuda.guvectorize`` returns):
    ``f(*inputs, out=None, stream=0)`` or ``f(*inputs, *outputs, stream=0)``."""

    def __init__(self, func: Any, sigs: Any, layout: Any, identity: Any = None, jit_options: Any = None) -> None:
        self.py_func = getattr(func, "py_func", func)
        self.__name__ = getattr(self.py_func, "__name__", "gufunc")
        self.__qualname__ = getattr(self.py_func, "__qualname__", self.__name__)
        self.__doc__ = getattr(self.py_func, "__doc__", None)
        self.__wrapped__ = self.py_func
        self.identity = identity
        self.signature = layout
        self._inputs, self._outputs = parse_layout(layout)
        self.nin, self.nout = len(self._inputs), len(self._outputs)
        self._jit_options = dict(jit_options or {})
        self._device_fn = device_function(func, self._jit_options)
        self._lock = threading.Lock()
        self._kernels: dict = {}
        self._loops = []  # (argtypes, dtypes, is-array flags)
        if not sigs:
            raise TypeError(f"guvectorize {self.__name__}: give the signatures (e.g. "
                            "[void(float32[:], float32[:])]); cudalite compiles CUDA gufuncs eagerly")
        for sig, (restype, argtypes) in zip(sigs, parse_signatures(sigs)):
            if restype is not None and str(restype) not in ("none", "void"):
                raise TypeError(f"guvectorized functions cannot return values: signature {sig} specifies "
                                f"{restype} return type")
            if len(argtypes) != self.nin + self.nout:
                raise TypeError(f"guvectorize {self.__name__}: signature {sig} has {len(argtypes)} arguments; "
                                f"the layout {layout!r} has {self.nin + self.nout}")
            arrays = tuple(isinstance(t, Array) for t in argtypes)
            for t, is_arr, dims in zip(argtypes, arrays, self._inputs + self._outputs):
                if not is_arr and dims:
                    raise TypeError(f"guvectorize {self.__name__}: {t} is a scalar type but its layout "
                                    f"argument has core dimensions {dims}")
                if is_arr and t.ndim != max(len(dims), 1):
                    raise TypeError(f"guvectorize {self.__name__}: {t} has {t.ndim} dimensions but its layout "
                                    f"argument has {len(dims)}")
            dtypes = tuple(dtype_of_type(t.dtype if a else t) for t, a in zip(argtypes, arrays))
            self._loops.append((argtypes, dtypes, arrays))

    @property
    def nargs(self) -> Any:
        return self.nin + self.nout

    @property
    def types(self) -> Any:
        return ["".join(d.char for d in dts[:self.nin]) + "->" + "".join(d.char for d in dts[self.nin:])
                for _, dts, _ in self._loops]

    @property
    def ntypes(self) -> int:
        return len(self._loops)

    def __repr__(self) -> str:
        return f"<CUDA gufunc {self.__name__!r} {self.signature!r}>"

    def _kernel(self, index, nloop, scalars):
        key = (index, nloop, scalars)
        kernel = self._kernels.get(key)
        if kernel is None:
            argtypes = self._loops[index][0]
            kernel = loop_kernel(gufunc_source(len(argtypes), nloop, scalars), KERNEL_NAME, argtypes,
                                 self._device_fn, self._jit_options)
            with self._lock:
                kernel = self._kernels.setdefault(key, kernel)
        return kernel

    def __call__(self, *args: Any, out: Any = None, stream: Any = 0, **kws: Any) -> Any:
        if kws:
            raise TypeError(f"{self.__name__}() got unexpected keyword arguments {sorted(kws)}")
        nin, nall = self.nin, self.nin + self.nout
        if len(args) not in (nin, nall):
            raise TypeError(f"gufunc accepts {_plural(nin, 'positional argument')} (inputs) or "
                            f"{_plural(nall, 'positional argument')} (inputs and outputs). "
                            f"Got {_plural(len(args), 'positional argument')}.")
        outs = list(args[nin:])
        if out is not None:
            if outs:
                raise ValueError("cannot specify argument 'out' as both positional and keyword")
            outs = list(out) if isinstance(out, tuple) else [out]
            if len(outs) != self.nout:
                raise ValueError(f"{self.__name__}: out= needs {self.nout} arrays, got {len(outs)}")
        ins = [classify(a) for a in args[:nin]]
        out_args = [classify(o) for o in outs]
        for o in out_args:
            if o.kind == "scalar":
                raise TypeError(f"{self.__name__}: an output must be an array")
        index = select_loop([dts[:nin] for _, dts, _ in self._loops], ins)
        if index is None:  # host inputs are converted as numba's gufuncs do (within a kind)
            index = select_loop([dts[:nin] for _, dts, _ in self._loops], ins, "same_kind")
        if index is None:
            raise no_loop_error(self.__name__, [dts[:nin] for _, dts, _ in self._loops], ins)
        argtypes, dtypes, arrays = self._loops[index]
        # core sizes and the loop shape
        sizes: dict = {}
        loop_shapes: list = []
        for a, dims in zip(ins + out_args, self._inputs + self._outputs):
            if len(a.shape) < len(dims):
                raise ValueError(f"{self.__name__}: an argument of shape {a.shape} has fewer dimensions than "
                                 f"its core dimensions {dims}")
            core = a.shape[len(a.shape) - len(dims):]
            for d, n in zip(dims, core):
                if sizes.setdefault(d, n) != n:
                    raise ValueError(f"{self.__name__}: core dimension {d!r} is {sizes[d]} in one argument and "
                                     f"{n} in another (layout {self.signature!r})")
            loop_shapes.append(a.shape[:len(a.shape) - len(dims)])
        loop_shape = broadcast_shape(loop_shapes)
        for o, shp in zip(out_args, loop_shapes[nin:]):
            if _strip_ones(shp) != _strip_ones(loop_shape):  # (1, n) inputs may fill an (n,) output
                raise ValueError(f"{self.__name__}: output of shape {o.shape} does not have the loop "
                                 f"dimensions {loop_shape}")
        on_device = any(a.kind == "device" for a in ins + out_args)

        out_shapes = [loop_shape + tuple(sizes[d] for d in dims) for dims in self._outputs]
        dev_outs = []
        for k, shape in enumerate(out_shapes):
            dt = dtypes[nin + k]
            given = out_args[k] if out_args else None
            if given is not None and given.kind == "device":
                if given.dtype != dt:
                    raise TypeError(f"{self.__name__}: output {k} is {given.dtype}, the loop writes {dt}")
                dev_outs.append(given.value)
            elif given is not None and given.dtype == dt and given.value.flags.c_contiguous:
                dev_outs.append(to_device_array(given, stream))  # keeps what the function does not write
            else:
                dev_outs.append(device_array(shape, dt, stream=stream))
        nloops = 1
        for n in loop_shape:
            nloops *= n
        if nloops:
            order_after_producers(list(ins) + list(out_args or ()), stream)
            self._launch(index, ins, dev_outs, loop_shape, nloops, stream)
        results = []
        for k, d in enumerate(dev_outs):
            given = out_args[k] if out_args else None
            if given is not None and given.kind != "device":
                host = d.copy_to_host(stream=stream)
                stream_sync(stream)
                given.value[...] = host
                results.append(given.value)
            elif on_device or (given is not None):
                results.append(d)
            else:
                host = d.copy_to_host(stream=stream)
                stream_sync(stream)
                results.append(host)
        return results[0] if self.nout == 1 else tuple(results)

    def _launch(self, index, ins, dev_outs, loop_shape, nloops, stream):
        argtypes, dtypes, arrays = self._loops[index]
        nin = self.nin
        work = loop_shape or (1,)  # the kernel's loop dimensions
        values, scalars = [], []
        for j, (a, dims) in enumerate(zip(list(ins) + [None] * self.nout, self._inputs + self._outputs)):
            if j < nin:
                if a.kind == "device" and a.dtype != dtypes[j]:
                    raise TypeError(f"{self.__name__}: argument {j} is a device array of {a.dtype}, which "
                                    f"does not support .astype() here: the loop takes {dtypes[j]}")
                dev = to_device_array(a, stream, dtype=dtypes[j])
            else:
                dev = dev_outs[j - nin]
            core = tuple(dev.shape[dev.ndim - len(dims):]) if dims else ()
            dev = broadcast_view(dev, loop_shape + core)
            if not loop_shape:  # no loop dimensions: one of size 1
                dev = dev._view(0, (1,) + tuple(dev.shape), (0,) + tuple(dev.strides))
            if not dims:  # a core of no dimensions: a trailing dimension of 1
                dev = dev._view(0, tuple(dev.shape) + (1,), tuple(dev.strides) + (dev.dtype.itemsize,))
            values.append(dev)
            scalars.append(not arrays[j])
        kernel = self._kernel(index, len(work), tuple(scalars))
        blocks, threads = launch_config(nloops, multiprocessors())
        kernel[blocks, threads, stream](nloops, *values)


def guvectorize(*args: Any, target: str = "cuda", **kws: Any) -> Any:
    """``@cuda.guvectorize([sigs], '(n),(n)->()')``: a CUDA generalized ufunc.

    Parameters
    ----------
    *args
        The signatures -- ``void(...)`` strings (or tuples of argument types) over
        array types, one per layout argument, inputs then outputs -- and the layout
        string such as ``'(n),(n)->()'``; the function writes its outputs.
    target : str, optional
        Must be ``'cuda'``.
    **kws
        Options as :func:`cuda.vectorize`; ``nopython`` must be True.

    Returns
    -------
    decorator
        Turning the function into a generalized ufunc callable on arrays.
    """
    check_target(target, "guvectorize")
    sigs: Any
    if len(args) == 1:
        sigs, layout = (), args[0]
    elif len(args) == 2:
        sigs, layout = args
    else:
        raise TypeError("guvectorize() takes one or two positional arguments")
    if isinstance(sigs, str):
        sigs = [sigs]
    kws.pop("writable_args", None)
    kws.pop("is_dynamic", None)
    identity, jit_options = split_options(kws, "guvectorize")
    sigs = list(sigs)

    def wrap(func):
        return CUDAGUFunc(func, sigs, layout, identity, jit_options)

    return wrap
